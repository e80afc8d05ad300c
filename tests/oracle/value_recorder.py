"""Record the shape, dtype and weak type JAX gives every name assigned in a kernel body.

The value oracle for pallas-lsp's shape/dtype inference; like ``jax_runner.py`` it is the
only place that imports JAX and runs in a subprocess:

    python tests/oracle/value_recorder.py [--timeout S] MODULE.py ...

Each module is imported as ``jax_runner.py`` does (as part of its package when its
folder has an ``__init__.py``) and its ``trace()`` (or ``main()``, or ``jax_check()``) is
called. While Pallas traces a kernel (``pallas_call`` or ``core_map`` / ``pl.kernel``:
their call of JAX's ``trace_to_jaxpr_dynamic``, wrapped for the run), every frame of code under the module's import folder (the kernel, its helpers,
``pl.when`` / ``lax.fori_loop`` bodies, nested defs) is followed with ``sys.settrace``.
When a statement is done (the frame moves to another statement or returns), the names
it binds (``=``, ``+=``, annotated and tuple-unpacking assignments, ``:=``; not ``for``
targets, ``with ... as``, parameters) are looked up and recorded if their value has an
array aval: JAX arrays and tracers, numpy arrays and scalars, Python floats (weakly
typed); never refs, Python ints or bools. Per module it prints a line
``{"start": path}`` and then

    {"path": ..., "status": "ok" | "error" | "no_entry" | "hang" | "timeout",
     "message": ..., "exc_type": ..., "seconds": ...,
     "values": [{"path": file, "line": L, "col": C, "name": "acc",
                 "avals": [{"shape": [8, 128], "dtype": "float32", "weak": false}, ...]}]}

``line`` is 1-based, ``col`` the 0-based column (code points) of the target name; a name
bound at one place with several avals (a kernel traced twice, an unrolled loop) lists
each distinct one. ``hang``: a semaphore wait the TPU interpreter never returns from
(after tracing); ``timeout``: the module ran past ``--timeout``. In both cases the values
recorded so far are printed and the process exits; a driver restarts it for the rest.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import io
import json
import os
import sys
import threading
import time
import warnings
from dataclasses import dataclass, field

from jax_runner import _forget, import_root

os.environ.setdefault("JAX_PLATFORMS", "cpu")
_flags = os.environ.get("XLA_FLAGS", "")
if "xla_force_host_platform_device_count" not in _flags:  # the ring kernels want 2 devices
    os.environ["XLA_FLAGS"] = f"{_flags} --xla_force_host_platform_device_count=2".strip()
sys.dont_write_bytecode = True

ENTRY_POINTS = ("trace", "main", "jax_check")
# The JAX functions that trace a kernel body, (file under jax/_src/pallas/, name): their
# calls of `partial_eval.trace_to_jaxpr_dynamic` are followed (sys.settrace only then,
# which keeps the rest of the run, its interpreter included, at full speed).
KERNEL_TRACERS = {("pallas_call.py", "_trace_kernel_to_jaxpr"), ("core.py", "wrapped")}
PALLAS_DIR = os.sep + os.path.join("jax", "_src", "pallas") + os.sep
# Code objects that are not statements of the kernel: their frames are not followed.
SKIPPED_CODE = {"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>", "<lambda>"}
INTERPRETER_DIR = os.path.join("pallas", "mosaic", "interpret") + os.sep


@dataclass(frozen=True)
class Target:
    """A name bound by an assignment statement, where it is written."""

    name: str
    line: int  # 1-based
    col: int   # 0-based, code points


@dataclass
class FileIndex:
    """Which statement each line belongs to, and the names each statement binds."""

    path: str
    statement: dict[int, int] = field(default_factory=dict)       # line -> statement key
    targets: dict[int, list[Target]] = field(default_factory=dict)  # key -> its targets


def _names(target: ast.expr) -> list[ast.Name]:
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _names(e)]
    if isinstance(target, ast.Starred):
        return _names(target.value)
    return []  # `ref[...] = v`, `obj.attr = v`: stores, not names


def _header(st: ast.stmt):
    """The nodes of a statement outside its nested statement blocks (bodies, handlers)."""
    for _, value in ast.iter_fields(st):
        items = value if isinstance(value, list) else [value]
        if not any(isinstance(v, (ast.stmt, ast.excepthandler, ast.match_case)) for v in items):
            for v in items:
                if isinstance(v, ast.AST):
                    yield from ast.walk(v)


def _bound_names(st: ast.stmt) -> list[ast.Name]:
    if isinstance(st, ast.Assign):
        out = [n for t in st.targets for n in _names(t)]
    elif isinstance(st, ast.AugAssign) or (isinstance(st, ast.AnnAssign) and st.value):
        out = _names(st.target)
    else:
        out = []
    return out + [n.target for n in _header(st) if isinstance(n, ast.NamedExpr)]


def _own_lines(st: ast.stmt) -> range:
    """A simple statement's lines; a compound statement's header (with decorators)."""
    first = min([st.lineno] + [d.lineno for d in getattr(st, "decorator_list", [])])
    body = getattr(st, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
        return range(first, max(first, body[0].lineno - 1) + 1)
    return range(first, st.end_lineno + 1)


def index_file(path: str) -> FileIndex:
    with open(path, encoding="utf-8") as f:
        source = f.read()
    lines = source.splitlines()
    index = FileIndex(path)
    for st in ast.walk(ast.parse(source)):  # breadth first: inner statements come later
        if not isinstance(st, ast.stmt):
            continue
        own = _own_lines(st)
        for line in own:
            index.statement[line] = own.start
        for n in _bound_names(st):
            col = len(lines[n.lineno - 1].encode("utf-8")[: n.col_offset].decode("utf-8"))
            index.targets.setdefault(own.start, []).append(Target(n.id, n.lineno, col))
    return index


def aval_of(value) -> dict | None:
    """{"shape", "dtype", "weak"} of an array-like value; None for refs, ints, bools, others."""
    import jax
    import numpy as np

    if isinstance(value, (bool, int)) or not isinstance(
            value, (jax.Array, jax.core.Tracer, np.ndarray, np.generic, float, complex)):
        return None
    try:
        aval = jax.typeof(value)
    except TypeError:
        return None
    if not isinstance(aval, jax.core.ShapedArray):  # refs, semaphores, ...
        return None
    return {"shape": [int(d) if isinstance(d, int) else str(d) for d in aval.shape],
            "dtype": str(aval.dtype), "weak": bool(aval.weak_type)}


class _FrameWatch:
    """Follows one kernel frame: when its statement changes or it returns, records what
    the statement just finished bound (a statement that raised records nothing)."""

    def __init__(self, recorder: Recorder, index: FileIndex):
        self.recorder, self.index = recorder, index
        self.current: int | None = None
        self.failed = False

    def event(self, frame, event, arg):
        if event == "line":
            key = self.index.statement.get(frame.f_lineno)
            if key != self.current:
                self._finish(frame)
                self.current, self.failed = key, False
        elif event == "return":
            self._finish(frame)
            self.current = None
        elif event == "exception":
            self.failed = True
        return self.event

    def _finish(self, frame) -> None:
        targets = self.index.targets.get(self.current) if not self.failed else None
        if not targets:
            return
        local = frame.f_locals
        for t in targets:
            if t.name in local:
                self.recorder.add(self.index.path, t, local[t.name])


class Recorder:
    """``sys.settrace`` hook: the avals of kernel-body names in files under `root`."""

    def __init__(self, root: str):
        self.root = os.path.realpath(root) + os.sep
        self.indexes: dict[str, FileIndex | None] = {}
        self.values: dict[tuple[str, int, int, str], list[dict]] = {}
        self._original = None  # JAX's trace_to_jaxpr_dynamic, while wrapped

    def add(self, path: str, target: Target, value) -> None:
        aval = aval_of(value)
        if aval is not None:
            seen = self.values.setdefault((path, target.line, target.col, target.name), [])
            if aval not in seen:
                seen.append(aval)

    def _index(self, path: str) -> FileIndex | None:
        if path not in self.indexes:
            try:
                self.indexes[path] = index_file(path)
            except (OSError, SyntaxError, UnicodeDecodeError):
                self.indexes[path] = None
        return self.indexes[path]

    def _call(self, frame, event, arg):
        code = frame.f_code
        if not code.co_filename.startswith(self.root) or code.co_name in SKIPPED_CODE:
            return None
        index = self._index(code.co_filename)
        return None if index is None else _FrameWatch(self, index).event

    def _tracing(self, trace_to_jaxpr):
        """`trace_to_jaxpr`, following frames while it traces a kernel for Pallas."""

        def traced(*args, **kwargs):
            code = sys._getframe(1).f_code
            if not (PALLAS_DIR in code.co_filename and (
                    os.path.basename(code.co_filename), code.co_name) in KERNEL_TRACERS):
                return trace_to_jaxpr(*args, **kwargs)
            previous = sys.gettrace()
            sys.settrace(self._call)
            try:
                return trace_to_jaxpr(*args, **kwargs)
            finally:
                sys.settrace(previous)

        return traced

    def records(self) -> list[dict]:
        return [{"path": p, "line": line, "col": col, "name": name, "avals": list(avals)}
                for (p, line, col, name), avals in sorted(list(self.values.items()))]

    def __enter__(self):
        from jax._src.interpreters import partial_eval

        self._original = partial_eval.trace_to_jaxpr_dynamic
        partial_eval.trace_to_jaxpr_dynamic = self._tracing(self._original)
        return self

    def __exit__(self, *exc):
        from jax._src.interpreters import partial_eval

        partial_eval.trace_to_jaxpr_dynamic = self._original


def _blocked_in_semaphore_wait() -> bool:
    """Some thread idles in the TPU interpreter's semaphore wait loop (it never gives up)."""
    for frame in sys._current_frames().values():
        while frame is not None and frame.f_code.co_filename.endswith("threading.py"):
            frame = frame.f_back
        if (frame is not None and frame.f_code.co_name == "wait"
                and INTERPRETER_DIR in frame.f_code.co_filename):
            return True
    return False


class _Printer:
    """Prints a module's record once: from the main thread when the module is done, or
    from the watchdog, which then ends the process (a hang, an overrun)."""

    def __init__(self, rec: dict, recorder: Recorder, timeout: float):
        self.rec, self.recorder, self.timeout = rec, recorder, timeout
        self.lock, self.done = threading.Lock(), threading.Event()
        self.t0 = time.perf_counter()

    def emit(self, **update) -> bool:
        with self.lock:
            if self.done.is_set():
                return False
            self.done.set()
            self.rec.update(update, values=self.recorder.records(),
                            seconds=round(time.perf_counter() - self.t0, 3))
            sys.__stdout__.write(json.dumps(self.rec) + "\n")
            sys.__stdout__.flush()
            return True

    def watch(self) -> None:
        idle = 0
        while not self.done.wait(0.5):
            idle = idle + 1 if _blocked_in_semaphore_wait() else 0
            overrun = time.perf_counter() - self.t0 > self.timeout
            if (idle >= 4 or overrun) and self.emit(status="hang" if idle >= 4 else "timeout"):
                os._exit(0)


def run_module(path: str, timeout: float) -> None:
    folder, modname = import_root(path)
    top = modname.split(".")[0]
    rec = {"path": path, "status": "ok", "message": None, "exc_type": None}
    recorder = Recorder(folder)
    printer = _Printer(rec, recorder, timeout)
    threading.Thread(target=printer.watch, daemon=True).start()
    sys.path.insert(0, folder)
    _forget(top)
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), recorder:
            warnings.simplefilter("ignore")
            mod = importlib.import_module(modname)  # (a kernel traced at import counts)
            entry = next((getattr(mod, n) for n in ENTRY_POINTS if hasattr(mod, n)), None)
            if entry is None:
                rec["status"] = "no_entry"
            else:
                entry()
                importlib.import_module("jax").effects_barrier()
    except Exception as e:  # noqa: BLE001 - a module JAX rejects still has its values
        rec.update(status="error", exc_type=type(e).__name__,
                   message=(str(e).splitlines() or [""])[0][:500])
    finally:
        sys.path.remove(folder)
        _forget(top)
    printer.emit()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("modules", nargs="+")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds a module may run (default 60)")
    args = ap.parse_args(argv)
    import jax  # noqa: F401 - imported once, before the first module

    for path in args.modules:
        sys.stdout.write(json.dumps({"start": path}) + "\n")
        sys.stdout.flush()
        run_module(path, args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
