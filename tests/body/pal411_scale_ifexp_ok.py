"""Scale a tile by a per-call factor read from SMEM, falling back to 1 when the factor is
not positive.

Correct: the fallback is chosen by `jnp.where`, on the traced factor.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 16, 128


def scale_kernel(s_ref, x_ref, o_ref):
    s = s_ref[0]
    factor = jnp.where(s > 0, s, 1.0)
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
