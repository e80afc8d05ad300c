"""Run each DMA / semaphore protocol module under JAX's TPU interpreter; one JSON line each.

This is the only place the protocol corpus imports JAX (and only in ``--worker`` mode);
the test (``tests/oracle/test_protocol_oracle.py``) runs it in a subprocess:

    python tests/protocol/jax_verdicts.py [--timeout S] [--dma-mode eager|on_wait] [MODULE.py[@MODE] ...]
                                           # default: every pal*.py here

The driver (this file without ``--worker``) does not import JAX. It starts a worker
(``jax_verdicts.py --worker MODULE.py ...``) that imports JAX once and runs the modules
one after the other, announcing each before running it.

Hangs: a wait that nothing will signal sits forever in the interpreter's
``Semaphore.wait`` loop (it polls every 0.1 s, has no timeout and no deadlock detection,
and only gives up when the interpreter's shared state is marked failed). ``S`` seconds
(``--timeout``, default 3) after a module started, a watchdog thread in the worker looks
at the stacks (``sys._current_frames``); when a thread has idled in that loop for two
seconds it marks the state failed, as the interpreter does for its own errors, the wait
raises, and the module is recorded as ``hang`` with ``hang_in`` (the interpreter
function: ``dma_wait`` or ``semaphore_wait``). The worker then goes on with the next
module. Fallback, should that not work: ``S + 7`` seconds after a module started the
driver asks the worker for its stacks (SIGUSR1, ``faulthandler``); two dumps a second
apart with a thread idling in that loop make it a ``hang``, and the driver kills the
worker and starts a new one for the rest. A module that is only slow gets more time, up
to 60 s in all.

``MODULE.py@eager`` / ``MODULE.py@on_wait`` (or ``--dma-mode`` for every module) overrides
the ``dma_execution_mode`` of every ``pltpu.InterpretParams`` the module builds (the test
uses it to show which rules need eager DMAs); the record's ``job`` is the argument as
given and ``dma_mode`` the override (null: the module's own).

For each module it prints

    {"job": "MODULE.py[@MODE]", "path": ..., "module": "pal302_..._bug", "dma_mode": null,
     "status": "ok" | "error" | "leftover" | "race" | "hang" | "crash" | "no_entry",
     "exc_type": "ValueError" | ...,      # the exception; for an error raised inside an
     "message": "...",                    #   interpreter callback (JaxRuntimeError), the
     "raised_in": "pallas/...:fn",        #   inner exception's type, first line and frame
     "wrapped": true | false,             # raised inside an interpreter callback
     "line": last traceback line inside the module,
     "semaphores": [{"id": 2000, "core": 0, "count": 4096}, ...],   # leftover counts
     "races": true | false,               # the race detector printed RACE DETECTED
     "source": the raising source line, for an error inside a callback (an assert has no message),
     "hang_in": "pallas/mosaic/interpret/interpret_pallas_call.py:dma_wait",  # for a hang
     "printed": what the module printed (the interpreter's reports), first 1500 characters,
     "seconds": ...}

``status`` is ``error`` when ``jax_check()`` raised (whatever was printed), else
``leftover`` when the interpreter printed ``Semaphore <id> has non-zero count for <dev>
(global core <c>) at kernel exit: <n>``, else ``race`` when it printed ``RACE DETECTED``,
else ``ok``.
"""

from __future__ import annotations

import contextlib
import faulthandler
import importlib.util
import io
import json
import linecache
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import traceback
import warnings

HERE = os.path.dirname(os.path.realpath(__file__))
DEFAULT_TIMEOUT = 3.0   # seconds before the worker looks for a blocked semaphore wait
FALLBACK = 7.0          # more seconds before the driver looks from outside (stack dump)
HANG_MARK = "jax_verdicts.py: the kernel is blocked in a semaphore wait"
DEVICES = 2             # CPU devices the worker asks XLA for (ring kernels)
HARD_LIMIT = 60.0       # seconds before a module that is busy but not blocked is given up

# A faulthandler frame line: `  File "/.../shared_memory.py", line 201 in wait`.
DUMP_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line \d+ in (?P<fn>\S+)')
SEM_WAIT_FILE = os.path.join("pallas", "mosaic", "interpret", "shared_memory.py")
INTERPRETER_FILE = os.path.join("pallas", "mosaic", "interpret", "interpret_pallas_call.py")

LEFTOVER = re.compile(
    r"Semaphore (?P<id>\d+) has non-zero count for (?P<dev>\S+) "
    r"\(global core (?P<core>\d+)\) at kernel exit: (?P<count>-?\d+)")
RACE = "RACE DETECTED"
# An exception raised inside an io_callback comes back as JaxRuntimeError whose text
# holds the inner traceback: `File "...", line N, in fn` lines, then `Type: message`.
INNER_EXC = re.compile(r"^(?P<type>[A-Za-z_][\w.]*(?:Error|Exception)):(?: (?P<msg>.*))?$")
INNER_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>\S+)')


def protocol_modules(folder: str = HERE) -> list[str]:
    return sorted(
        os.path.join(folder, n) for n in os.listdir(folder)
        if n.startswith("pal") and n.endswith(".py")
    )


def _jax_frame(filename: str) -> str:
    norm = filename.replace(os.sep, "/")
    i = norm.rfind("/jax/_src/")
    return norm[i + len("/jax/_src/"):] if i >= 0 else os.path.basename(norm)


def _split_job(job: str) -> tuple[str, str | None]:
    """``MODULE.py`` or ``MODULE.py@eager`` / ``MODULE.py@on_wait`` -> (real path, mode)."""
    path, _, mode = job.partition("@")
    if mode not in ("", "eager", "on_wait"):
        raise SystemExit(f"{job}: the DMA mode must be eager or on_wait")
    return os.path.realpath(path), mode or None


def _record(job: str) -> dict:
    path, mode = _split_job(job)
    return {"job": job, "path": path, "module": os.path.splitext(os.path.basename(path))[0],
            "dma_mode": mode,
            "status": "ok", "exc_type": None, "message": None, "raised_in": None,
            "wrapped": False, "line": None, "semaphores": [], "races": False,
            "source": None, "hang_in": None, "printed": "", "seconds": None}


def _describe(e: BaseException, path: str, rec: dict) -> None:
    text = str(e)
    tb = traceback.extract_tb(e.__traceback__)
    frames = [fr.lineno for fr in tb if os.path.realpath(fr.filename) == path]
    rec["line"] = frames[-1] if frames else None
    rec["exc_type"] = type(e).__name__
    rec["message"] = (text.splitlines() or [""])[0][:2000]
    rec["raised_in"] = f"{_jax_frame(tb[-1].filename)}:{tb[-1].name}" if tb else None
    if "CpuCallback error" in rec["message"] or "io_callback" in rec["message"]:
        # The interpreter raised inside a callback: report the inner exception.
        inner_type = inner_msg = inner_at = inner_src = None
        for ln in text.splitlines():
            if ln.startswith("-----"):
                break
            m = INNER_FRAME.match(ln)
            if m:
                inner_at = f"{_jax_frame(m['file'])}:{m['fn']}"
                inner_src = linecache.getline(m["file"], int(m["line"])).strip() or None
            m = INNER_EXC.match(ln)
            if m:
                inner_type, inner_msg = m["type"].rsplit(".", 1)[-1], m["msg"] or ""
        if inner_type:
            rec.update(exc_type=inner_type, message=inner_msg[:2000], raised_in=inner_at,
                       source=inner_src, wrapped=True)


def _idle_in_wait() -> str | None:
    """The interpreter function of a thread of this process idling in a semaphore wait:
    its innermost frame outside ``threading.py`` is ``Semaphore.wait`` in the
    interpreter's ``shared_memory.py`` (the loop that polls every 0.1 s); else None."""
    for frame in sys._current_frames().values():
        while frame is not None and frame.f_code.co_filename.endswith("threading.py"):
            frame = frame.f_back
        if (frame is None or not frame.f_code.co_filename.endswith(SEM_WAIT_FILE)
                or frame.f_code.co_name != "wait"):
            continue
        outer = frame.f_back
        while outer is not None and not outer.f_code.co_filename.endswith(INTERPRETER_FILE):
            outer = outer.f_back
        where = outer if outer is not None else frame
        return f"{_jax_frame(where.f_code.co_filename)}:{where.f_code.co_name}"
    return None


def _watchdog(stop: threading.Event, state: dict, after: float) -> None:
    """After ``after`` seconds, break a hang: once a thread has idled in a semaphore wait
    for two seconds (five looks, half a second apart), fail the interpreter's shared state
    the way the interpreter does for its own errors; the blocked wait then raises (it
    checks for failures on each poll) and the module ends with an error carrying
    ``HANG_MARK``."""
    if stop.wait(after):
        return
    seen = []
    while not stop.wait(0.5):
        seen = (seen + [_idle_in_wait()])[-5:]
        if len(seen) == 5 and seen[0] is not None and seen.count(seen[0]) == 5:
            state["hang_in"] = seen[0]
            with contextlib.suppress(Exception):  # if not, the driver's fallback acts
                from jax._src.pallas.mosaic.interpret import (
                    interpret_pallas_call as ipc,
                )

                ipc._get_shared_memory().set_failed(RuntimeError(HANG_MARK))
            return


def run_module(job: str, look_after: float = DEFAULT_TIMEOUT) -> dict:
    import jax
    from jax.experimental.pallas import tpu as pltpu

    rec = _record(job)
    path = rec["path"]
    name = "protocol_" + rec["module"]
    out = io.StringIO()
    t0 = time.perf_counter()
    stop, state = threading.Event(), {"hang_in": None}
    threading.Thread(target=_watchdog, args=(stop, state, look_after), daemon=True).start()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(out), \
                _forced_dma_mode(rec["dma_mode"]):
            warnings.simplefilter("ignore")
            spec = importlib.util.spec_from_file_location(name, path)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[name] = mod
            spec.loader.exec_module(mod)
            entry = getattr(mod, "jax_check", None)
            if entry is None:
                rec["status"] = "no_entry"
            else:
                jax.block_until_ready(entry())
    except Exception as e:  # noqa: BLE001 - whatever JAX raises is the verdict
        rec["status"] = "error"
        _describe(e, path, rec)
        if state["hang_in"] and HANG_MARK in str(e):
            rec.update(status="hang", hang_in=state["hang_in"], exc_type=None, raised_in=None,
                       source=None, wrapped=False, line=None,
                       message=f"blocked in {state['hang_in']} after "
                               f"{time.perf_counter() - t0:.0f} s (broken by the runner)")
        pltpu.reset_tpu_interpret_mode_state()  # required after an interpreter error
    finally:
        stop.set()
        sys.modules.pop(name, None)
    printed = out.getvalue()
    rec["semaphores"] = [{"id": int(m["id"]), "core": int(m["core"]), "count": int(m["count"])}
                         for m in LEFTOVER.finditer(printed)]
    rec["races"] = RACE in printed
    rec["printed"] = printed[:1500]
    if rec["status"] == "ok":
        if rec["semaphores"]:
            rec["status"] = "leftover"
        elif rec["races"]:
            rec["status"] = "race"
    rec["seconds"] = round(time.perf_counter() - t0, 3)
    return rec


@contextlib.contextmanager
def _forced_dma_mode(mode: str | None):
    """While active, every ``pltpu.InterpretParams(...)`` a module builds gets
    ``dma_execution_mode=mode`` (nothing changes for ``None``)."""
    if mode is None:
        yield
        return
    import dataclasses

    from jax.experimental.pallas import tpu as pltpu

    original = pltpu.InterpretParams

    def forced(*args, **kwargs):
        return dataclasses.replace(original(*args, **kwargs), dma_execution_mode=mode)

    pltpu.InterpretParams = forced
    try:
        yield
    finally:
        pltpu.InterpretParams = original


def worker(jobs: list[str], look_after: float = DEFAULT_TIMEOUT) -> int:
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ["JAX_TRACEBACK_FILTERING"] = "off"
    # Two CPU devices, for the ring (remote copy) kernels under jax.shard_map; a kernel
    # outside shard_map still runs on one device.
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in flags:
        os.environ["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={DEVICES}".strip()
    sys.dont_write_bytecode = True
    # The driver sends SIGUSR1 to see where a slow module is: every thread's stack on stderr.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    real_stdout = sys.stdout
    import jax  # noqa: F401 - once, before the first module's clock starts

    for job in jobs:
        real_stdout.write(json.dumps({"start": job}) + "\n")
        real_stdout.flush()
        real_stdout.write(json.dumps(run_module(job, look_after)) + "\n")
        real_stdout.flush()
    return 0


def _reader(stream, q: queue.Queue | None, sink: list | None = None) -> None:
    for line in stream:
        if q is not None:
            q.put(line)
        else:
            sink.append(line)
            del sink[:-400]
    if q is not None:
        q.put(None)


def _stuck_in_wait(dump: list[str]) -> str | None:
    """From a faulthandler dump (every thread, most recent call first): the interpreter
    function of a thread idling in a semaphore wait -- its innermost frame outside
    ``threading.py`` is ``Semaphore.wait`` in the interpreter's ``shared_memory.py`` --
    or None when no thread is."""
    threads: list[list[tuple[str, str]]] = []
    for ln in dump:
        if ln.startswith(("Thread 0x", "Current thread 0x")):
            threads.append([])
            continue
        m = DUMP_FRAME.match(ln)
        if m and threads:
            threads[-1].append((m["file"], m["fn"]))
    for frames in threads:
        own = [(f, fn) for f, fn in frames if not f.endswith("threading.py")]
        if own and own[0][0].endswith(SEM_WAIT_FILE) and own[0][1] == "wait":
            for f, fn in own[1:]:
                if f.endswith(INTERPRETER_FILE):
                    return f"{_jax_frame(f)}:{fn}"
            return f"{_jax_frame(own[0][0])}:wait"
    return None


def _dump(proc, err: list[str]) -> list[str]:
    mark = len(err)
    proc.send_signal(signal.SIGUSR1)
    time.sleep(0.5)
    return err[mark:]


def drive(jobs: list[str], look_after: float = DEFAULT_TIMEOUT, limit: float = HARD_LIMIT):
    """Yield one record per module, running them in worker processes (see above).

    The worker breaks hangs itself (``_watchdog``). Fallback: a module still running
    ``look_after + FALLBACK`` seconds after it started is a ``hang`` when two stack dumps
    a second apart show the interpreter idling in a semaphore wait (``hang_in`` names the
    interpreter function: ``dma_wait`` or ``semaphore_wait``); otherwise it is only slow
    and gets another ``timeout`` seconds, up to ``limit`` (then ``hang`` with
    ``hang_in`` null)."""
    timeout = look_after + FALLBACK  # the worker breaks hangs itself before this
    todo = list(jobs)
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    while todo:
        proc = subprocess.Popen([sys.executable, os.path.realpath(__file__), "--worker",
                                 "--timeout", str(look_after), *todo],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env)
        q: queue.Queue = queue.Queue()
        err: list[str] = []
        threading.Thread(target=_reader, args=(proc.stdout, q), daemon=True).start()
        threading.Thread(target=_reader, args=(proc.stderr, None, err), daemon=True).start()
        current, started, deadline = None, None, None
        while True:
            wait = None if current is None else max(0.0, deadline - time.monotonic())
            try:
                line = q.get(timeout=wait)
            except queue.Empty:  # the current module outlived its time: where is it?
                hang_in = _stuck_in_wait(_dump(proc, err))
                if hang_in is not None and q.empty():  # still there a second later?
                    time.sleep(0.5)
                    again = _stuck_in_wait(_dump(proc, err))
                    hang_in = hang_in if again == hang_in and q.empty() else None
                elapsed = time.monotonic() - started
                if hang_in is None and elapsed < limit:
                    deadline = time.monotonic() + timeout  # slow, not stuck: wait on
                    continue
                proc.kill()
                proc.wait()
                rec = _record(current)
                rec.update(status="hang", seconds=round(elapsed, 3), hang_in=hang_in,
                           message=(f"blocked in {hang_in} after {elapsed:.0f} s" if hang_in
                                    else f"no result after {elapsed:.0f} s"))
                yield rec
                todo = todo[todo.index(current) + 1:]
                break
            if line is None:  # the worker exited
                proc.wait()
                if current is not None:  # ... in the middle of a module
                    rec = _record(current)
                    rec.update(status="crash", message=f"worker exited {proc.returncode}: "
                               + "".join(err[-5:]).strip()[-500:])
                    yield rec
                    todo = todo[todo.index(current) + 1:]
                else:
                    todo = []
                break
            if not line.startswith("{"):
                continue
            msg = json.loads(line)
            if "start" in msg:
                current = msg["start"]
                started = time.monotonic()
                deadline = started + timeout
            else:
                yield msg
                current = None
                if msg["job"] == todo[-1]:
                    proc.wait()
                    todo = []
                    break


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    is_worker = argv[:1] == ["--worker"]
    argv = argv[1:] if is_worker else argv
    opts = {"--timeout": DEFAULT_TIMEOUT, "--dma-mode": None}
    for flag in opts:
        if flag in argv:
            i = argv.index(flag)
            opts[flag] = argv[i + 1]
            del argv[i:i + 2]
    jobs = argv or protocol_modules()
    if opts["--dma-mode"]:
        jobs = [j if "@" in j else f"{j}@{opts['--dma-mode']}" for j in jobs]
    for job in jobs:
        _split_job(job)  # fail early on a bad mode
    if is_worker:
        return worker(jobs, float(opts["--timeout"]))
    for rec in drive(jobs, float(opts["--timeout"])):
        sys.stdout.write(json.dumps(rec) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
