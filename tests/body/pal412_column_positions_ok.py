"""Zero the columns of a tile at or past a cutoff.

Correct: the column positions are made in the kernel (an int32 iota).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, CUTOFF = 8, 256, 200


def cutoff_kernel(x_ref, o_ref):
    keep = jax.lax.broadcasted_iota(jnp.int32, (ROWS, COLS), 1) < CUTOFF
    o_ref[...] = jnp.where(keep, x_ref[...], 0.0)


def cutoff(x):
    return pl.pallas_call(cutoff_kernel, out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32))(x)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(cutoff), platforms=["tpu"])(x)
