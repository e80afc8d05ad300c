"""Scratch lists built with `*` and `+`, held in a variable before the call.

`[DMA] * 2 + [DMA((N - 1,))]` gives two scalar semaphores and one array; a second
kernel mixes `[VMEM] * 2 + [DMA] * 2 + [REGULAR]`.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

N = 4
DMA = pltpu.SemaphoreType.DMA


def fanout_kernel(x_hbm, o_ref, first_sem, last_sem, rest_sems):
    head = pltpu.make_async_copy(x_hbm.at[0], o_ref.at[0], first_sem)
    head.start()
    head.wait()
    for i in range(1, N - 1):
        cp = pltpu.make_async_copy(x_hbm.at[i], o_ref.at[i], rest_sems.at[i - 1])
        cp.start()
        cp.wait()
    tail = pltpu.make_async_copy(x_hbm.at[N - 1], o_ref.at[N - 1], last_sem)
    tail.start()
    tail.wait()


def mixed_kernel(x_hbm, o_ref, a, b, sem_a, sem_b, counter):
    pltpu.async_copy(x_hbm.at[0], a, sem_a).wait()
    pltpu.async_copy(x_hbm.at[1], b, sem_b).wait()
    pl.semaphore_signal(counter, 2)
    pl.semaphore_wait(counter, 2)
    o_ref[...] = a[...] + b[...]


def trace():
    x = jnp.ones((N, 8, 128), jnp.float32)
    scratch = [DMA] * 2 + [DMA((N - 1,))]
    out = pl.pallas_call(
        fanout_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=scratch,
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)

    mixed = [pltpu.VMEM((8, 128), jnp.float32)] * 2 + [DMA] * 2 + [pltpu.SemaphoreType.REGULAR]
    out = pl.pallas_call(
        mixed_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=mixed,
        interpret=True,
    )(x)
    assert jnp.allclose(out, 2.0)
