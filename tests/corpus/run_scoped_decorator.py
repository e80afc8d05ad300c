"""`@functools.partial(pl.run_scoped, ...)` decorators: the scoped body runs right away.

One scope allocates a single barrier-style REGULAR semaphore, the other a DMA((2,))
array used slot by slot.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def two_phase_kernel(x_hbm, o_ref, buf):
    @functools.partial(pl.run_scoped, sem=pltpu.SemaphoreType.DMA)
    def _(sem):
        pltpu.async_copy(x_hbm, buf, sem).wait()

    @functools.partial(pl.run_scoped, second_barrier=pltpu.SemaphoreType.REGULAR)
    def _(second_barrier):
        pl.semaphore_signal(second_barrier, 1)
        pl.semaphore_wait(second_barrier, 1)

    @functools.partial(pl.run_scoped, sems=pltpu.SemaphoreType.DMA((2,)))
    def _(sems):
        halves = [
            pltpu.make_async_copy(buf.at[pl.ds(4 * h, 4)], o_ref.at[pl.ds(4 * h, 4)], sems.at[h])
            for h in range(2)
        ]
        for cp in halves:
            cp.start()
        for cp in halves:
            cp.wait()


def trace():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    out = pl.pallas_call(
        two_phase_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)],
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)
