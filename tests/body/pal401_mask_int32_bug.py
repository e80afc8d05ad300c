"""Mark the positive entries of an activation tile in an int32 mask.

Bug: the comparison is a bool array; `=` converts integers into an integer ref, but not
bools.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 16, 128


def mask_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] > 0  # expect: PAL401


def positive_mask(x):
    return pl.pallas_call(
        mask_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.int32),
        interpret=True,
    )(x)


def trace():
    return positive_mask(jnp.ones((ROWS, COLS), jnp.float32))
