"""Keep the values of a tile inside a band (lo, hi) and zero the rest.

Bug: the two comparisons are combined with Python's `and`, which asks the truth of a
whole (rows, cols) array.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, LO, HI = 16, 128, -1.0, 1.0


def band_kernel(x_ref, o_ref):
    x = x_ref[...]
    inside = (x > LO) and (x < HI)  # expect: PAL411
    o_ref[...] = jnp.where(inside, x, 0.0)


def band(x):
    return pl.pallas_call(band_kernel, out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32))(x)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(band), platforms=["tpu"])(x)
