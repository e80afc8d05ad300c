"""An outer kernel runs an inner `emit_pipeline` and hands it semaphore arrays.

`scratches=[h_load_sems, h_store_sems]` arrive as the trailing parameters of the
pipeline body under new names, where they are indexed by the buffer slot.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS = 8  # one block: multi-block pipelines need TPU tiling info, absent on CPU


def outer_kernel(x_hbm, h_hbm, o_hbm, h_vmem, h_load_sems, h_store_sems):
    def body(x_blk, o_blk, h_load_sems_s, h_store_sems_s):
        buf_idx = pl.program_id(0) % 2
        load = pltpu.make_async_copy(h_hbm, h_vmem.at[buf_idx], h_load_sems_s.at[buf_idx])
        load.start()
        load.wait()
        o_blk[...] = x_blk[...] + h_vmem[buf_idx]
        # Publish the running state back to HBM (same value, so no race).
        store = pltpu.make_async_copy(h_vmem.at[buf_idx], h_hbm, h_store_sems_s.at[buf_idx])
        store.start()
        store.wait()

    pltpu.emit_pipeline(
        body,
        grid=(ROWS // 8,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
    )(x_hbm, o_hbm, scratches=[h_load_sems, h_store_sems])


def trace():
    x = jnp.ones((ROWS, 128), jnp.float32)
    h = jnp.full((8, 128), 5.0, jnp.float32)
    out = pl.pallas_call(
        outer_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)] * 2,
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[
            pltpu.VMEM((2, 8, 128), jnp.float32),
            pltpu.SemaphoreType.DMA((2,)),
            pltpu.SemaphoreType.DMA((2,)),
        ],
        interpret=True,
    )(x, h)
    assert jnp.allclose(out, 6.0)
