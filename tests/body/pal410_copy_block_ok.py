"""Copy a block through a VMEM scratch buffer (a staging step of a larger kernel).

Correct: the scratch is given the block the input ref holds (`x_ref[...]`).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 16, 128


def copy_kernel(x_ref, o_ref, buf_ref):
    buf_ref[...] = x_ref[...]
    o_ref[...] = buf_ref[...]


def copy(x):
    return pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
                          scratch_shapes=[pltpu.VMEM((ROWS, COLS), jnp.float32)])(x)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(copy), platforms=["tpu"])(x)
