"""Multi-head attention scores of a bf16 row block split into heads, with `jnp.einsum`.

Correct: the batched bf16 einsum accumulates in f32 (`preferred_element_type`).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, HEADS, HEAD_DIM = 16, 2, 128


def heads_kernel(x_ref, o_ref):
    x = x_ref[...].reshape(ROWS, HEADS, HEAD_DIM).swapaxes(0, 1)
    s = jnp.einsum("hqd,hkd->hqk", x, x, preferred_element_type=jnp.float32)
    o_ref[...] = s


def heads(x):
    return pl.pallas_call(heads_kernel, out_shape=jax.ShapeDtypeStruct((HEADS, ROWS, ROWS), jnp.float32))(x)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, HEADS * HEAD_DIM), jnp.bfloat16)
    jax.export.export(jax.jit(heads), platforms=["tpu"])(x)
