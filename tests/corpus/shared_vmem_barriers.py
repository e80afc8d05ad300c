"""Cores of a TensorCore mesh stage a block through `VMEM_SHARED` and meet at
`core_barrier`s on BARRIER semaphores, one per phase, taken from an array."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

PHASES = 2


def body(x_hbm, o_hbm, staging, barriers, sems):
    core = jax.lax.axis_index("core")
    load = pltpu.make_async_copy(x_hbm.at[core], staging.at[core], sems.at[0])
    load.start()
    load.wait()
    pltpu.core_barrier(barriers.at[0], core_axis_name="core")
    store = pltpu.make_async_copy(staging.at[core], o_hbm.at[core], sems.at[1])
    store.start()
    store.wait()
    pltpu.core_barrier(barriers.at[PHASES - 1], core_axis_name="core")


def trace():
    mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)
    x = jnp.ones((1, 8, 128), jnp.float32)
    call = pl.kernel(
        body,
        out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
        mesh=mesh,
        scratch_types=[
            pltpu.VMEM_SHARED((1, 8, 128), jnp.float32),
            pltpu.SemaphoreType.BARRIER((PHASES,)),
            pltpu.SemaphoreType.DMA((2,)),
        ],
        interpret=True,
    )
    # make_jaxpr: the generic interpreter does not bind the mesh axis for axis_index.
    jax.make_jaxpr(call)(x)
