"""Add a bias row block to a (16, 128) activation; both are copied from HBM into VMEM by
hand, each on its own DMA semaphore.

Bug: the author waits for the activation copy but not for the bias copy (it "surely
arrived by then"), so the bias DMA is started and never waited in the kernel.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 16, 128


def bias_add_kernel(x_hbm, b_hbm, o_ref, x_buf, b_buf, sems):
    x_copy = pltpu.make_async_copy(x_hbm, x_buf, sems.at[0])
    b_copy = pltpu.make_async_copy(b_hbm, b_buf, sems.at[1])
    x_copy.start()
    b_copy.start()  # expect: PAL302
    x_copy.wait()
    o_ref[...] = x_buf[...] + b_buf[...]


def bias_add(x, b):
    return pl.pallas_call(
        bias_add_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((ROWS, COLS), jnp.float32),
                        pltpu.VMEM((ROWS, COLS), jnp.float32),
                        pltpu.SemaphoreType.DMA((2,))],
        interpret=pltpu.InterpretParams(dma_execution_mode="eager"),
    )(x, b)


def jax_check():
    return bias_add(jnp.ones((ROWS, COLS), jnp.float32), jnp.ones((ROWS, COLS), jnp.float32))
