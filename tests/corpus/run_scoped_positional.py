"""`pl.run_scoped` with positional types: a VMEM buffer, a DMA((4,)) array and a
REGULAR((3,)) array, plus a tuple-typed pytree of scalar semaphores."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

CHUNKS = 4


def chunked_copy_kernel(x_hbm, o_ref):
    def scoped(buf, sems, flags):
        copies = [
            pltpu.make_async_copy(x_hbm.at[pl.ds(c * 2, 2)], buf.at[c], sems.at[c])
            for c in range(CHUNKS)
        ]
        for cp in copies:
            cp.start()
        for c, cp in enumerate(copies):
            cp.wait()
            pl.semaphore_signal(flags.at[c % 3])
            pl.semaphore_wait(flags.at[c % 3])
        o_ref[...] = buf[...].reshape(o_ref.shape)

    pl.run_scoped(
        scoped,
        pltpu.VMEM((CHUNKS, 2, 128), jnp.float32),
        pltpu.SemaphoreType.DMA((CHUNKS,)),
        pltpu.SemaphoreType.REGULAR((3,)),
    )

    def pair(sems):
        first, second = sems
        a = pltpu.make_async_copy(x_hbm.at[pl.ds(0, 8)], o_ref, first)
        b = pltpu.make_async_copy(x_hbm.at[pl.ds(0, 8)], o_ref, second)
        a.start()
        b.start()
        a.wait()
        b.wait()

    pl.run_scoped(pair, (pltpu.SemaphoreType.DMA, pltpu.SemaphoreType.DMA(())))


def trace():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    out = pl.pallas_call(
        chunked_copy_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)
