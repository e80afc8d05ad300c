"""Copy a (16, 128) tile from HBM into VMEM, then hand off to the epilogue through a
"ready" flag semaphore, and double the tile.

The copy waits on its DMA semaphore; the flag is a REGULAR semaphore, which is what
`pl.semaphore_signal` / `pl.semaphore_wait` take (one signal, one wait).
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
    pl.semaphore_signal(ready)
    pl.semaphore_wait(ready)
    o_ref[...] = buf[...] * 2.0


def double(x):
    return pl.pallas_call(
        double_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((ROWS, COLS), jnp.float32),
                        pltpu.SemaphoreType.DMA, pltpu.SemaphoreType.REGULAR],
        interpret=pltpu.InterpretParams(),
    )(x)


def jax_check():
    return double(jnp.ones((ROWS, COLS), jnp.float32))
