"""Segment sums over row blocks picked by prefetched block ids, accumulated in VMEM.

The one grid axis is a reduction: `dimension_semantics=("arbitrary",)`.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NSTEPS, BM, COLS = 4, 8, 128


def segsum_kernel(ids_ref, x_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += x_ref[...]
    o_ref[...] = acc_ref[...]


def segsum(ids, x):
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(NSTEPS,),
        in_specs=[pl.BlockSpec((BM, COLS), lambda i, ids: (ids[i], 0))],
        out_specs=pl.BlockSpec((BM, COLS), lambda i, ids: (0, 0)),
        scratch_shapes=[pltpu.VMEM((BM, COLS), jnp.float32)],
    )
    params = pltpu.CompilerParams(dimension_semantics=("arbitrary",))
    return pl.pallas_call(
        segsum_kernel,
        out_shape=jax.ShapeDtypeStruct((BM, COLS), jnp.float32),
        grid_spec=grid_spec,
        compiler_params=params,
    )(ids, x)


def jax_check():
    ids = jax.ShapeDtypeStruct((NSTEPS,), jnp.int32)
    x = jax.ShapeDtypeStruct((4 * NSTEPS * BM, COLS), jnp.float32)
    jax.export.export(jax.jit(segsum), platforms=["tpu"])(ids, x)
