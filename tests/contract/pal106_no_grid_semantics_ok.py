"""Whole-array GELU with no grid, compiled with explicit compiler params.

Legal and tricky: with no grid, `dimension_semantics=()` (empty) matches the rank-0 grid.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 16, 256


def gelu_kernel(x_ref, o_ref):
    o_ref[...] = jax.nn.gelu(x_ref[...])


def gelu(x):
    return pl.pallas_call(
        gelu_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=(),
            vmem_limit_bytes=32 * 1024 * 1024,
        ),
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(gelu), platforms=["tpu"])(x)
