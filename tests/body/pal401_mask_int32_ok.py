"""Mark the positive entries of an activation tile in an int32 mask.

Correct: an int8 mask stored into the int32 ref (`=` converts any integer into an
integer ref).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 16, 128


def mask_kernel(x_ref, o_ref):
    o_ref[...] = (x_ref[...] > 0).astype(jnp.int8)


def positive_mask(x):
    return pl.pallas_call(
        mask_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.int32),
        interpret=True,
    )(x)


def trace():
    return positive_mask(jnp.ones((ROWS, COLS), jnp.float32))
