"""Gather rows [8, 24) of a (32, 128) HBM table into a (16, 128) VMEM buffer by hand and
double them.

The source slice `pl.ds(8, 16)` has the destination's shape, (16, 128).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

TABLE_ROWS, ROWS, COLS = 32, 16, 128
OFFSET = 8


def gather_kernel(t_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(t_hbm.at[pl.ds(OFFSET, ROWS)], buf, sem)
    copy.start()
    copy.wait()
    o_ref[...] = buf[...] * 2.0


def gather(t):
    return pl.pallas_call(
        gather_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((ROWS, COLS), jnp.float32), pltpu.SemaphoreType.DMA],
        interpret=pltpu.InterpretParams(),
    )(t)


def jax_check():
    return gather(jnp.ones((TABLE_ROWS, COLS), jnp.float32))
