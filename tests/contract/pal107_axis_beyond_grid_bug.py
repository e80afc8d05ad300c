"""Running prefix sum of row blocks over a sequential 1-D grid.

Bug: the grid has one axis (axis 0) but the kernel asks for `pl.program_id(1)`.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS, BM = 64, 128, 8


def prefix_kernel(x_ref, o_ref, acc_ref):
    step = pl.program_id(1)  # expect: PAL107

    @pl.when(step == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += x_ref[...]
    o_ref[...] = acc_ref[...]


def prefix_sum(x):
    spec = pl.BlockSpec((BM, COLS), lambda i: (i, 0))
    return pl.pallas_call(
        prefix_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(ROWS // BM,),
        in_specs=[spec],
        out_specs=spec,
        scratch_shapes=[pltpu.VMEM((BM, COLS), jnp.float32)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(prefix_sum), platforms=["tpu"])(x)
