"""Stream a (32, 128) activation from HBM in (8, 128) row blocks, double-buffered: step
`i` waits for block `i` and prefetches block `i + 1` into the other slot, then doubles
the block into the output.

The two slot semaphores are `SemaphoreType.DMA((2,))`, one per buffer slot; the prefetch
is guarded by `step + 1 < num_programs`, so every started copy is waited on the next step.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

N, ROWS, COLS = 4, 8, 128


def stream_kernel(x_hbm, o_ref, buf, sems):
    step = pl.program_id(0)
    slot = step % 2

    def fetch(block, s):
        return pltpu.make_async_copy(x_hbm.at[pl.ds(block * ROWS, ROWS)], buf.at[s], sems.at[s])

    @pl.when(step == 0)
    def _():
        fetch(0, 0).start()

    @pl.when(step + 1 < pl.num_programs(0))
    def _():
        fetch(step + 1, 1 - slot).start()

    fetch(step, slot).wait()
    o_ref[...] = buf[slot] * 2.0


def stream(x):
    return pl.pallas_call(
        stream_kernel,
        out_shape=jax.ShapeDtypeStruct((N * ROWS, COLS), jnp.float32),
        grid=(N,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((ROWS, COLS), lambda i: (i, 0)),
        scratch_shapes=[pltpu.VMEM((2, ROWS, COLS), jnp.float32),
                        pltpu.SemaphoreType.DMA((2,))],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=pltpu.InterpretParams(),
    )(x)


def jax_check():
    return stream(jnp.ones((N * ROWS, COLS), jnp.float32))
