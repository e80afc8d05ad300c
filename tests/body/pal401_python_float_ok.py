"""Scale a bf16 tile by a half, and write the scale used into a bf16 SMEM output: a Python
float stored into a bf16 ref is converted (it is weakly typed)."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 16, 128


def scale_kernel(x_ref, o_ref, scale_ref):
    o_ref[...] = x_ref[...] * 0.5
    scale_ref[0] = 0.5


def scale(x):
    return pl.pallas_call(
        scale_kernel,
        out_specs=(pl.BlockSpec(memory_space=pltpu.VMEM), pl.BlockSpec(memory_space=pltpu.SMEM)),
        out_shape=(jax.ShapeDtypeStruct((ROWS, COLS), jnp.bfloat16), jax.ShapeDtypeStruct((1,), jnp.bfloat16)),
        interpret=True,
    )(x)


def trace():
    return scale(jnp.ones((ROWS, COLS), jnp.bfloat16))
