"""Grouped matmul in the style of megablox `gmm`: rows sorted by group, the group of each
m tile and the group offsets scalar-prefetched, the rhs block picked by group through a
squeezed leading dim, f32 accumulation over k tiles, and rows outside the tile's group
kept from the previous value with a `lax.broadcasted_iota` row mask and `lax.select`."""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def gmm_kernel(group_offsets_ref, group_ids_ref, lhs_ref, rhs_ref, out_ref, acc_scratch,
               *, tm, tn):
    m_i = pl.program_id(0)
    k_i = pl.program_id(2)

    @pl.when(k_i == 0)
    def _zero_acc():
        acc_scratch[...] = jnp.zeros_like(acc_scratch)

    lhs = lhs_ref[...]
    rhs = rhs_ref[...]
    acc_scratch[...] += jnp.dot(lhs, rhs, preferred_element_type=jnp.float32)

    @pl.when(k_i == pl.num_programs(2) - 1)
    def _store_accum():
        group_id = group_ids_ref[m_i]
        group_start = group_offsets_ref[group_id]
        group_end = group_offsets_ref[group_id + 1]
        row = lax.broadcasted_iota(jnp.int32, (tm, tn), 0) + m_i * tm
        mask = jnp.logical_and(row >= group_start, row < group_end)
        acc = acc_scratch[...]
        to_store = acc.astype(out_ref.dtype)
        out_ref[...] = lax.select(mask, to_store, jnp.zeros_like(to_store))


def gmm(lhs, rhs, group_offsets, group_ids, *, tm=16, tk=128, tn=128):
    m, k = lhs.shape
    n = rhs.shape[2]
    kernel = functools.partial(gmm_kernel, tm=tm, tn=tn)
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), lhs.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=2,
            grid=(m // tm, n // tn, k // tk),
            in_specs=[pl.BlockSpec((tm, tk), lambda i, j, kk, offs, gids: (i, kk)),
                      pl.BlockSpec((None, tk, tn),
                                   lambda i, j, kk, offs, gids: (gids[i], kk, j))],
            out_specs=pl.BlockSpec((tm, tn), lambda i, j, kk, offs, gids: (i, j)),
            scratch_shapes=[pltpu.VMEM((tm, tn), jnp.float32)],
        ),
        interpret=True,
    )(group_offsets, group_ids, lhs, rhs)


def trace():
    lhs = jnp.ones((64, 256), jnp.bfloat16)
    rhs = jnp.ones((3, 256, 128), jnp.bfloat16)
    group_offsets = jnp.array([0, 16, 48, 64], jnp.int32)
    group_ids = jnp.array([0, 1, 1, 2], jnp.int32)
    gmm(lhs, rhs, group_offsets, group_ids)
