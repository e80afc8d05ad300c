"""Multi-head attention scores: queries are laid out (heads, q, d), keys as they come out
of the projection, (k, heads, d).

Bug: the einsum reads the keys as head-major (`hkd`): label `h` is 2 in the queries but 8
(the key length) in the keys.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

H, Q, K, D = 2, 8, 8, 128


def scores_kernel(q_ref, k_ref, o_ref):
    q, k = q_ref[...], k_ref[...]
    o_ref[...] = jnp.einsum("hqd,hkd->hqk", q, k) * (D ** -0.5)  # expect: PAL405


def scores(q, k):
    return pl.pallas_call(scores_kernel, out_shape=jax.ShapeDtypeStruct((H, Q, K), jnp.float32))(q, k)


def trace():
    q = jax.ShapeDtypeStruct((H, Q, D), jnp.float32)
    k = jax.ShapeDtypeStruct((K, H, D), jnp.float32)
    jax.export.export(jax.jit(scores), platforms=["tpu"])(q, k)
