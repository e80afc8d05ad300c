"""Scaled attention scores of bf16 query and key blocks, a row softmax, bf16 output.

Bug: `q @ k.T` of bf16 blocks is a bf16 matmul: Mosaic requires a 32-bit accumulator.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

BQ, BK, D = 128, 128, 64
SCALE = D ** -0.5


def attention_kernel(q_ref, k_ref, v_ref, o_ref):
    q = q_ref[...]
    k = k_ref[...]
    s = q @ k.T * SCALE  # expect: PAL404
    p = jnp.exp(s - jnp.max(s, axis=-1, keepdims=True))
    p = p / jnp.sum(p, axis=-1, keepdims=True)
    o_ref[...] = jnp.dot(p.astype(v_ref.dtype), v_ref[...], preferred_element_type=jnp.float32).astype(o_ref.dtype)


def attention(q, k, v):
    return pl.pallas_call(attention_kernel, out_shape=jax.ShapeDtypeStruct((BQ, D), jnp.bfloat16))(q, k, v)


def trace():
    q = jax.ShapeDtypeStruct((BQ, D), jnp.bfloat16)
    kv = jax.ShapeDtypeStruct((BK, D), jnp.bfloat16)
    jax.export.export(jax.jit(attention), platforms=["tpu"])(q, kv, kv)
