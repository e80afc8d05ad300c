"""Triple a (16, 128) block and raise a "done" flag semaphore once the result is stored.

Bug: the flag is signalled but nothing in the kernel waits on it, so the kernel exits
with the semaphore still at 1 (semaphores must be zero at the end of a Pallas kernel).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 16, 128


def triple_kernel(x_ref, o_ref, done):
    o_ref[...] = x_ref[...] * 3.0
    pl.semaphore_signal(done)  # expect: PAL304


def triple(x):
    return pl.pallas_call(
        triple_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.SemaphoreType.REGULAR],
        interpret=pltpu.InterpretParams(),
    )(x)


def jax_check():
    return triple(jnp.ones((ROWS, COLS), jnp.float32))
