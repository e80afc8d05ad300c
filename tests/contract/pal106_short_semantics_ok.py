"""Tiled scale-by-3 over a 2-D grid of (8, 128) blocks.

One semantic per grid axis, here with the `pltpu.PARALLEL` enum values.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS, BM, BN = 32, 256, 8, 128


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3.0


def scale(x):
    spec = pl.BlockSpec((BM, BN), lambda i, j: (i, j))
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(ROWS // BM, COLS // BN),
        in_specs=[spec],
        out_specs=spec,
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=(pltpu.PARALLEL, pltpu.PARALLEL),
        ),
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(scale), platforms=["tpu"])(x)
