"""An inner pipeline built with `emit_pipeline_with_allocations`: its buffers are
allocated once by the outer kernel (`pl.run_scoped` over `make_allocations`), its body
closes over the outer kernel's semaphore array and indexes it by the buffer slot; a
staging buffer made with `pl.empty_ref_like`."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS = 8  # one block: multi-block pipelines need TPU tiling info, absent on CPU


def make_pipeline(h_hbm, h_vmem, load_sems):
    def body(x_blk, o_blk):
        slot = pl.program_id(0) % 2
        load = pltpu.make_async_copy(h_hbm, h_vmem.at[slot], load_sems.at[slot])
        load.start()
        load.wait()
        o_blk[...] = x_blk[...] + h_vmem[slot]

    return pltpu.emit_pipeline_with_allocations(
        body,
        grid=(ROWS // 8,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
    )


def outer_kernel(x_hbm, h_hbm, o_hbm, h_vmem, load_sems, sems):
    pipeline, make_allocations = make_pipeline(h_hbm, h_vmem, load_sems)
    pl.run_scoped(
        lambda allocations: pipeline(x_hbm, o_hbm, allocations=allocations),
        make_allocations(x_hbm, o_hbm),
    )
    staging = pl.empty_ref_like(pltpu.VMEM((8, 128), jnp.float32))
    fetch = pltpu.make_async_copy(h_hbm, staging, sems.at[0])
    fetch.start()
    fetch.wait()
    back = pltpu.make_async_copy(staging, h_hbm, sems.at[1])
    back.start()
    back.wait()


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
