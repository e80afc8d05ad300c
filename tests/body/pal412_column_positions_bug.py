"""Zero the columns of a tile at or past a cutoff.

Bug: the column positions are a JAX array made at module level (`jnp.arange`); the
kernel captures it as a constant.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, CUTOFF = 8, 256, 200
POSITIONS = jnp.arange(COLS)


def cutoff_kernel(x_ref, o_ref):
    keep = POSITIONS[None, :] < CUTOFF
    o_ref[...] = jnp.where(keep, x_ref[...], 0.0)


def cutoff(x):
    return pl.pallas_call(cutoff_kernel, out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32))(x)  # expect: PAL412


def trace():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(cutoff), platforms=["tpu"])(x)
