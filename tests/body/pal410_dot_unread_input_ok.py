"""A projection tile: x (rows, d_in) times w (d_in, d_out), accumulated in f32.

Correct: both operands are read with `[...]` before the dot.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, D_IN, D_OUT = 128, 256, 128


def project_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.float32)


def project(x, w):
    return pl.pallas_call(project_kernel, out_shape=jax.ShapeDtypeStruct((ROWS, D_OUT), jnp.float32))(x, w)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, D_IN), jnp.bfloat16)
    w = jax.ShapeDtypeStruct((D_IN, D_OUT), jnp.bfloat16)
    jax.export.export(jax.jit(project), platforms=["tpu"])(x, w)
