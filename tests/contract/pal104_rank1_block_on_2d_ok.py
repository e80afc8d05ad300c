"""Add an (8, 256) bias array elementwise, one 128-lane column block per grid step.

The bias block `(8, 128)` has the bias array's two dimensions.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, BN = 8, 256, 128


def bias_kernel(x_ref, b_ref, o_ref):
    o_ref[...] = x_ref[...] + b_ref[...]


def add_bias(x, b):
    return pl.pallas_call(
        bias_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(COLS // BN,),
        in_specs=[
            pl.BlockSpec((ROWS, BN), lambda j: (0, j)),
            pl.BlockSpec((ROWS, BN), lambda j: (0, j)),
        ],
        out_specs=pl.BlockSpec((ROWS, BN), lambda j: (0, j)),
    )(x, b)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(add_bias), platforms=["tpu"])(x, x)
