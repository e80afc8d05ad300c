"""Add a step-dependent offset to a whole (16, 128) array in one kernel invocation.

Bug: the call has no grid, so there is no axis 0; `pl.program_id(0)` is out of bounds.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 16, 128


def offset_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + pl.program_id(0).astype(jnp.float32)  # expect: PAL107


def add_offset(x):
    return pl.pallas_call(
        offset_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(add_offset), platforms=["tpu"])(x)
