"""Fused-MoE style all-to-all staging with 2-D semaphore arrays.

`local_sems` is DMA((NUM_BUFFERS, 2)): indexed `.at[buf, 0]` for the weight load and
`.at[buf].at[1]` (a chained view) for the activation load.  A REGULAR((E, 2)) array
counts finished experts.
"""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NUM_BUFFERS = 2
EXPERTS = 3


def fused_moe_kernel(w_hbm, x_hbm, o_ref, w_buf, x_buf, local_sems, done_sems):
    def load(e):
        buf_id = e % NUM_BUFFERS
        w_copy = pltpu.make_async_copy(w_hbm.at[e], w_buf.at[buf_id], local_sems.at[buf_id, 0])
        x_sems = local_sems.at[buf_id]
        x_copy = pltpu.make_async_copy(x_hbm.at[e], x_buf.at[buf_id], x_sems.at[1])
        return w_copy, x_copy

    def expert(e, acc):
        w_copy, x_copy = load(e)
        w_copy.start()
        x_copy.start()
        w_copy.wait()
        x_copy.wait()
        buf_id = e % NUM_BUFFERS
        pl.semaphore_signal(done_sems.at[e, 0])
        pl.semaphore_wait(done_sems.at[e].at[0], 1)
        return acc + w_buf[buf_id] * x_buf[buf_id]

    o_ref[...] = lax.fori_loop(0, EXPERTS, expert, jnp.zeros(o_ref.shape, o_ref.dtype))


def trace():
    w = jnp.full((EXPERTS, 8, 128), 2.0, jnp.float32)
    x = jnp.ones((EXPERTS, 8, 128), jnp.float32)
    out = pl.pallas_call(
        fused_moe_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)] * 2,
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[
            pltpu.VMEM((NUM_BUFFERS, 8, 128), jnp.float32),
            pltpu.VMEM((NUM_BUFFERS, 8, 128), jnp.float32),
            pltpu.SemaphoreType.DMA((NUM_BUFFERS, 2)),
            pltpu.SemaphoreType.REGULAR((EXPERTS, 2)),
        ],
        interpret=True,
    )(w, x)
    assert jnp.allclose(out, 2.0 * EXPERTS)
