"""Row-block sum with a VMEM accumulator over a sequential grid.

Bug: the author replaced a manual DMA with BlockSpec pipelining and dropped the `sem`
parameter, but left `pltpu.SemaphoreType.DMA` in `scratch_shapes`: one ref too many.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS, BM = 64, 128, 8


def rowsum_kernel(x_ref, o_ref, acc_ref):  # expect: PAL101
    @pl.when(pl.program_id(0) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += x_ref[...]
    o_ref[...] = acc_ref[...]


def rowsum(x):
    return pl.pallas_call(
        rowsum_kernel,
        out_shape=jax.ShapeDtypeStruct((BM, COLS), jnp.float32),
        grid=(ROWS // BM,),
        in_specs=[pl.BlockSpec((BM, COLS), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((BM, COLS), lambda i: (0, 0)),
        scratch_shapes=[pltpu.VMEM((BM, COLS), jnp.float32), pltpu.SemaphoreType.DMA],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(rowsum), platforms=["tpu"])(x)
