"""Rotary-style position scaling: each column of a tile is multiplied by its column
position over the width.

Bug: the positions are made as a float iota; the TPU makes integer iotas only.
"""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

ROWS, COLS = 16, 128


def position_kernel(x_ref, o_ref):
    pos = lax.broadcasted_iota(jnp.float32, (ROWS, COLS), 1)  # expect: PAL409
    o_ref[...] = x_ref[...] * (pos / COLS)


def scale(x):
    return pl.pallas_call(position_kernel, out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32))(x)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(scale), platforms=["tpu"])(x)
