"""Cross-iteration double buffering over a sequential grid.

Each grid step waits for its own block and prefetches the next one; the slot is
`program_id % 2` and the semaphore array is declared with an int shape, `DMA(2)`.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

STEPS = 3


def copy_block(x_hbm, buf, sems, step, slot):
    return pltpu.make_async_copy(x_hbm.at[step], buf.at[slot], sems.at[slot])


def rowsum_kernel(x_hbm, o_ref, buf, sems):
    step = pl.program_id(0)
    nsteps = pl.num_programs(0)
    slot = step % 2

    @pl.when(step == 0)
    def _():
        copy_block(x_hbm, buf, sems, 0, 0).start()

    @pl.when(step + 1 < nsteps)
    def _():
        copy_block(x_hbm, buf, sems, step + 1, 1 - slot).start()

    copy_block(x_hbm, buf, sems, step, slot).wait()
    o_ref[...] = buf[slot] + 1.0


def trace():
    x = jnp.ones((STEPS, 8, 128), jnp.float32)
    out = pl.pallas_call(
        rowsum_kernel,
        grid=(STEPS,),
        out_shape=jax.ShapeDtypeStruct((STEPS * 8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), pltpu.SemaphoreType.DMA(2)],
        interpret=True,
    )(x)
    assert jnp.allclose(out, 2.0)
