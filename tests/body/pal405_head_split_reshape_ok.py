"""Split a (tokens, heads * head_dim) block into heads and sum each head's features.

Correct: the reshape keeps the size (HEADS heads of HEAD_DIM).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

T, HEADS, HEAD_DIM = 16, 4, 64


def head_sum_kernel(x_ref, o_ref):
    x = x_ref[...]
    heads = x.reshape(T, HEADS, HEAD_DIM)
    o_ref[...] = jnp.sum(heads, axis=-1)


def head_sum(x):
    return pl.pallas_call(head_sum_kernel, out_shape=jax.ShapeDtypeStruct((T, HEADS), jnp.float32))(x)


def trace():
    x = jax.ShapeDtypeStruct((T, HEADS * HEAD_DIM), jnp.float32)
    jax.export.export(jax.jit(head_sum), platforms=["tpu"])(x)
