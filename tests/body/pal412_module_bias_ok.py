"""Add a fixed bias row to every row of a tile.

Correct: the bias is an operand of the call; the kernel reads it from its ref.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 16, 128
BIAS = jnp.full((1, COLS), 0.5, jnp.float32)


def bias_kernel(x_ref, b_ref, o_ref):
    o_ref[...] = x_ref[...] + b_ref[...]


def add_bias(x):
    return pl.pallas_call(bias_kernel, out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32))(x, BIAS)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(add_bias), platforms=["tpu"])(x)
