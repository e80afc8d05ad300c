"""Widen a (32, 128) f32 input into a (32, 384) output of scaled copies.

Bug: the output block is 192 lanes wide: not a multiple of 128 and not the output's
full 384 columns; the input block is fine.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, OUT_COLS = 32, 128, 384
BM, OUT_BN = 8, 192


def widen_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = jnp.concatenate([x, x], axis=-1)[:, :OUT_BN] * 0.5


def widen(x):
    return pl.pallas_call(
        widen_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, OUT_COLS), jnp.float32),
        grid=(ROWS // BM, OUT_COLS // OUT_BN),
        in_specs=[pl.BlockSpec((BM, COLS), lambda i, j: (i, 0))],
        out_specs=pl.BlockSpec((BM, OUT_BN), lambda i, j: (i, j)),  # expect: PAL201
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(widen), platforms=["tpu"])(x)
