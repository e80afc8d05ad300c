"""Trace kernel-body modules under JAX and print one JSON line per module.

    python tests/body/jax_verdicts.py [--tpu] MODULE.py [...]

Each module's ``trace()`` (or ``jax_check()``, or ``main()``) runs its kernels with
``interpret=True`` on a CPU.  With ``--tpu`` every ``pl.pallas_call`` the module applies is
also lowered for TPU (``jax.export`` without ``interpret``, on the operands' shapes and
dtypes) before it runs, as a TPU would compile it.  A line: ``path``, ``status`` (``ok`` /
``error``), and for an error ``exc_type``, ``message`` (its first line) and ``line``: the
last line of the traceback inside the module; with ``--tpu``, ``lowering``: every TPU
lowering failure, in order (``exc_type``, ``message``, ``line``).
This is the only file of the corpus that imports JAX."""

from __future__ import annotations

import importlib.util
import json
import sys
import traceback
from pathlib import Path

ENTRIES = ("trace", "jax_check", "main")


def _failure(e: BaseException, path: Path) -> dict:
    frames = [f for f in traceback.extract_tb(e.__traceback__) if Path(f.filename) == path]
    return {"exc_type": type(e).__name__, "message": str(e).strip().splitlines()[0] if str(e).strip() else "",
            "line": frames[-1].lineno if frames else None}


def _lowering_pallas_call(path: Path, failures: list[dict]):
    """`pl.pallas_call` that first lowers the call for TPU and records how that fails."""
    import jax
    from jax.experimental import pallas as pl

    real = pl.pallas_call

    def pallas_call(kernel, *args, interpret=False, **kwargs):
        run = real(kernel, *args, interpret=interpret, **kwargs)
        tpu = real(kernel, *args, **kwargs)

        def call(*operands):
            specs = [jax.ShapeDtypeStruct(o.shape, o.dtype) for o in operands]
            try:
                jax.export.export(jax.jit(tpu), platforms=["tpu"])(*specs)
            except Exception as e:  # noqa: BLE001 - a TPU would not compile it: recorded
                failures.append(_failure(e, path))
            return run(*operands)
        return call
    return pallas_call


def verdict(path: Path, tpu: bool) -> dict:
    spec = importlib.util.spec_from_file_location(f"body_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    lowering: list[dict] = []
    rec: dict = {"path": str(path), "status": "ok"}
    if tpu:
        from jax.experimental import pallas as pl
        real, pl.pallas_call = pl.pallas_call, _lowering_pallas_call(path, lowering)
    try:
        spec.loader.exec_module(module)
        entry = next((getattr(module, n) for n in ENTRIES if hasattr(module, n)), None)
        if entry is None:
            rec["status"] = "no_entry"
        else:
            entry()
    except Exception as e:  # noqa: BLE001 - every failure is a verdict
        rec.update(status="error", **_failure(e, path))
    finally:
        if tpu:
            pl.pallas_call = real
            rec["lowering"] = lowering
    return rec


def main(argv: list[str]) -> None:
    import jax
    jax.config.update("jax_traceback_filtering", "off")
    tpu = "--tpu" in argv
    for arg in (a for a in argv if a != "--tpu"):
        print(json.dumps(verdict(Path(arg).resolve(), tpu)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
