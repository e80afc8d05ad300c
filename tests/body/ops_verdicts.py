"""Ask JAX for its verdict on each kernel-body operations module (all but the stores,
PAL401 / PAL402), one JSON object a line (the records of ``tests/contract/jax_verdicts.py``). Each module's
``trace()`` exports its kernel for TPU (``jax.export``: trace, then the TPU lowering).

    python tests/body/ops_verdicts.py [MODULE.py ...]   # default: every pal4NN_*.py here but PAL401 / PAL402
"""

from __future__ import annotations

import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "contract"))

from jax_verdicts import run_module  # noqa: E402


def ops_modules() -> list[str]:
    return sorted(p for p in glob.glob(os.path.join(HERE, "pal4[0-9][0-9]_*.py"))
                  if not os.path.basename(p).startswith(("pal401", "pal402")))


def main(argv: list[str]) -> int:
    import jax  # noqa: F401 - imported once, before the first module

    for path in argv or ops_modules():
        sys.stdout.write(json.dumps(run_module(path, "trace")) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
