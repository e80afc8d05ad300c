"""Copy a (16, 128) tile from HBM into VMEM, then hand off to the epilogue through a
"ready" flag semaphore, and double the tile.

Bug: the author declared the flag as a second DMA semaphore (copying the line above it),
so the flag's `pl.semaphore_signal` is given a DMA semaphore; only REGULAR (or barrier)
semaphores can be signalled by hand.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 16, 128


def double_kernel(x_hbm, o_ref, buf, copy_sem, ready):
    copy = pltpu.make_async_copy(x_hbm, buf, copy_sem)
    copy.start()
    copy.wait()
    pl.semaphore_signal(ready)  # expect: PAL301
    pl.semaphore_wait(ready)  # expect: PAL301
    o_ref[...] = buf[...] * 2.0


def double(x):
    return pl.pallas_call(
        double_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((ROWS, COLS), jnp.float32),
                        pltpu.SemaphoreType.DMA, pltpu.SemaphoreType.DMA],
        interpret=pltpu.InterpretParams(),
    )(x)


def jax_check():
    return double(jnp.ones((ROWS, COLS), jnp.float32))
