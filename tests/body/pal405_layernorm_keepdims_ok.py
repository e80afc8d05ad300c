"""Layer normalization of a (rows, features) block in f32, gamma / beta from (1, D) blocks.

Correct: the row statistics keep their axis (`keepdims=True`): (rows, 1) against
(rows, features).
"""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

ROWS, D, BR = 64, 256, 16


def layer_norm_kernel(x_ref, g_ref, b_ref, o_ref):
    x = x_ref[...]
    mean = jnp.mean(x, axis=-1, keepdims=True)
    xc = x - mean
    var = jnp.mean(xc * xc, axis=-1, keepdims=True)
    o_ref[...] = xc * lax.rsqrt(var + 1e-5) * g_ref[...] + b_ref[...]


def layer_norm(x, g, b):
    return pl.pallas_call(
        layer_norm_kernel,
        grid=(ROWS // BR,),
        in_specs=[pl.BlockSpec((BR, D), lambda i: (i, 0)),
                  pl.BlockSpec((1, D), lambda i: (0, 0)),
                  pl.BlockSpec((1, D), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((BR, D), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct((ROWS, D), jnp.float32),
    )(x, g, b)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, D), jnp.float32)
    p = jax.ShapeDtypeStruct((1, D), jnp.float32)
    jax.export.export(jax.jit(layer_norm), platforms=["tpu"])(x, p, p)
