"""Layer normalization without affine parameters, written as one expression over the
centred block.

Bug: the row mean `mu` lost `keepdims=True`: a (rows,) mean does not broadcast against
the (rows, features) block (both `x - mu` fail; JAX stops at the first).
"""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

ROWS, D, BR = 64, 256, 16
EPS = 1e-5


def norm_kernel(x_ref, o_ref):
    x = x_ref[...].astype(jnp.float32)
    mu = x.mean(-1)
    o_ref[...] = (x - mu) * lax.rsqrt(((x - mu) ** 2).mean(-1, keepdims=True) + EPS)  # expect: PAL405


def norm(x):
    return pl.pallas_call(
        norm_kernel,
        grid=(ROWS // BR,),
        in_specs=[pl.BlockSpec((BR, D), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((BR, D), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct((ROWS, D), jnp.float32),
    )(x)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, D), jnp.float32)
    jax.export.export(jax.jit(norm), platforms=["tpu"])(x)
