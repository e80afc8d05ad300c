"""Widen a (32, 128) f32 input into a (32, 384) output of scaled copies.

The output block is 128 lanes wide, three blocks across the 384 columns.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, OUT_COLS = 32, 128, 384
BM, OUT_BN = 8, 128


def widen_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = x * 0.5


def widen(x):
    return pl.pallas_call(
        widen_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, OUT_COLS), jnp.float32),
        grid=(ROWS // BM, OUT_COLS // OUT_BN),
        in_specs=[pl.BlockSpec((BM, COLS), lambda i, j: (i, 0))],
        out_specs=pl.BlockSpec((BM, OUT_BN), lambda i, j: (i, j)),
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(widen), platforms=["tpu"])(x)
