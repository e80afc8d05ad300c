"""Split each (8, 128) block into its positive and negative parts, two outputs.

Legal and tricky: `out_shape` is a tuple and `out_specs` a list; Pallas accepts a list
for a tuple here (same length, same leaves), and the kernel still gets two output refs.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, BM = 32, 128, 8


def split_kernel(x_ref, pos_ref, neg_ref):
    x = x_ref[...]
    pos_ref[...] = jnp.maximum(x, 0.0)
    neg_ref[...] = jnp.minimum(x, 0.0)


def split_sign(x):
    spec = pl.BlockSpec((BM, COLS), lambda i: (i, 0))
    part = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    return pl.pallas_call(
        split_kernel,
        out_shape=(part, part),
        grid=(ROWS // BM,),
        in_specs=(spec,),
        out_specs=[spec, spec],
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(split_sign), platforms=["tpu"])(x)
