"""A layer norm that also writes each row's mean and inverse standard deviation into
(rows, 1) statistics blocks.

Correct: the mean keeps its reduced axis (`keepdims=True`), (16, 1) like its block.
"""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

ROWS, D, BM = 64, 256, 16


def layer_norm_kernel(x_ref, o_ref, mean_ref, rstd_ref):
    x = x_ref[...].astype(jnp.float32)
    mean = jnp.mean(x, axis=-1, keepdims=True)
    xc = x - mean
    rstd = lax.rsqrt(jnp.mean(xc * xc, axis=-1, keepdims=True) + 1e-5)
    o_ref[...] = (xc * rstd).astype(o_ref.dtype)
    mean_ref[...] = mean
    rstd_ref[...] = rstd


def layer_norm(x):
    row_spec = pl.BlockSpec((BM, D), lambda i: (i, 0))
    stat_spec = pl.BlockSpec((BM, 1), lambda i: (i, 0))
    return pl.pallas_call(
        layer_norm_kernel,
        grid=(ROWS // BM,),
        in_specs=[row_spec],
        out_specs=[row_spec, stat_spec, stat_spec],
        out_shape=[jax.ShapeDtypeStruct((ROWS, D), jnp.bfloat16),
                   jax.ShapeDtypeStruct((ROWS, 1), jnp.float32),
                   jax.ShapeDtypeStruct((ROWS, 1), jnp.float32)],
        interpret=True,
    )(x)


def trace():
    return layer_norm(jnp.ones((ROWS, D), jnp.bfloat16))
