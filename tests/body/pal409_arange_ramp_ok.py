"""Add a linear ramp over the columns to each row of a tile: column j gets j * step.

Correct: the ramp is an int32 `arange`, converted to f32.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, STEP = 8, 256, 0.01


def ramp_kernel(x_ref, o_ref):
    ramp = jnp.arange(COLS, dtype=jnp.int32).astype(jnp.float32)
    o_ref[...] = x_ref[...] + ramp[None, :] * STEP


def add_ramp(x):
    return pl.pallas_call(ramp_kernel, out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32))(x)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(add_ramp), platforms=["tpu"])(x)
