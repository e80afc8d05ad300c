"""Sum a (4, 16, 128) batch over its leading axis into a (16, 128) output, one
(8, 128) row block per output step: grid (row block, batch).

The row-block axis, which the output follows, comes first and is "parallel"; the summed
batch axis is last and "arbitrary", so each output block is visited on consecutive
steps only.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

B, ROWS, COLS, BLOCK = 4, 16, 128, 8


def batch_sum_kernel(x_ref, o_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += x_ref[...]


def batch_sum(x):
    return pl.pallas_call(
        batch_sum_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(ROWS // BLOCK, B),
        in_specs=[pl.BlockSpec((None, BLOCK, COLS), lambda r, b: (b, r, 0))],
        out_specs=pl.BlockSpec((BLOCK, COLS), lambda r, b: (r, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
        interpret=pltpu.InterpretParams(),
    )(x)


def jax_check():
    return batch_sum(jnp.ones((B, ROWS, COLS), jnp.float32))
