"""Ragged paged attention style: which semaphore a KV / Q copy uses is kept in an SMEM
scratch (`sem_ids_ref`) and read back when the copy is waited, one step later."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

STEPS = 3


def _async_copy(src, dst, sem, wait):
    cp = pltpu.make_async_copy(src, dst, sem)
    if wait:
        cp.wait()
    else:
        cp.start()


def ragged_kernel(kv_hbm, q_hbm, o_ref, kv_buf, q_buf, sems, sem_ids_ref):
    def fetch(step, wait):
        bkv_sem_idx = sem_ids_ref[0]
        bq_sem_idx = sem_ids_ref[1]
        _async_copy(kv_hbm.at[step], kv_buf.at[bkv_sem_idx], sems.at[0, bkv_sem_idx], wait)
        _async_copy(q_hbm.at[step], q_buf.at[bq_sem_idx], sems.at[1, bq_sem_idx], wait)

    sem_ids_ref[0] = 0
    sem_ids_ref[1] = 0
    fetch(0, wait=False)

    def body(step, acc):
        cur = sem_ids_ref[0]
        fetch(step, wait=True)
        out = acc + kv_buf[cur] * q_buf[cur]

        @pl.when(step + 1 < STEPS)
        def _():
            sem_ids_ref[0] = 1 - cur
            sem_ids_ref[1] = 1 - cur
            fetch(step + 1, wait=False)

        return out

    o_ref[...] = lax.fori_loop(0, STEPS, body, jnp.zeros(o_ref.shape, o_ref.dtype))


def trace():
    kv = jnp.full((STEPS, 8, 128), 2.0, jnp.float32)
    q = jnp.full((STEPS, 8, 128), 3.0, jnp.float32)
    out = pl.pallas_call(
        ragged_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)] * 2,
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[
            pltpu.VMEM((2, 8, 128), jnp.float32),
            pltpu.VMEM((2, 8, 128), jnp.float32),
            pltpu.SemaphoreType.DMA((2, 2)),
            pltpu.SMEM((2,), jnp.int32),
        ],
        interpret=True,
    )(kv, q)
    assert jnp.allclose(out, 6.0 * STEPS)
