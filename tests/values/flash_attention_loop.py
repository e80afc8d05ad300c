"""Single-block-of-queries attention with the kv loop inside the kernel: a
`lax.fori_loop` over kv chunks read with `pl.ds` carries `(m, l, acc)`, masking with
`jnp.finfo(jnp.float32).min` past the sequence's length (a scalar-prefetched array)."""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def attention_kernel(lengths_ref, q_ref, k_ref, v_ref, o_ref, *, block_k, scale):
    b = pl.program_id(0)
    length = lengths_ref[b]
    q = q_ref[...].astype(jnp.float32) * scale
    block_q, head_dim = q.shape
    num_kv_blocks = k_ref.shape[0] // block_k
    mask_value = jnp.finfo(jnp.float32).min

    def kv_step(j, carry):
        m_prev, l_prev, acc_prev = carry
        start = pl.multiple_of(j * block_k, block_k)
        k = k_ref[pl.ds(start, block_k), :]
        v = v_ref[pl.ds(start, block_k), :]
        s = q @ k.astype(jnp.float32).T
        col = start + lax.broadcasted_iota(jnp.int32, (block_q, block_k), 1)
        s = jnp.where(col < length, s, mask_value)
        m_new = jnp.maximum(m_prev, s.max(axis=-1, keepdims=True))
        p = jnp.exp(s - m_new)
        alpha = jnp.exp(m_prev - m_new)
        l_new = alpha * l_prev + p.sum(axis=-1, keepdims=True)
        acc_new = alpha * acc_prev + jnp.dot(p, v.astype(jnp.float32))
        return m_new, l_new, acc_new

    m0 = jnp.full((block_q, 1), -jnp.inf, jnp.float32)
    l0 = jnp.zeros((block_q, 1), jnp.float32)
    acc0 = jnp.zeros((block_q, head_dim), jnp.float32)
    m, l, acc = lax.fori_loop(0, num_kv_blocks, kv_step, (m0, l0, acc0))
    out = acc / l
    o_ref[...] = out.astype(o_ref.dtype)


def attention(lengths, q, k, v, *, block_k=64):
    batch, seq_q, head_dim = q.shape
    seq_k = k.shape[1]
    kernel = functools.partial(attention_kernel, block_k=block_k, scale=head_dim ** -0.5)
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(batch,),
            in_specs=[pl.BlockSpec((None, seq_q, head_dim), lambda i, lens: (i, 0, 0)),
                      pl.BlockSpec((None, seq_k, head_dim), lambda i, lens: (i, 0, 0)),
                      pl.BlockSpec((None, seq_k, head_dim), lambda i, lens: (i, 0, 0))],
            out_specs=pl.BlockSpec((None, seq_q, head_dim), lambda i, lens: (i, 0, 0)),
        ),
        interpret=True,
    )(lengths, q, k, v)


def trace():
    q = jnp.ones((2, 8, 128), jnp.bfloat16)
    kv = jnp.ones((2, 256, 128), jnp.bfloat16)
    attention(jnp.array([100, 256], jnp.int32), q, kv, kv)
