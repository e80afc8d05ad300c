"""A projection `x @ w` written with `lax.dot_general` (f32, one block).

Bug: the dimension numbers contract `w`'s last axis (for a `w` stored (out, in)) but this
`w` is stored (in, out): the contracting dimension of `w` is 0.
"""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

M, K, N = 128, 256, 512


def proj_kernel(x_ref, w_ref, o_ref):
    x = x_ref[...]
    w = w_ref[...]
    y = lax.dot_general(x, w, (((1,), (1,)), ((), ())))  # expect: PAL403
    o_ref[...] = jnp.maximum(y, 0.0)


def proj(x, w):
    return pl.pallas_call(proj_kernel, out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32))(x, w)


def trace():
    x = jax.ShapeDtypeStruct((M, K), jnp.float32)
    w = jax.ShapeDtypeStruct((K, N), jnp.float32)
    jax.export.export(jax.jit(proj), platforms=["tpu"])(x, w)
