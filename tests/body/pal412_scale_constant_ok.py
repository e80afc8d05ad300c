"""Attention-score scaling: multiply a tile of scores by 1 / sqrt(head_dim).

Correct: the scale is a Python float, which JAX folds into the kernel.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, HEAD_DIM = 16, 128, 64
SCALE = HEAD_DIM ** -0.5


def scale_kernel(s_ref, o_ref):
    o_ref[...] = s_ref[...] * SCALE


def scale(s):
    return pl.pallas_call(scale_kernel, out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32))(s)


def trace():
    s = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(scale), platforms=["tpu"])(s)
