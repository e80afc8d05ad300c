"""Trace Pallas kernel modules with JAX and report what JAX said, one JSON object a line.

This is the only place the oracle imports JAX; the tests and the accuracy bench run it
in a subprocess:

    python tests/oracle/jax_runner.py [--coverage] MODULE.py ...

For each module file it imports the module (as part of its package when its folder has
an ``__init__.py``), calls its ``trace()`` (or ``main()``) and prints one JSON record:

    {"path": ..., "status": "ok" | "sem_error" | "error" | "no_entry",
     "kind": "signal" | "wait" | null, "shape": "(2,)" | null,
     "message": first line of the exception, "exc_type": ...,
     "frames": [[file, line], ...],          # traceback frames inside the module's tree
     "leftover": [line, ...],                # the TPU interpreter's "Semaphore ... has
                                             # non-zero count ... at kernel exit" lines
     "covered": {file: [line, ...]}}         # with --coverage: lines executed there

``sem_error`` means JAX raised ``Cannot signal/wait on a non-()-shaped semaphore: S``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import re
import sys
import traceback
import warnings

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.dont_write_bytecode = True  # keep __pycache__ out of the corpus

SEM_ERROR = re.compile(r"Cannot (signal|wait) on a non-\(\)-shaped semaphore: (\(.*?\))")
# What the TPU interpreter (`pltpu.InterpretParams()`) prints, without raising, for a
# semaphore left signalled when the kernel exits (a DMA never waited, a signal never waited).
LEFTOVER = re.compile(r"Semaphore .* has non-zero count .* at kernel exit")


def import_root(path: str) -> tuple[str, str]:
    """(folder to put on sys.path, dotted module name) for a module file."""
    path = os.path.realpath(path)
    folder, name = os.path.split(path)
    parts = [os.path.splitext(name)[0]]
    while os.path.exists(os.path.join(folder, "__init__.py")):
        folder, pkg = os.path.split(folder)
        parts.insert(0, pkg)
    return folder, ".".join(parts)


def _forget(top: str) -> None:
    for name in [m for m in sys.modules if m == top or m.startswith(top + ".")]:
        del sys.modules[name]


def _find_sem_error(exc: BaseException | None):
    """The exception in the chain whose text is JAX's semaphore-shape error, if any."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        m = SEM_ERROR.search(str(exc))
        if m:
            return exc, m
        exc = exc.__cause__ or exc.__context__
    return None, None


class _Coverage:
    """Line coverage for the files under one folder (sys.settrace; no extra packages)."""

    def __init__(self, root: str):
        self.root = root + os.sep
        self.lines: dict[str, set[int]] = {}

    def _local(self, frame, event, arg):
        if event == "line":
            self.lines.setdefault(frame.f_code.co_filename, set()).add(frame.f_lineno)
        return self._local

    def _global(self, frame, event, arg):
        if frame.f_code.co_filename.startswith(self.root):
            self.lines.setdefault(frame.f_code.co_filename, set()).add(frame.f_lineno)
            return self._local
        return None

    def __enter__(self):
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc):
        sys.settrace(None)


def run_module(path: str, coverage: bool = False) -> dict:
    folder, modname = import_root(path)
    top = modname.split(".")[0]
    rec = {"path": path, "status": "ok", "kind": None, "shape": None, "message": None,
           "exc_type": None, "frames": [], "covered": {}}
    sys.path.insert(0, folder)
    _forget(top)
    cov = _Coverage(os.path.realpath(folder)) if coverage else contextlib.nullcontext()
    out = io.StringIO()
    try:
        with cov, warnings.catch_warnings(), contextlib.redirect_stdout(out):
            warnings.simplefilter("ignore")
            mod = importlib.import_module(modname)
            entry = getattr(mod, "trace", None) or getattr(mod, "main", None)
            if entry is None:
                rec["status"] = "no_entry"
            else:
                entry()
                importlib.import_module("jax").effects_barrier()  # the interpreter's exit checks
    except Exception as e:  # noqa: BLE001 - everything JAX raises is a result here
        sem, m = _find_sem_error(e)
        rec["exc_type"] = type(sem or e).__name__
        rec["message"] = (str(sem or e).splitlines() or [""])[0][:500]
        if sem is not None:
            rec.update(status="sem_error", kind=m.group(1), shape=m.group(2))
        else:
            rec["status"] = "error"
            rec["traceback"] = traceback.format_exc()[-3000:]
        root = os.path.realpath(folder) + os.sep
        rec["frames"] = [
            [os.path.realpath(fr.filename), fr.lineno]
            for fr in traceback.extract_tb((sem or e).__traceback__)
            if os.path.realpath(fr.filename).startswith(root)
        ]
    finally:
        sys.path.remove(folder)
        _forget(top)
        rec["leftover"] = [ln for ln in out.getvalue().splitlines() if LEFTOVER.search(ln)]
    if coverage:
        rec["covered"] = {f: sorted(v) for f, v in cov.lines.items()}
    return rec


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("modules", nargs="+")
    ap.add_argument("--coverage", action="store_true", help="record executed lines")
    args = ap.parse_args(argv)
    import jax  # noqa: F401 - imported once, before the first module, so timing is fair

    for path in args.modules:
        rec = run_module(path, coverage=args.coverage)
        sys.stdout.write(json.dumps(rec) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
