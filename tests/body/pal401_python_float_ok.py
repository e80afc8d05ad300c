"""Scale a bf16 tile and write a constant into its first element: a Python float stored
into a bf16 ref is converted (it is weakly typed)."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 16, 128


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5
    o_ref[0, 0] = 1.5


def scale(x):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.bfloat16),
        interpret=True,
    )(x)


def trace():
    return scale(jnp.ones((ROWS, COLS), jnp.bfloat16))
