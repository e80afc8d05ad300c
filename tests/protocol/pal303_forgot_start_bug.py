"""Copy a (16, 128) activation from HBM into VMEM by hand and negate it.

Bug: the author builds the copy descriptor and waits on it, but never calls `.start()`:
the wait waits for a DMA that no path starts (on a TPU the kernel hangs).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 16, 128


def negate_kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm, buf, sem)
    copy.wait()  # expect: PAL303
    o_ref[...] = -buf[...]


def negate(x):
    return pl.pallas_call(
        negate_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((ROWS, COLS), jnp.float32), pltpu.SemaphoreType.DMA],
        interpret=pltpu.InterpretParams(),
    )(x)


def jax_check():
    return negate(jnp.ones((ROWS, COLS), jnp.float32))
