"""Paged KV gather: sequence lengths and a page table are both scalar-prefetched.

Bug: with `num_scalar_prefetch=2` every index map receives the grid index and BOTH
prefetched refs; the page index map takes only the page table.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NPAGES, PAGE, D = 4, 8, 128
POOL = 16


def page_index(i, page_table):  # expect: PAL102
    return (page_table[i], 0, 0)


def gather_kernel(lengths_ref, page_table_ref, kv_ref, o_ref):
    valid = lengths_ref[0] > pl.program_id(0) * PAGE
    o_ref[...] = jnp.where(valid, kv_ref[...], 0.0)


def gather_pages(lengths, page_table, kv_pool):
    return pl.pallas_call(
        gather_kernel,
        out_shape=jax.ShapeDtypeStruct((NPAGES, PAGE, D), jnp.float32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=2,
            grid=(NPAGES,),
            in_specs=[pl.BlockSpec((None, PAGE, D), page_index)],
            out_specs=pl.BlockSpec((None, PAGE, D), lambda i, lengths, pt: (i, 0, 0)),
        ),
    )(lengths, page_table, kv_pool)


def jax_check():
    lengths = jax.ShapeDtypeStruct((1,), jnp.int32)
    page_table = jax.ShapeDtypeStruct((NPAGES,), jnp.int32)
    kv_pool = jax.ShapeDtypeStruct((POOL, PAGE, D), jnp.float32)
    jax.export.export(jax.jit(gather_pages), platforms=["tpu"])(lengths, page_table, kv_pool)
