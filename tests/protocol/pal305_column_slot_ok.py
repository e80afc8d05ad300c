"""Pack two (8, 128) HBM inputs side by side into one (8, 256) VMEM buffer with two
DMAs, one per column half, then add one.

Each copy targets its own 128-column half, `buf.at[:, pl.ds(0, 128)]` and
`buf.at[:, pl.ds(128, 128)]`: source and destination are both (8, 128).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 8, 128


def pack_kernel(a_hbm, b_hbm, o_ref, buf, sems):
    left = pltpu.make_async_copy(a_hbm, buf.at[:, pl.ds(0, COLS)], sems.at[0])
    right = pltpu.make_async_copy(b_hbm, buf.at[:, pl.ds(COLS, COLS)], sems.at[1])
    left.start()
    right.start()
    left.wait()
    right.wait()
    o_ref[...] = buf[...] + 1.0


def pack(a, b):
    return pl.pallas_call(
        pack_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, 2 * COLS), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((ROWS, 2 * COLS), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
        interpret=pltpu.InterpretParams(),
    )(a, b)


def jax_check():
    return pack(jnp.ones((ROWS, COLS), jnp.float32), jnp.ones((ROWS, COLS), jnp.float32))
