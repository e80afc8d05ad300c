"""Load a (16, 128) block from HBM, add one in VMEM, and write the result back to the
HBM output, all with hand-written DMAs on one semaphore per direction.

Both descriptors are started and waited.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 16, 128


def add_one_kernel(x_hbm, o_hbm, buf, sems):
    load = pltpu.make_async_copy(x_hbm, buf, sems.at[0])
    store = pltpu.make_async_copy(buf, o_hbm, sems.at[1])
    load.start()
    load.wait()
    buf[...] += 1.0
    store.start()
    store.wait()


def add_one(x):
    return pl.pallas_call(
        add_one_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[pltpu.VMEM((ROWS, COLS), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
        interpret=pltpu.InterpretParams(dma_execution_mode="eager"),
    )(x)


def jax_check():
    return add_one(jnp.ones((ROWS, COLS), jnp.float32))
