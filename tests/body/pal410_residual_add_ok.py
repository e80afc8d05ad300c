"""Scale a tile and add a residual: out = x * gamma + residual.

Correct: the residual is read (`res_ref[...]`) before it is added.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 16, 256


def residual_kernel(x_ref, g_ref, res_ref, o_ref):
    o_ref[...] = x_ref[...] * g_ref[...] + res_ref[...]


def residual(x, g, res):
    return pl.pallas_call(residual_kernel, out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32))(x, g, res)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    g = jax.ShapeDtypeStruct((1, COLS), jnp.float32)
    jax.export.export(jax.jit(residual), platforms=["tpu"])(x, g, x)
