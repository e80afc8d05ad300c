"""bf16 residual add over a (64, 256) activation in tiles.

(16, 128) bf16 tiles: the native bf16 tile, and a multiple of 8 x 128.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 64, 256
BM, BN = 16, 128


def residual_kernel(x_ref, r_ref, o_ref):
    o_ref[...] = x_ref[...] + r_ref[...]


def residual(x, r):
    tile = pl.BlockSpec((BM, BN), lambda i, j: (i, j))
    return pl.pallas_call(
        residual_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.bfloat16),
        grid=(ROWS // BM, COLS // BN),
        in_specs=[tile, tile],
        out_specs=tile,
    )(x, r)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.bfloat16)
    jax.export.export(jax.jit(residual), platforms=["tpu"])(x, x)
