"""Zero an f32 accumulator scratch on the first grid step, accumulate row sums into it,
and write it out on the last.

Correct: the accumulator is zeroed with an array of its shape.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS, BC = 8, 512, 128


def row_sum_kernel(x_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        acc_ref[...] = jnp.zeros(acc_ref.shape, acc_ref.dtype)

    acc_ref[...] += jnp.sum(x_ref[...].astype(jnp.float32), axis=-1, keepdims=True)

    @pl.when(pl.program_id(0) == pl.num_programs(0) - 1)
    def _():
        o_ref[...] = acc_ref[...]


def row_sum(x):
    return pl.pallas_call(
        row_sum_kernel,
        grid=(COLS // BC,),
        in_specs=[pl.BlockSpec((ROWS, BC), lambda j: (0, j))],
        out_specs=pl.BlockSpec((ROWS, 1), lambda j: (0, 0)),
        out_shape=jax.ShapeDtypeStruct((ROWS, 1), jnp.float32),
        scratch_shapes=[pltpu.VMEM((ROWS, 1), jnp.float32)],
        interpret=True,
    )(x)


def trace():
    return row_sum(jnp.ones((ROWS, COLS), jnp.bfloat16))
