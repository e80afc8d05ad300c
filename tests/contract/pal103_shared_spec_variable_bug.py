"""ReLU over (8, 128) row blocks with one BlockSpec held in a variable and reused.

Bug: the shared spec's index map returns only the row-block index, but the block has
two dimensions.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, BM = 64, 128, 8


def relu_kernel(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def relu(x):
    row_spec = pl.BlockSpec((BM, COLS), lambda i: (i,))  # expect: PAL103
    return pl.pallas_call(
        relu_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(ROWS // BM,),
        in_specs=[row_spec],
        out_specs=row_spec,
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(relu), platforms=["tpu"])(x)
