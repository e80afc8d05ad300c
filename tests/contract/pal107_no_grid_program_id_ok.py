"""Add a step-dependent offset to a whole (16, 128) array in one kernel invocation.

Legal and tricky: a grid of one step, `grid=(1,)`, gives the kernel an axis 0.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 16, 128


def offset_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + pl.program_id(0).astype(jnp.float32)


def add_offset(x):
    return pl.pallas_call(
        offset_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(1,),
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(add_offset), platforms=["tpu"])(x)
