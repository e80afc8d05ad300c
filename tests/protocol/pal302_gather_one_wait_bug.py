"""Gather the four (8, 128) quarters of a (32, 128) block from HBM into VMEM on ONE DMA
semaphore, then wait once, with a descriptor for the whole block.

The mistake: the one wait is written with the descriptor of ONE quarter (4 KiB), so
12 KiB of the count are left when the kernel ends.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

QUARTER, COLS = 8, 128


def gather_kernel(x_hbm, o_ref, buf, sem):
    for k in range(4):
        rows = pl.ds(k * QUARTER, QUARTER)
        pltpu.make_async_copy(x_hbm.at[rows], buf.at[rows], sem).start()  # expect: PAL302
    pltpu.make_async_copy(x_hbm.at[pl.ds(0, QUARTER)], buf.at[pl.ds(0, QUARTER)], sem).wait()
    o_ref[...] = buf[...] * 2.0


def gather(x):
    return pl.pallas_call(
        gather_kernel,
        out_shape=jax.ShapeDtypeStruct((4 * QUARTER, COLS), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((4 * QUARTER, COLS), jnp.float32), pltpu.SemaphoreType.DMA],
        interpret=pltpu.InterpretParams(dma_execution_mode="eager"),
    )(x)


def jax_check():
    return gather(jnp.ones((4 * QUARTER, COLS), jnp.float32))
