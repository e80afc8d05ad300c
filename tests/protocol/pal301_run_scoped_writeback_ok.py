"""Add one to a (16, 128) block in a VMEM staging buffer and write it back to the HBM
output by hand; the staging buffer and the write-back semaphore are scoped with
`pl.run_scoped`.

The scoped semaphore is `SemaphoreType.DMA`, so the write-back's `.wait()` accepts it.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 16, 128


def add_one_kernel(x_ref, o_hbm):
    def body(stage, sem):
        stage[...] = x_ref[...] + 1.0
        writeback = pltpu.make_async_copy(stage, o_hbm, sem)
        writeback.start()
        writeback.wait()

    pl.run_scoped(body, pltpu.VMEM((ROWS, COLS), jnp.float32), pltpu.SemaphoreType.DMA)


def add_one(x):
    return pl.pallas_call(
        add_one_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        interpret=pltpu.InterpretParams(),
    )(x)


def jax_check():
    return add_one(jnp.ones((ROWS, COLS), jnp.float32))
