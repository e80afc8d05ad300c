"""Sum the four (8, 128) row blocks of a (32, 128) activation into one (8, 128) output
block, accumulating in the output over a grid of 4 steps.

Bug: the only grid axis is the summed one and the author marked it "parallel"; the
output `index_map` ignores it. On a two-core chip the steps are split between the cores
and both accumulate into the same output block. JAX's interpreter shows it with two
simulated cores and its race detector.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

N, ROWS, COLS = 4, 8, 128


def row_sum_kernel(x_ref, o_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += x_ref[...]


def row_sum(x):
    return pl.pallas_call(
        row_sum_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(N,),
        in_specs=[pl.BlockSpec((ROWS, COLS), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((ROWS, COLS), lambda i: (0, 0)),  # expect: PAL306
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
        interpret=pltpu.InterpretParams(num_cores_or_threads=2, detect_races=True),
    )(x)


def jax_check():
    return row_sum(jnp.ones((N * ROWS, COLS), jnp.float32))
