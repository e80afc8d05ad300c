"""Row-wise RMS normalisation of a (64, 200) activation, in row blocks.

Bug: a 100-lane block is neither a multiple of 128 nor the array's full 200 columns.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 64, 200
BM, BN = 8, 100


def scale_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6)


def rms_scale(x):
    spec = pl.BlockSpec((BM, BN), lambda i, j: (i, j))  # expect: PAL201
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(ROWS // BM, COLS // BN),
        in_specs=[spec],
        out_specs=spec,
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(rms_scale), platforms=["tpu"])(x)
