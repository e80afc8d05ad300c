"""Cores of a TensorCore mesh sync with `pltpu.core_barrier` on one REGULAR semaphore
taken from an array, then each copies its half."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def body(x_hbm, o_hbm, barriers, sems):
    core = jax.lax.axis_index("core")
    pltpu.core_barrier(barriers.at[0], core_axis_name="core")
    cp = pltpu.make_async_copy(x_hbm.at[core], o_hbm.at[core], sems.at[core])
    cp.start()
    cp.wait()
    pltpu.core_barrier(barriers.at[1], core_axis_name="core")


def trace():
    mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)
    x = jnp.ones((1, 8, 128), jnp.float32)
    call = pl.kernel(
        body,
        out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
        mesh=mesh,
        scratch_types=[pltpu.SemaphoreType.REGULAR((2,)), pltpu.SemaphoreType.DMA((1,))],
        interpret=True,
    )
    # make_jaxpr: the generic interpreter does not bind the mesh axis for axis_index.
    jax.make_jaxpr(call)(x)
