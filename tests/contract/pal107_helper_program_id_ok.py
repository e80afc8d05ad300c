"""Paged copy: a (page, row-block) grid whose kernel finds its position through helpers.

The helpers read axes 0 and 1 of the two-axis grid.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NPAGES, PAGE_ROWS, BM, COLS = 2, 16, 8, 128


def page_index():
    return pl.program_id(0)


def row_block_index():
    return pl.program_id(1)


def page_copy_kernel(page_table_ref, x_ref, o_ref):
    page = page_table_ref[page_index()]
    tag = page * (PAGE_ROWS // BM) + row_block_index()
    o_ref[...] = x_ref[...] + tag.astype(jnp.float32)


def page_copy(page_table, x):
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(NPAGES, PAGE_ROWS // BM),
        in_specs=[pl.BlockSpec((None, BM, COLS), lambda p, r, pt: (pt[p], r, 0))],
        out_specs=pl.BlockSpec((None, BM, COLS), lambda p, r, pt: (p, r, 0)),
    )
    return pl.pallas_call(
        page_copy_kernel,
        out_shape=jax.ShapeDtypeStruct((NPAGES, PAGE_ROWS, COLS), jnp.float32),
        grid_spec=grid_spec,
    )(page_table, x)


def jax_check():
    page_table = jax.ShapeDtypeStruct((NPAGES,), jnp.int32)
    x = jax.ShapeDtypeStruct((4, PAGE_ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(page_copy), platforms=["tpu"])(page_table, x)
