"""The maximum of each row of a tile, written into a (rows, 1) output, row by row.

Bug: each row's maximum is a scalar stored into one element of the VMEM output block.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 8, 256


def row_max_kernel(x_ref, o_ref):
    for r in range(ROWS):
        o_ref[r, 0] = jnp.max(x_ref[r, :])  # expect: PAL408


def row_max(x):
    return pl.pallas_call(row_max_kernel, out_shape=jax.ShapeDtypeStruct((ROWS, 1), jnp.float32))(x)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(row_max), platforms=["tpu"])(x)
