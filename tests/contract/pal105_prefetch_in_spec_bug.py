"""Scale each row block by a per-block factor prefetched into SMEM.

Bug: the author listed a spec for the scalar-prefetch operand in `in_specs`; with
`PrefetchScalarGridSpec` the in_specs cover only the operands after the
`num_scalar_prefetch` leading ones.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NB, BM, COLS = 4, 8, 128


def scale_kernel(scales_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * scales_ref[pl.program_id(0)].astype(jnp.float32)


def scale_blocks(scales, x):
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(NB,),
        in_specs=[
            pl.BlockSpec(memory_space=pltpu.SMEM),  # expect: PAL105
            pl.BlockSpec((BM, COLS), lambda i, s: (i, 0)),
        ],
        out_specs=pl.BlockSpec((BM, COLS), lambda i, s: (i, 0)),
    )
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct((NB * BM, COLS), jnp.float32),
        grid_spec=grid_spec,
    )(scales, x)


def jax_check():
    scales = jax.ShapeDtypeStruct((NB,), jnp.int32)
    x = jax.ShapeDtypeStruct((NB * BM, COLS), jnp.float32)
    jax.export.export(jax.jit(scale_blocks), platforms=["tpu"])(scales, x)
