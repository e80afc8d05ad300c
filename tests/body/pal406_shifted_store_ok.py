"""A causal shift by one row: row r of the output is row r - 1 of the input, row 0 zeros,
written through a VMEM scratch.

Correct: rows 0 .. R - 2 of the input go to rows 1 .. R - 1 of the scratch.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

R, D = 16, 128


def shift_kernel(x_ref, o_ref, buf_ref):
    buf_ref[pl.ds(0, 1), :] = jnp.zeros((1, D), jnp.float32)
    buf_ref[pl.ds(1, R - 1), :] = x_ref[pl.ds(0, R - 1), :]
    o_ref[...] = buf_ref[...]


def shift(x):
    return pl.pallas_call(shift_kernel, out_shape=jax.ShapeDtypeStruct((R, D), jnp.float32),
                          scratch_shapes=[pltpu.VMEM((R, D), jnp.float32)])(x)


def trace():
    x = jax.ShapeDtypeStruct((R, D), jnp.float32)
    jax.export.export(jax.jit(shift), platforms=["tpu"])(x)
