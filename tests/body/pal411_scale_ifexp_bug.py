"""Scale a tile by a per-call factor read from SMEM, falling back to 1 when the factor is
not positive.

Bug: the fallback is a Python conditional expression on the factor, a traced value.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 16, 128


def scale_kernel(s_ref, x_ref, o_ref):
    s = s_ref[0]
    factor = s if s > 0 else 1.0  # expect: PAL411
    o_ref[...] = x_ref[...] * factor


def scale(s, x):
    return pl.pallas_call(
        scale_kernel,
        in_specs=[pl.BlockSpec(memory_space=pltpu.SMEM), pl.BlockSpec(memory_space=pltpu.VMEM)],
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
    )(s, x)


def trace():
    s = jax.ShapeDtypeStruct((1,), jnp.float32)
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(scale), platforms=["tpu"])(s, x)
