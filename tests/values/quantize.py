"""Activation quantization kernels as in vLLM / tokamax int8 paths: per-row symmetric
int8 quantization (absmax scale with an epsilon floor, `jnp.round`, `jnp.clip`), and the
matching dequantize that multiplies int8 values by an f32 `(rows, 1)` scale."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INT8_MAX = 127.0


def quantize_kernel(x_ref, q_ref, scale_ref):
    x = x_ref[...].astype(jnp.float32)
    absmax = jnp.max(jnp.abs(x), axis=-1, keepdims=True)
    scale = jnp.maximum(absmax, 1e-6) / INT8_MAX
    q = jnp.clip(jnp.round(x / scale), -INT8_MAX, INT8_MAX)
    q_ref[...] = q.astype(jnp.int8)
    scale_ref[...] = scale


def quantize(x, *, block_rows=8):
    rows, cols = x.shape
    return pl.pallas_call(
        quantize_kernel,
        grid=(rows // block_rows,),
        in_specs=[pl.BlockSpec((block_rows, cols), lambda i: (i, 0))],
        out_specs=[pl.BlockSpec((block_rows, cols), lambda i: (i, 0)),
                   pl.BlockSpec((block_rows, 1), lambda i: (i, 0))],
        out_shape=[jax.ShapeDtypeStruct(x.shape, jnp.int8),
                   jax.ShapeDtypeStruct((rows, 1), jnp.float32)],
        interpret=True,
    )(x)


def dequantize_kernel(q_ref, scale_ref, o_ref):
    q = q_ref[...]
    deq = q.astype(jnp.float32) * scale_ref[...]
    o_ref[...] = deq.astype(o_ref.dtype)


def dequantize(q, scale, *, block_rows=8):
    rows, cols = q.shape
    return pl.pallas_call(
        dequantize_kernel,
        grid=(rows // block_rows,),
        in_specs=[pl.BlockSpec((block_rows, cols), lambda i: (i, 0)),
                  pl.BlockSpec((block_rows, 1), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((block_rows, cols), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct(q.shape, jnp.bfloat16),
        interpret=True,
    )(q, scale)


def trace():
    q, scale = quantize(jnp.ones((16, 256), jnp.bfloat16))
    dequantize(q, scale)
