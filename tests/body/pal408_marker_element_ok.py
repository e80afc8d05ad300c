"""Scale a bf16 tile and mark it: the first element of the output is set to a constant.

Correct: the mark is stored as a (1, 1) slice, a vector.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 16, 128


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5
    o_ref[0:1, 0:1] = jnp.full((1, 1), 1.5, o_ref.dtype)


def scale(x):
    return pl.pallas_call(scale_kernel, out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.bfloat16))(x)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.bfloat16)
    jax.export.export(jax.jit(scale), platforms=["tpu"])(x)
