"""One-element semaphore arrays: `DMA((1,))` is still an array, so every use indexes it,
directly (`sem_ref.at[0]`) or through a local view (`recv_sem = sem_ref.at[0]`)."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def gather_kernel(x_hbm, o_ref, buf, sem_ref, flag_ref):
    recv_sem = sem_ref.at[0]
    for row in range(2):
        cp = pltpu.make_async_copy(x_hbm.at[pl.ds(row * 4, 4)], buf.at[pl.ds(row * 4, 4)], recv_sem)
        cp.start()
        cp.wait()
    out = pltpu.make_async_copy(buf, o_ref, sem_ref.at[0])
    out.start()
    out.wait()
    pl.semaphore_signal(flag_ref.at[0, 0], 1)
    pl.semaphore_wait(flag_ref.at[0, 0], 1)


def trace():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    out = pl.pallas_call(
        gather_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[
            pltpu.VMEM((8, 128), jnp.float32),
            pltpu.SemaphoreType.DMA((1,)),
            pltpu.SemaphoreType.REGULAR((1, 1)),
        ],
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)
