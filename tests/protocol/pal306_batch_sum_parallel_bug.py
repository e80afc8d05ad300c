"""Sum a (4, 16, 128) batch over its leading axis into a (16, 128) output, one
(8, 128) row block per output step: grid (batch, row block).

Bug: the author put the summed batch axis first and marked it "parallel"; the output
`index_map` ignores it, so every output block is revisited on each batch step (and on a
megacore the two cores would write the same blocks).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

B, ROWS, COLS, BLOCK = 4, 16, 128, 8


def batch_sum_kernel(x_ref, o_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += x_ref[...]


def batch_sum(x):
    return pl.pallas_call(
        batch_sum_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(B, ROWS // BLOCK),
        in_specs=[pl.BlockSpec((None, BLOCK, COLS), lambda b, r: (b, r, 0))],
        out_specs=pl.BlockSpec((BLOCK, COLS), lambda b, r: (r, 0)),  # expect: PAL306
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
        interpret=pltpu.InterpretParams(),
    )(x)


def jax_check():
    return batch_sum(jnp.ones((B, ROWS, COLS), jnp.float32))
