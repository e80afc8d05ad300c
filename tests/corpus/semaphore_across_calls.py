"""Semaphores that cross `pallas_call` boundaries (async start / done pairs).

The first call starts a DMA and returns its semaphore as an output
(`out_shape` holds `SemaphoreType.DMA(())`, its spec lives in `pltpu.SEMAPHORE`); the
second call receives that semaphore as an input and waits on it.  A tuple
`(DMA(()),) * 2` output shows semaphores used by Python tuple index.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ANY = pl.BlockSpec(memory_space=pl.ANY)
SEM = pl.BlockSpec(memory_space=pltpu.SEMAPHORE)


def copy_start_kernel(x_ref, aliased_x_ref, o_ref, sem):
    del aliased_x_ref
    pltpu.make_async_copy(x_ref, o_ref, sem).start()


def copy_start(x):
    return pl.pallas_call(
        copy_start_kernel,
        out_shape=(
            jax.ShapeDtypeStruct(x.shape, x.dtype),
            jax.ShapeDtypeStruct(x.shape, x.dtype),
            pltpu.SemaphoreType.DMA(()),
        ),
        in_specs=[ANY],
        out_specs=(ANY, ANY, SEM),
        input_output_aliases={0: 0},
        interpret=True,
    )(x)


def copy_done_kernel(x_ref, o_ref, sem, aliased_o_ref):
    del aliased_o_ref
    pltpu.make_async_copy(x_ref, o_ref, sem).wait()


def copy_done(x, out, sem):
    return pl.pallas_call(
        copy_done_kernel,
        out_shape=jax.ShapeDtypeStruct(out.shape, out.dtype),
        in_specs=[ANY, ANY, SEM],
        out_specs=ANY,
        input_output_aliases={1: 0},
        interpret=True,
    )(x, out, sem)


def two_sem_start_kernel(x_ref, aliased_x_ref, o_ref, right_sems):
    del aliased_x_ref
    pltpu.make_async_copy(x_ref.at[0], o_ref.at[0], right_sems[0]).start()
    pltpu.make_async_copy(x_ref.at[1], o_ref.at[1], right_sems[1]).start()


def two_sem_start(x):
    return pl.pallas_call(
        two_sem_start_kernel,
        out_shape=(
            jax.ShapeDtypeStruct(x.shape, x.dtype),
            jax.ShapeDtypeStruct(x.shape, x.dtype),
            (pltpu.SemaphoreType.DMA(()),) * 2,
        ),
        in_specs=[ANY],
        out_specs=(ANY, ANY, (SEM, SEM)),
        input_output_aliases={0: 0},
        interpret=True,
    )(x)


def trace():
    x = jnp.ones((2, 8, 128), jnp.float32)

    def roundtrip(v):
        v, out, sem = copy_start(v)
        return copy_done(v, out, sem)

    jax.make_jaxpr(roundtrip)(x)
    jax.make_jaxpr(two_sem_start)(x)
