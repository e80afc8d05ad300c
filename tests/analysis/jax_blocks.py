"""Print, as JSON, the blocks JAX makes for every `pallas_call` a module's `test()` runs:
per block mapping its origin, block shape, element size, memory space and whether its
window is trivial (one buffer on a TPU); per scratch its shape, element size and space.

    python summary_blocks.py MODULE.py

Traces only (`jax.eval_shape`): nothing is lowered or run.  Used by test_call_summary.py.
"""

from __future__ import annotations

import json
import runpy
import sys

import jax
from jax._src.pallas import core as pallas_core

found: list[dict] = []
_get_grid_mapping = pallas_core.get_grid_mapping


def _recording(*args, **kwargs):
    result = _get_grid_mapping(*args, **kwargs)
    mapping = result[1]
    found.append({
        "blocks": [{"origin": str(bm.origin), "block": [int(d) for d in bm.block_aval.shape],
                    "itemsize": bm.array_aval.dtype.itemsize, "space": str(bm.block_aval.memory_space),
                    "trivial": bool(bm.has_trivial_window())} for bm in mapping.block_mappings],
        "scratch": [{"shape": [int(d) for d in a.shape], "itemsize": getattr(a.dtype, "itemsize", None),
                     "space": str(a.memory_space)} for a in mapping.scratch_avals],
    })
    return result


def main(path: str) -> None:
    pallas_core.get_grid_mapping = _recording
    module = runpy.run_path(path)
    jax.eval_shape(module["test"])
    print(json.dumps(found))


if __name__ == "__main__":
    main(sys.argv[1])
