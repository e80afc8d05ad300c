"""Decode-time paged attention in the style of `pallas/ops/tpu/paged_attention`: block
tables and sequence lengths are scalar-prefetched, the pages of one sequence are fetched
from HBM into VMEM by DMA, one query token per head attends over them with a length mask
and `-jnp.inf`, and the page loop is an unrolled Python loop."""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def paged_attention_kernel(lengths_ref, page_indices_ref, q_ref, k_pages_hbm, v_pages_hbm,
                           o_ref, k_vmem, v_vmem, sems, *, pages_per_seq, page_size):
    b = pl.program_id(0)
    length = lengths_ref[b]
    copies = []
    for p in range(pages_per_seq):
        page = page_indices_ref[b * pages_per_seq + p]
        dst = pl.ds(p * page_size, page_size)
        k_copy = pltpu.make_async_copy(k_pages_hbm.at[:, page], k_vmem.at[:, dst], sems.at[0, p])
        v_copy = pltpu.make_async_copy(v_pages_hbm.at[:, page], v_vmem.at[:, dst], sems.at[1, p])
        k_copy.start()
        v_copy.start()
        copies += [k_copy, v_copy]
    for c in copies:
        c.wait()

    q = q_ref[...]
    k = k_vmem[...]
    v = v_vmem[...]
    num_heads, head_dim = q.shape
    s = jnp.einsum("hd,htd->ht", q.astype(jnp.float32), k.astype(jnp.float32))
    s = s * (head_dim ** -0.5)
    pos = lax.broadcasted_iota(jnp.int32, s.shape, 1)
    s = jnp.where(pos < length, s, -jnp.inf)
    m = s.max(axis=-1, keepdims=True)
    p = jnp.exp(s - m)
    l = p.sum(axis=-1, keepdims=True)
    o = jnp.einsum("ht,htd->hd", p, v.astype(jnp.float32)) / l
    o_ref[...] = o.astype(o_ref.dtype)


def paged_attention(q, k_pages, v_pages, lengths, page_indices):
    batch, num_heads, head_dim = q.shape
    _, _, page_size, _ = k_pages.shape
    pages_per_seq = page_indices.shape[0] // batch
    kv_len = pages_per_seq * page_size
    kernel = functools.partial(paged_attention_kernel, pages_per_seq=pages_per_seq,
                               page_size=page_size)
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=2,
            grid=(batch,),
            in_specs=[pl.BlockSpec((None, num_heads, head_dim), lambda b, lens, pages: (b, 0, 0)),
                      pl.BlockSpec(memory_space=pl.ANY),
                      pl.BlockSpec(memory_space=pl.ANY)],
            out_specs=pl.BlockSpec((None, num_heads, head_dim), lambda b, lens, pages: (b, 0, 0)),
            scratch_shapes=[pltpu.VMEM((num_heads, kv_len, head_dim), k_pages.dtype),
                            pltpu.VMEM((num_heads, kv_len, head_dim), v_pages.dtype),
                            pltpu.SemaphoreType.DMA((2, pages_per_seq))],
        ),
        interpret=True,
    )(lengths, page_indices, q, k_pages, v_pages)


def trace():
    heads, pages, page_size, dim = 2, 6, 16, 128
    q = jnp.ones((2, heads, dim), jnp.bfloat16)
    k_pages = jnp.ones((heads, pages, page_size, dim), jnp.bfloat16)
    lengths = jnp.array([20, 40], jnp.int32)
    page_indices = jnp.array([0, 3, 5, 1, 2, 4], jnp.int32)
    paged_attention(q, k_pages, k_pages, lengths, page_indices)
