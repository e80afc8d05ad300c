"""Elementwise SiLU over a (256, 256) f32 activation in row/column tiles.

Bug: 4 rows per block is not a multiple of 8 (and not the array's 256 rows), which the
Pallas TPU lowering rejects.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 256, 256
BM, BN = 4, 128


def silu_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = x * jax.nn.sigmoid(x)


def silu(x):
    return pl.pallas_call(
        silu_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(ROWS // BM, COLS // BN),
        in_specs=[pl.BlockSpec((BM, BN), lambda i, j: (i, j))],  # expect: PAL201
        out_specs=pl.BlockSpec((BM, BN), lambda i, j: (i, j)),  # expect: PAL201
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(silu), platforms=["tpu"])(x)
