"""DMA and signalling helpers defined next to the kernel (ragged-paged-attention style).

`_async_copy(src, dst, sem, wait)` receives one semaphore from each caller;
`_signal(sem)` pings a REGULAR semaphore given to it.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def _async_copy(src, dst, sem, wait):
    cp = pltpu.make_async_copy(src, dst, sem)
    if wait:
        cp.wait()
    else:
        cp.start()
    return cp


def _signal(sem, times=1):
    pl.semaphore_signal(sem, times)
    pl.semaphore_wait(sem, times)


def kv_kernel(k_hbm, v_hbm, o_ref, k_buf, v_buf, sems, ready):
    bkv_sem_idx = pl.program_id(0) % 2
    _async_copy(k_hbm, k_buf, sems.at[0, bkv_sem_idx], wait=False)
    _async_copy(v_hbm, v_buf, sems.at[1, bkv_sem_idx], wait=False)
    _async_copy(k_hbm, k_buf, sems.at[0, bkv_sem_idx], wait=True)
    _async_copy(v_hbm, v_buf, sems.at[1, bkv_sem_idx], wait=True)
    _signal(ready.at[bkv_sem_idx])
    o_ref[...] = k_buf[...] + v_buf[...]


def trace():
    k = jnp.ones((8, 128), jnp.float32)
    v = jnp.full((8, 128), 2.0, jnp.float32)
    out = pl.pallas_call(
        kv_kernel,
        grid=(2,),
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)] * 2,
        out_specs=pl.BlockSpec((8, 128), lambda i: (0, 0)),
        scratch_shapes=[
            pltpu.VMEM((8, 128), jnp.float32),
            pltpu.VMEM((8, 128), jnp.float32),
            pltpu.SemaphoreType.DMA((2, 2)),
            pltpu.SemaphoreType.REGULAR((2,)),
        ],
        interpret=True,
    )(k, v)
    assert jnp.allclose(out, 3.0)
