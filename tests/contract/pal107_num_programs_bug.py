"""Normalise row blocks by their position in a 1-D grid, using the grid size.

Bug: `pl.num_programs(1)` asks for the size of a second grid axis that does not exist;
JAX checks `pl.num_programs(axis)` against the grid exactly as it checks
`pl.program_id(axis)`.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, BM = 64, 128, 8


def position_kernel(x_ref, o_ref):
    step = pl.program_id(0)
    total = pl.num_programs(1)  # expect: PAL107
    o_ref[...] = x_ref[...] * (step + 1) / total


def position_scale(x):
    spec = pl.BlockSpec((BM, COLS), lambda i: (i, 0))
    return pl.pallas_call(
        position_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(ROWS // BM,),
        in_specs=[spec],
        out_specs=spec,
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(position_scale), platforms=["tpu"])(x)
