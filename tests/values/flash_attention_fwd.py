"""Flash attention forward in the style of `pallas/ops/tpu/flash_attention.py`: the kv
blocks are the innermost grid axis, the running max / sum / accumulator live in VMEM
scratch, a causal mask from `lax.broadcasted_iota`, the blocks squeeze batch and head."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

DEFAULT_MASK_VALUE = -0.7 * float(np.finfo(np.float32).max)
TRANS_B_DIM_NUMBERS = (((1,), (1,)), ((), ()))


def flash_fwd_kernel(q_ref, k_ref, v_ref, o_ref, m_scratch, l_scratch, acc_scratch,
                     *, sm_scale, block_q, block_k, causal):
    q_idx = pl.program_id(2)
    kv_idx = pl.program_id(3)

    @pl.when(kv_idx == 0)
    def start_new_sequence():
        m_scratch[...] = jnp.full(m_scratch.shape, -jnp.inf, jnp.float32)
        l_scratch[...] = jnp.zeros(l_scratch.shape, jnp.float32)
        acc_scratch[...] = jnp.zeros(acc_scratch.shape, jnp.float32)

    def body():
        q = q_ref[...]
        k = k_ref[...]
        s = lax.dot_general(q, k, TRANS_B_DIM_NUMBERS,
                            preferred_element_type=jnp.float32) * sm_scale
        if causal:
            row_ids = q_idx * block_q + lax.broadcasted_iota(jnp.int32, s.shape, 0)
            col_ids = kv_idx * block_k + lax.broadcasted_iota(jnp.int32, s.shape, 1)
            mask = col_ids <= row_ids
            s = jnp.where(mask, s, DEFAULT_MASK_VALUE)

        m_prev = m_scratch[...]
        l_prev = l_scratch[...]
        m_curr = jnp.max(s, axis=-1, keepdims=True)
        m_next = jnp.maximum(m_prev, m_curr)
        p = jnp.exp(s - m_next)
        alpha = jnp.exp(m_prev - m_next)
        l_curr = jnp.sum(p, axis=-1, keepdims=True)
        l_next = alpha * l_prev + l_curr
        v = v_ref[...]
        pv = jnp.dot(p.astype(v.dtype), v, preferred_element_type=jnp.float32)
        acc_scratch[...] = alpha * acc_scratch[...] + pv
        m_scratch[...] = m_next
        l_scratch[...] = l_next

    if causal:
        should_run = kv_idx * block_k <= q_idx * block_q + block_q - 1
        pl.when(should_run)(body)
    else:
        body()

    @pl.when(kv_idx == pl.num_programs(3) - 1)
    def store_output():
        l_inv = pl.reciprocal(l_scratch[...], approx=False)
        o_ref[...] = (acc_scratch[...] * l_inv).astype(o_ref.dtype)


def flash_attention(q, k, v, *, causal=True, block_q=16, block_k=128):
    batch, heads, seq_q, head_dim = q.shape
    seq_k = k.shape[2]
    kernel = functools.partial(flash_fwd_kernel, sm_scale=head_dim ** -0.5,
                               block_q=block_q, block_k=block_k, causal=causal)
    q_spec = pl.BlockSpec((None, None, block_q, head_dim), lambda b, h, i, j: (b, h, i, 0))
    kv_spec = pl.BlockSpec((None, None, block_k, head_dim), lambda b, h, i, j: (b, h, j, 0))
    return pl.pallas_call(
        kernel,
        grid=(batch, heads, seq_q // block_q, seq_k // block_k),
        in_specs=[q_spec, kv_spec, kv_spec],
        out_specs=q_spec,
        out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype),
        scratch_shapes=[pltpu.VMEM((block_q, 1), jnp.float32),
                        pltpu.VMEM((block_q, 1), jnp.float32),
                        pltpu.VMEM((block_q, head_dim), jnp.float32)],
        interpret=True,
    )(q, k, v)


def trace():
    q = jnp.ones((1, 1, 32, 128), jnp.bfloat16)
    kv = jnp.ones((1, 1, 256, 128), jnp.bfloat16)
    flash_attention(q, kv, kv)
