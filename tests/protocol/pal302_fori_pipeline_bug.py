"""Double a (32, 128) HBM activation in four (8, 128) chunks inside one kernel call: a
`lax.fori_loop` pipeline that prefetches chunk `i + 1` (guarded by `i + 1 < N`) into the
other buffer slot while chunk `i` is processed.

Bug: because the body prefetches `i + 1`, the author stopped the loop at `N - 1`; the
prefetch of the last chunk, started in the last iteration, is never waited (and the last
chunk never processed).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

N, ROWS, COLS = 4, 8, 128


def pipeline_kernel(x_hbm, o_ref, buf, sems):
    def fetch(chunk, slot):
        return pltpu.make_async_copy(x_hbm.at[pl.ds(chunk * ROWS, ROWS)], buf.at[slot], sems.at[slot])

    fetch(0, 0).start()

    def body(i, carry):
        slot = i % 2

        @pl.when(i + 1 < N)
        def _():
            fetch(i + 1, 1 - slot).start()  # expect: PAL302

        fetch(i, slot).wait()
        o_ref[pl.ds(pl.multiple_of(i * ROWS, ROWS), ROWS), :] = buf[slot] * 2.0
        return carry

    jax.lax.fori_loop(0, N - 1, body, 0)


def double(x):
    return pl.pallas_call(
        pipeline_kernel,
        out_shape=jax.ShapeDtypeStruct((N * ROWS, COLS), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((2, ROWS, COLS), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
        interpret=pltpu.InterpretParams(dma_execution_mode="eager"),
    )(x)


def jax_check():
    return double(jnp.ones((N * ROWS, COLS), jnp.float32))
