"""Row sums of a wide block, chunk by chunk: a `fori_loop` adds each column chunk's row sums
to a carried (rows, 1) total.

Correct: the total starts as (rows, 1), the shape the body returns.
"""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

ROWS, COLS, CHUNK = 16, 512, 128


def row_sum_kernel(x_ref, o_ref):
    def step(c, total):
        x = x_ref[:, pl.ds(pl.multiple_of(c * CHUNK, CHUNK), CHUNK)]
        return total + jnp.sum(x, axis=-1, keepdims=True)

    total = lax.fori_loop(0, COLS // CHUNK, step, jnp.zeros((ROWS, 1), jnp.float32))
    o_ref[...] = total


def row_sum(x):
    return pl.pallas_call(row_sum_kernel, out_shape=jax.ShapeDtypeStruct((ROWS, 1), jnp.float32))(x)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(row_sum), platforms=["tpu"])(x)
