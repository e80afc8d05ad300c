"""Process a (32, 128) block in four (8, 128) chunks in a `lax.fori_loop`; each chunk
signals a REGULAR progress semaphore, and the epilogue waits for the chunks before
summing the staged result.

The epilogue waits for all four signals at once (`pl.semaphore_wait(progress, N)`).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

N, ROWS, COLS = 4, 8, 128


def chunks_kernel(x_ref, o_ref, stage, progress):
    def chunk(i, carry):
        rows = pl.ds(pl.multiple_of(i * ROWS, ROWS), ROWS)
        stage[rows, :] = x_ref[rows, :] * 2.0
        pl.semaphore_signal(progress)
        return carry

    jax.lax.fori_loop(0, N, chunk, 0)
    pl.semaphore_wait(progress, N)
    o_ref[...] = stage[...] + 1.0


def chunks(x):
    return pl.pallas_call(
        chunks_kernel,
        out_shape=jax.ShapeDtypeStruct((N * ROWS, COLS), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((N * ROWS, COLS), jnp.float32), pltpu.SemaphoreType.REGULAR],
        interpret=pltpu.InterpretParams(),
    )(x)


def jax_check():
    return chunks(jnp.ones((N * ROWS, COLS), jnp.float32))
