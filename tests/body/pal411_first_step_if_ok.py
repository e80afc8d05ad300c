"""Row sums over a grid of column blocks, accumulated in a VMEM scratch that the first
grid step zeroes and the last writes out.

Correct: the first step is chosen with `pl.when`, which JAX traces as a branch.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS, BC = 8, 512, 128


def row_sum_kernel(x_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.sum(x_ref[...], axis=-1, keepdims=True)

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
    )(x)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(row_sum), platforms=["tpu"])(x)
