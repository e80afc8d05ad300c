"""An int8 quantized projection: int8 activations times int8 weights, rescaled in f32.

Correct: the int8 product accumulates in int32.
"""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

M, K, N = 128, 256, 128


def qproj_kernel(x_ref, w_ref, scale_ref, o_ref):
    acc = lax.dot_general(x_ref[...], w_ref[...], (((1,), (0,)), ((), ())),
                          preferred_element_type=jnp.int32)
    o_ref[...] = acc.astype(jnp.float32) * scale_ref[...]


def qproj(x, w, scale):
    return pl.pallas_call(qproj_kernel, out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32))(x, w, scale)


def trace():
    x = jax.ShapeDtypeStruct((M, K), jnp.int8)
    w = jax.ShapeDtypeStruct((K, N), jnp.int8)
    scale = jax.ShapeDtypeStruct((1, N), jnp.float32)
    jax.export.export(jax.jit(qproj), platforms=["tpu"])(x, w, scale)
