"""Attention scores of bf16 query and key blocks, softmax in f32.

Bug: `q @ k.T` of bf16 blocks is a bf16 matmul (no 32-bit accumulator).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

BQ, BK, D = 128, 128, 64


def scores_kernel(q_ref, k_ref, o_ref):
    q = q_ref[...]
    k = k_ref[...]
    s = (q @ k.T).astype(jnp.float32)  # expect: PAL404
    p = jnp.exp(s - jnp.max(s, axis=-1, keepdims=True))
    o_ref[...] = p / jnp.sum(p, axis=-1, keepdims=True)


def scores(q, k):
    return pl.pallas_call(scores_kernel, out_shape=jax.ShapeDtypeStruct((BQ, BK), jnp.float32))(q, k)


def trace():
    q = jax.ShapeDtypeStruct((BQ, D), jnp.bfloat16)
    k = jax.ShapeDtypeStruct((BK, D), jnp.bfloat16)
    jax.export.export(jax.jit(scores), platforms=["tpu"])(q, k)
