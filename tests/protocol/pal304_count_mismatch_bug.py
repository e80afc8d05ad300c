"""Two producers (the two halves of a (16, 128) block) each signal a REGULAR semaphore by
one; the consumer waits before writing the output.

Bug: the halves are signalled with a combined `inc=2`, but the consumer waits for the
default value 1, so one count is left on the semaphore at kernel exit.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 16, 128
HALF = ROWS // 2


def halves_kernel(x_ref, o_ref, stage, ready):
    stage[pl.ds(0, HALF), :] = x_ref[pl.ds(0, HALF), :] + 1.0
    stage[pl.ds(HALF, HALF), :] = x_ref[pl.ds(HALF, HALF), :] - 1.0
    pl.semaphore_signal(ready, 2)  # expect: PAL304
    pl.semaphore_wait(ready)
    o_ref[...] = stage[...]


def halves(x):
    return pl.pallas_call(
        halves_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((ROWS, COLS), jnp.float32), pltpu.SemaphoreType.REGULAR],
        interpret=pltpu.InterpretParams(dma_execution_mode="eager"),
    )(x)


def jax_check():
    return halves(jnp.ones((ROWS, COLS), jnp.float32))
