"""Gather row blocks of a table by block ids prefetched into SMEM.

Bug: with `num_scalar_prefetch=1` the first kernel parameter is the prefetched ids ref;
the author's kernel forgot it, so it receives one ref too many.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NBLOCKS, BM, COLS = 8, 8, 128


def gather_kernel(x_ref, o_ref):  # expect: PAL101
    o_ref[...] = x_ref[...]


def gather_blocks(ids, table):
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(NBLOCKS,),
        in_specs=[pl.BlockSpec((BM, COLS), lambda i, ids: (ids[i], 0))],
        out_specs=pl.BlockSpec((BM, COLS), lambda i, ids: (i, 0)),
    )
    return pl.pallas_call(
        gather_kernel,
        out_shape=jax.ShapeDtypeStruct((NBLOCKS * BM, COLS), jnp.float32),
        grid_spec=grid_spec,
    )(ids, table)


def jax_check():
    ids = jax.ShapeDtypeStruct((NBLOCKS,), jnp.int32)
    table = jax.ShapeDtypeStruct((4 * NBLOCKS * BM, COLS), jnp.float32)
    jax.export.export(jax.jit(gather_blocks), platforms=["tpu"])(ids, table)
