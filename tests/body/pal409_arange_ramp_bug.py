"""Add a linear ramp over the columns to each row of a tile: column j gets j * step.

Bug: the ramp is `jnp.arange(COLS, dtype=jnp.float32)`, which lowers to a float iota; the
TPU makes integer iotas only.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, STEP = 8, 256, 0.01


def ramp_kernel(x_ref, o_ref):
    ramp = jnp.arange(COLS, dtype=jnp.float32)  # expect: PAL409
    o_ref[...] = x_ref[...] + ramp[None, :] * STEP


def add_ramp(x):
    return pl.pallas_call(ramp_kernel, out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32))(x)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(add_ramp), platforms=["tpu"])(x)
