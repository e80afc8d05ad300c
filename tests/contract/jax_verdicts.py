"""Ask JAX for its verdict on each contract module, one JSON object a line.

This is the only place the contract corpus imports JAX; the test
(``tests/oracle/test_contract_oracle.py``) runs it in a subprocess:

    python tests/contract/jax_verdicts.py [--trace-only] [MODULE.py ...]   # default: every pal*.py here

``--trace-only`` replaces ``jax.export.export`` by a shim that only traces
(``jax.jit(f).trace(*args)``), so a check that still raises is a trace-time check and one
that no longer raises is a lowering-time check.

For each module file it imports the module, calls its ``jax_check()`` and prints

    {"path": ..., "module": "pal101_..._bug",
     "status": "ok" | "error" | "no_entry",
     "exc_type": "TypeError" | "ValueError" | ...,   # null when ok
     "message": first line of the exception,         # null when ok
     "line": last traceback line inside the module,  # null when ok
     "frames": [line, ...],                           # every traceback line inside the module, those
                                                      # of the JAX operation a lowering error names first
     "stage": "trace" | "lowering",                   # lowering: raised under MLIR lowering
     "raised_in": "pallas/core.py:get_grid_mapping",  # innermost JAX frame
     "seconds": ...}
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import sys
import time
import traceback
import warnings

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ["JAX_TRACEBACK_FILTERING"] = "off"  # keep JAX's own frames: they tell the stage
sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.realpath(__file__))

# A traceback that passes through one of these files was raised while lowering
# (jax.export -> MLIR -> Pallas's Mosaic lowering), not while tracing.
LOWERING_FILES = (
    os.path.join("interpreters", "mlir.py"),
    os.path.join("pallas", "mosaic", "lowering.py"),
    os.path.join("pallas", "mosaic", "pallas_call_registration.py"),
)


def contract_modules(folder: str = HERE) -> list[str]:
    return sorted(
        os.path.join(folder, n) for n in os.listdir(folder)
        if n.startswith("pal") and n.endswith(".py")
    )


def _jax_frame(filename: str) -> str:
    norm = filename.replace(os.sep, "/")
    i = norm.rfind("/jax/_src/")
    return norm[i + len("/jax/_src/"):] if i >= 0 else os.path.basename(norm)


def run_module(path: str, entry_name: str = "jax_check") -> dict:
    path = os.path.realpath(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    rec = {"path": path, "module": stem, "status": "ok", "exc_type": None, "message": None,
           "line": None, "frames": [], "stage": None, "raised_in": None, "seconds": None}
    t0 = time.perf_counter()
    name = "contract_" + stem
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            spec = importlib.util.spec_from_file_location(name, path)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[name] = mod
            spec.loader.exec_module(mod)
            entry = getattr(mod, entry_name, None)
            if entry is None:
                rec["status"] = "no_entry"
            else:
                entry()
    except Exception as e:  # noqa: BLE001 - whatever JAX raises is the verdict
        tb = traceback.extract_tb(e.__traceback__)
        rec["status"] = "error"
        rec["exc_type"] = type(e).__name__
        rec["message"] = (str(e).splitlines() or [""])[0][:2000]
        rec["frames"] = [fr.lineno for fr in _source_frames(e) + tb if os.path.realpath(fr.filename) == path]
        rec["line"] = rec["frames"][-1] if rec["frames"] else None
        lowering = any(fr.filename.endswith(LOWERING_FILES) for fr in tb)
        rec["stage"] = "lowering" if lowering else "trace"
        if tb:
            rec["raised_in"] = f"{_jax_frame(tb[-1].filename)}:{tb[-1].name}"
    finally:
        sys.modules.pop(name, None)
    rec["seconds"] = round(time.perf_counter() - t0, 3)
    return rec


def _source_frames(e: BaseException) -> list:
    """Where the JAX operation a lowering error is about was traced: JAX chains it as the
    error's cause (`JaxStackTraceBeforeTransformation`)."""
    cause = e.__cause__
    if type(cause).__name__ != "JaxStackTraceBeforeTransformation":
        return []
    return list(traceback.extract_tb(cause.__traceback__))


def _trace_only_export(fn, platforms=None, **_):
    """Stands in for ``jax.export.export``: trace the jitted function, lower nothing."""
    return lambda *args, **kwargs: fn.trace(*args, **kwargs)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    trace_only = "--trace-only" in argv
    paths = [a for a in argv if a != "--trace-only"] or contract_modules()
    import jax  # imported once, before the first module

    if trace_only:
        jax.export.export = _trace_only_export

    for path in paths:
        sys.stdout.write(json.dumps(run_module(path)) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
