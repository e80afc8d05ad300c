"""Triple a (16, 128) block and raise a "done" flag semaphore once the result is stored.

The flag is signalled once and consumed by one wait before the kernel ends.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 16, 128


def triple_kernel(x_ref, o_ref, done):
    o_ref[...] = x_ref[...] * 3.0
    pl.semaphore_signal(done)
    pl.semaphore_wait(done)


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
