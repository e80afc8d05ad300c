"""Flash-attention scores for one (query block, key block) pair, f32, softmax over keys.

Correct: the key block is transposed.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

BQ, BK, D = 128, 256, 64


def scores_kernel(q_ref, k_ref, o_ref):
    q = q_ref[...]
    k = k_ref[...]
    s = q @ k.T
    m = jnp.max(s, axis=-1, keepdims=True)
    p = jnp.exp(s - m)
    o_ref[...] = p / jnp.sum(p, axis=-1, keepdims=True)


def scores(q, k):
    return pl.pallas_call(scores_kernel, out_shape=jax.ShapeDtypeStruct((BQ, BK), jnp.float32))(q, k)


def trace():
    q = jax.ShapeDtypeStruct((BQ, D), jnp.float32)
    k = jax.ShapeDtypeStruct((BK, D), jnp.float32)
    jax.export.export(jax.jit(scores), platforms=["tpu"])(q, k)
