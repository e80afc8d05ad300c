"""Triple buffering with `lax.cond` branches: each branch starts its copy on its own
semaphore of a DMA((3,)) array, and the tail is drained in a `pl.when` block."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NBUF = 3
STEPS = 5


def kernel(x_hbm, o_ref, bufs, sems, flags):
    def start(i):
        slot = i % NBUF
        pltpu.make_async_copy(x_hbm.at[i], bufs.at[slot], sems.at[slot]).start()

    for i in range(NBUF - 1):
        start(i)

    def body(i, acc):
        slot = i % NBUF
        lax.cond(
            i + NBUF - 1 < STEPS,
            lambda: start(i + NBUF - 1),
            lambda: pl.semaphore_signal(flags.at[0]),
        )
        pltpu.make_async_copy(x_hbm.at[i], bufs.at[slot], sems.at[slot]).wait()
        return acc + bufs[slot]

    o_ref[...] = lax.fori_loop(0, STEPS, body, jnp.zeros(o_ref.shape, o_ref.dtype))

    @pl.when(STEPS >= NBUF)
    def _():
        pl.semaphore_wait(flags.at[0], NBUF - 1)


def trace():
    x = jnp.ones((STEPS, 8, 128), jnp.float32)
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[
            pltpu.VMEM((NBUF, 8, 128), jnp.float32),
            pltpu.SemaphoreType.DMA((NBUF,)),
            pltpu.SemaphoreType.REGULAR((1,)),
        ],
        interpret=True,
    )(x)
    assert jnp.allclose(out, float(STEPS))
