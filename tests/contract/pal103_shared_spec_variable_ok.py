"""ReLU over (8, 128) row blocks with one BlockSpec held in a variable and reused.

Legal and tricky: one spec object, held in a variable, is reused for the input and the
output; its index map returns one index per block dimension.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, BM = 64, 128, 8


def relu_kernel(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def relu(x):
    row_spec = pl.BlockSpec((BM, COLS), lambda i: (i, 0))
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
