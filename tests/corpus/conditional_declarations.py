"""Semaphore declarations chosen by static configuration.

`dma_scope = DMA((2,) if fits_one_window else (3,))` is held in a variable and put
into the scratch list later; `bank_sems` is `DMA((banks, n))` or `DMA((n,))` depending
on a flag, and the kernel indexes it to a single semaphore on both paths.  A `None`
placeholder keeps the parameter positions stable.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

N = 2
BANKS = 2


def window_kernel(x_hbm, o_ref, buf, window_sems, unused, bank_sems, *, banked, windows):
    del unused
    for w in range(windows):
        cp = pltpu.make_async_copy(x_hbm.at[w % N], buf.at[w % N], window_sems.at[w])
        cp.start()
        cp.wait()
    for i in range(N):
        sem = bank_sems.at[i % BANKS, i] if banked else bank_sems.at[i]
        cp = pltpu.make_async_copy(buf.at[i], o_ref.at[i], sem)
        cp.start()
        cp.wait()


def run(x, fits_one_window, banked):
    dma_scope = pltpu.SemaphoreType.DMA((2,) if fits_one_window else (3,))
    if banked:
        bank_sems = pltpu.SemaphoreType.DMA((BANKS, N))
    else:
        bank_sems = pltpu.SemaphoreType.DMA((N,))
    scratch = [pltpu.VMEM(x.shape, x.dtype), dma_scope, None, bank_sems]
    kernel = functools.partial(
        window_kernel, banked=banked, windows=2 if fits_one_window else 3
    )
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=scratch,
        interpret=True,
    )(x)


def trace():
    x = jnp.arange(N * 8 * 128, dtype=jnp.float32).reshape(N, 8, 128)
    for fits in (True, False):
        for banked in (True, False):
            assert jnp.allclose(run(x, fits, banked), x)
