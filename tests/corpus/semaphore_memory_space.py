"""Semaphore arrays declared through the SEMAPHORE memory space with a dtype instance,
and scalar ones through `MemoryRef` shapes `()`."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NBUF = 2


def kernel(x_hbm, o_ref, buf, sems, out_sem):
    for b in range(NBUF):
        cp = pltpu.make_async_copy(x_hbm.at[b], buf.at[b], sems.at[b])
        cp.start()
        cp.wait()
    done = pltpu.make_async_copy(buf, o_ref, out_sem)
    done.start()
    done.wait()


def trace():
    x = jnp.ones((NBUF, 8, 128), jnp.float32)
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[
            pltpu.VMEM((NBUF, 8, 128), jnp.float32),
            pltpu.SEMAPHORE((NBUF,), pltpu.SemaphoreType.DMA.dtype),
            pltpu.SEMAPHORE((), pltpu.SemaphoreType.DMA.dtype),
        ],
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)
