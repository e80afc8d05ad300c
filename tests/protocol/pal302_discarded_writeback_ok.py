"""Compute `x * x` for a (16, 128) block in a VMEM scratch and write it to the HBM
output with a hand-written DMA.

The descriptor `pltpu.async_copy(...)` returns is kept and waited before the kernel ends.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 16, 128


def square_kernel(x_ref, o_hbm, stage, sem):
    stage[...] = x_ref[...] * x_ref[...]
    writeback = pltpu.async_copy(stage, o_hbm, sem)
    writeback.wait()


def square(x):
    return pl.pallas_call(
        square_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[pltpu.VMEM((ROWS, COLS), jnp.float32), pltpu.SemaphoreType.DMA],
        interpret=pltpu.InterpretParams(dma_execution_mode="eager"),
    )(x)


def jax_check():
    return square(jnp.ones((ROWS, COLS), jnp.float32))
