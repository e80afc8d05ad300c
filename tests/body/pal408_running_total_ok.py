"""The total of an array, block by block: a scratch accumulator is zeroed on the first
grid step, each block's sum is added to it, and the last step writes it out.

Correct: the running total is a scalar in an SMEM scratch, which takes scalar stores.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS, BR = 64, 128, 16


def total_kernel(x_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        acc_ref[0] = 0.0

    acc_ref[0] += jnp.sum(x_ref[...])

    @pl.when(pl.program_id(0) == pl.num_programs(0) - 1)
    def _():
        o_ref[0] = acc_ref[0]


def total(x):
    return pl.pallas_call(
        total_kernel,
        grid=(ROWS // BR,),
        in_specs=[pl.BlockSpec((BR, COLS), lambda i: (i, 0))],
        out_specs=pl.BlockSpec(memory_space=pltpu.SMEM),
        out_shape=jax.ShapeDtypeStruct((1,), jnp.float32),
        scratch_shapes=[pltpu.SMEM((1,), jnp.float32)],
    )(x)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(total), platforms=["tpu"])(x)
