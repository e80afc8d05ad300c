"""Sum a tile into an f32 SMEM scalar, starting from zero.

Bug: the running total is reset with the Python int `0`; `=` converts a Python float
into a float ref, not an int.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 8, 128


def total_kernel(x_ref, o_ref):
    o_ref[0] = 0  # expect: PAL401
    o_ref[0] += jnp.sum(x_ref[...])


def total(x):
    return pl.pallas_call(
        total_kernel,
        out_specs=pl.BlockSpec(memory_space=pltpu.SMEM),
        out_shape=jax.ShapeDtypeStruct((1,), jnp.float32),
        interpret=True,
    )(x)


def trace():
    return total(jnp.ones((ROWS, COLS), jnp.float32))
