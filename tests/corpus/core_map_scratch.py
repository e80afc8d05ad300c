"""`pl.core_map` over a TensorCore mesh with `scratch_shapes`, inside `pl.run_state`; and
a mesh-qualified scalar semaphore `DMA(()) @ mesh` in `pl.kernel` scratch."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def copy_via_core_map(x):
    mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)

    def stateful(refs):
        x_ref, o_ref = refs

        @pl.core_map(mesh, scratch_shapes=[pltpu.SemaphoreType.DMA((2,))], interpret=True)
        def _(sems):
            head = pltpu.make_async_copy(x_ref.at[pl.ds(0, 4)], o_ref.at[pl.ds(0, 4)], sems.at[0])
            tail = pltpu.make_async_copy(x_ref.at[pl.ds(4, 4)], o_ref.at[pl.ds(4, 4)], sems.at[1])
            head.start()
            tail.start()
            head.wait()
            tail.wait()

    return pl.run_state(stateful)((x, jnp.zeros_like(x)))[1]


def mesh_sem_body(x_hbm, o_hbm, sem):
    cp = pltpu.make_async_copy(x_hbm, o_hbm, sem)
    cp.start()
    cp.wait()


def trace():
    x = jnp.ones((8, 128), jnp.float32)
    jax.make_jaxpr(copy_via_core_map)(x)
    mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)
    out = pl.kernel(
        mesh_sem_body,
        out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
        mesh=mesh,
        scratch_types=[pltpu.SemaphoreType.DMA(()) @ mesh],
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)
