"""bf16 elementwise scale of a (64, 256) array in (8, 128) tiles.

Accepted by Pallas's TPU lowering, which checks 8 x 128 whatever the dtype, so PAL201
must stay silent. On a real TPU, Mosaic's later dtype-aware check may still reject an
8-row bf16 block (native bf16 tiling is (16, 128)); that would be a different rule.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 64, 256
BM, BN = 8, 128


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


def scale(x):
    spec = pl.BlockSpec((BM, BN), lambda i, j: (i, j))
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.bfloat16),
        grid=(ROWS // BM, COLS // BN),
        in_specs=[spec],
        out_specs=spec,
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.bfloat16)
    jax.export.export(jax.jit(scale), platforms=["tpu"])(x)
