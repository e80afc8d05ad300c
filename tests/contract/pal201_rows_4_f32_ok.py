"""Elementwise SiLU over a (256, 256) f32 activation in row/column tiles.

(8, 128) tiles: 8 rows and 128 lanes, the TPU's native f32 tile.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 256, 256
BM, BN = 8, 128


def silu_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = x * jax.nn.sigmoid(x)


def silu(x):
    return pl.pallas_call(
        silu_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(ROWS // BM, COLS // BN),
        in_specs=[pl.BlockSpec((BM, BN), lambda i, j: (i, j))],
        out_specs=pl.BlockSpec((BM, BN), lambda i, j: (i, j)),
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(silu), platforms=["tpu"])(x)
