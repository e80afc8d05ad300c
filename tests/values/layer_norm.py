"""Row normalizations in the style of `pallas/ops/tpu/layer_norm.py` and the RMS norms of
MaxText / vLLM: bf16 rows in, f32 statistics with `keepdims=True`, `lax.rsqrt`, gamma /
beta from `(1, D)` blocks broadcast over the rows, bf16 out."""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def layer_norm_kernel(x_ref, gamma_ref, beta_ref, o_ref, mean_ref, rstd_ref, *, eps):
    x = x_ref[...].astype(jnp.float32)
    mean = jnp.mean(x, axis=-1, keepdims=True)
    xc = x - mean
    var = jnp.mean(jnp.square(xc), axis=-1, keepdims=True)
    rstd = lax.rsqrt(var + eps)
    gamma = gamma_ref[...].astype(jnp.float32)
    beta = beta_ref[...].astype(jnp.float32)
    y = xc * rstd * gamma + beta
    o_ref[...] = y.astype(o_ref.dtype)
    mean_ref[...] = mean
    rstd_ref[...] = rstd


def layer_norm(x, gamma, beta, *, block_rows=8, eps=1e-5):
    rows, d = x.shape
    row_spec = pl.BlockSpec((block_rows, d), lambda i: (i, 0))
    stat_spec = pl.BlockSpec((block_rows, 1), lambda i: (i, 0))
    param_spec = pl.BlockSpec((1, d), lambda i: (0, 0))
    return pl.pallas_call(
        functools.partial(layer_norm_kernel, eps=eps),
        grid=(rows // block_rows,),
        in_specs=[row_spec, param_spec, param_spec],
        out_specs=[row_spec, stat_spec, stat_spec],
        out_shape=[jax.ShapeDtypeStruct(x.shape, x.dtype),
                   jax.ShapeDtypeStruct((rows, 1), jnp.float32),
                   jax.ShapeDtypeStruct((rows, 1), jnp.float32)],
        interpret=True,
    )(x, gamma, beta)


def rms_norm_kernel(x_ref, w_ref, o_ref):
    x = x_ref[...]
    x_f32 = x.astype(jnp.float32)
    eps = jnp.float32(1e-6)
    ms = jnp.mean(x_f32 * x_f32, axis=-1, keepdims=True)
    normed = x_f32 * lax.rsqrt(ms + eps)
    weight = w_ref[...]
    out = normed.astype(x.dtype) * (1.0 + weight)
    o_ref[...] = out


def rms_norm(x, w, *, block_rows=16):
    rows, d = x.shape
    return pl.pallas_call(
        rms_norm_kernel,
        grid=(rows // block_rows,),
        in_specs=[pl.BlockSpec((block_rows, d), lambda i: (i, 0)),
                  pl.BlockSpec((1, d), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((block_rows, d), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        interpret=True,
    )(x, w)


def trace():
    x = jnp.ones((16, 256), jnp.bfloat16)
    layer_norm(x, jnp.ones((1, 256), jnp.bfloat16), jnp.zeros((1, 256), jnp.bfloat16))
    rms_norm(jnp.ones((32, 128), jnp.bfloat16), jnp.zeros((1, 128), jnp.bfloat16))
