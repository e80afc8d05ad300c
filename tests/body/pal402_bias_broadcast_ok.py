"""Add a (1, 128) bias row to every row of an output block in place: `+=` loads, adds
(broadcasting the bias over the rows) and stores a value of the block's shape."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 16, 128


def bias_kernel(x_ref, b_ref, o_ref):
    o_ref[...] = x_ref[...]
    o_ref[...] += b_ref[...]
    o_ref[:, :1] += 1.0


def add_bias(x, b):
    return pl.pallas_call(
        bias_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        interpret=True,
    )(x, b)


def trace():
    return add_bias(jnp.ones((ROWS, COLS), jnp.float32), jnp.ones((1, COLS), jnp.float32))
