"""Flash-attention-style forward block writing the output and the running (m, l) stats.

Bug: `out_shape` is `(o, (m, l))`; Pallas unpacks only the outer tuple, so the kernel
gets two output parameters (`o_ref` and a pair), not three.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

SEQ, HEAD, BQ = 64, 128, 8


def attn_block_kernel(q_ref, o_ref, m_ref, l_ref):  # expect: PAL101
    q = q_ref[...]
    m = jnp.max(q, axis=-1, keepdims=True)
    p = jnp.exp(q - m)
    l = jnp.sum(p, axis=-1, keepdims=True)
    o_ref[...] = p / l
    m_ref[...] = jnp.broadcast_to(m, m_ref.shape)
    l_ref[...] = jnp.broadcast_to(l, l_ref.shape)


def attn_block(q):
    o = jax.ShapeDtypeStruct((SEQ, HEAD), jnp.float32)
    stat = jax.ShapeDtypeStruct((SEQ, 128), jnp.float32)
    spec = pl.BlockSpec((BQ, HEAD), lambda i: (i, 0))
    stat_spec = pl.BlockSpec((BQ, 128), lambda i: (i, 0))
    return pl.pallas_call(
        attn_block_kernel,
        out_shape=(o, (stat, stat)),
        grid=(SEQ // BQ,),
        in_specs=[spec],
        out_specs=(spec, (stat_spec, stat_spec)),
    )(q)


def jax_check():
    q = jax.ShapeDtypeStruct((SEQ, HEAD), jnp.float32)
    jax.export.export(jax.jit(attn_block), platforms=["tpu"])(q)
