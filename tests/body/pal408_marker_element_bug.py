"""Scale a bf16 tile and mark it: the first element of the output is set to a constant.

Bug: one element is stored into the output block, which lives in VMEM; the TPU stores
only vectors there.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 16, 128


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5
    o_ref[0, 0] = 1.5  # expect: PAL408


def scale(x):
    return pl.pallas_call(scale_kernel, out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.bfloat16))(x)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.bfloat16)
    jax.export.export(jax.jit(scale), platforms=["tpu"])(x)
