"""Trace kernel-body modules under JAX and print one JSON line per module.

    python tests/body/jax_verdicts.py MODULE.py [...]

Each module's ``trace()`` (or ``jax_check()``, or ``main()``) runs its kernels with
``interpret=True`` on a CPU.  A line:
``path``, ``status`` (``ok`` / ``error``), and for an error ``exc_type``, ``message``
(its first line) and ``line``: the last line of the traceback inside the module.
This is the only file of the corpus that imports JAX."""

from __future__ import annotations

import importlib.util
import json
import sys
import traceback
from pathlib import Path


ENTRIES = ("trace", "jax_check", "main")


def verdict(path: Path) -> dict:
    spec = importlib.util.spec_from_file_location(f"body_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        entry = next((getattr(module, n) for n in ENTRIES if hasattr(module, n)), None)
        if entry is None:
            return {"path": str(path), "status": "no_entry"}
        entry()
    except Exception as e:  # noqa: BLE001 - every failure is a verdict
        frames = [f for f in traceback.extract_tb(e.__traceback__) if Path(f.filename) == path.resolve()]
        return {"path": str(path), "status": "error", "exc_type": type(e).__name__,
                "message": str(e).strip().splitlines()[0] if str(e).strip() else "",
                "line": frames[-1].lineno if frames else None}
    return {"path": str(path), "status": "ok"}


def main(argv: list[str]) -> None:
    import jax
    jax.config.update("jax_traceback_filtering", "off")
    for arg in argv:
        print(json.dumps(verdict(Path(arg).resolve())), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
