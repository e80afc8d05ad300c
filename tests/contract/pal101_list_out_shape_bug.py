"""Quantize (32, 128) f32 blocks to int8 and return the values and per-row scales.

Bug: `out_shape` is a list of two arrays, so Pallas passes two output refs, but the
kernel was written with a single output parameter (it used to return only the values).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, BM = 64, 128, 32  # int8 blocks: 32 rows, the native int8 tile


def quantize_kernel(x_ref, q_ref):  # expect: PAL101
    x = x_ref[...]
    scale = jnp.max(jnp.abs(x), axis=-1, keepdims=True) / 127.0 + 1e-8
    q_ref[...] = jnp.round(x / scale).astype(jnp.int8)


def quantize(x):
    spec = pl.BlockSpec((BM, COLS), lambda i: (i, 0))
    return pl.pallas_call(
        quantize_kernel,
        out_shape=[
            jax.ShapeDtypeStruct((ROWS, COLS), jnp.int8),
            jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        ],
        grid=(ROWS // BM,),
        in_specs=[spec],
        out_specs=[spec, spec],
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(quantize), platforms=["tpu"])(x)
