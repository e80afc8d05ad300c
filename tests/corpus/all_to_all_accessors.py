"""MoE all-to-all: token rows are scattered to expert owners with remote copies whose
semaphores come from accessor calls written inside the DMA argument list."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

EXPERTS = 2


def a2a_kernel(tokens_ref, o_ref, send_sems, recv_sems, gather_sems):
    me = lax.axis_index("ep")
    owner = lax.rem(me + 1, lax.axis_size("ep"))

    def scatter_send_sem(e):
        return send_sems.at[e, 0]

    def scatter_recv_sem(e):
        return recv_sems.at[e].at[0]

    def a2a_gather_sem_ref(e):
        return gather_sems.at[e]

    for e in range(EXPERTS):
        copy = pltpu.make_async_remote_copy(
            tokens_ref.at[e], o_ref.at[e], scatter_send_sem(e), scatter_recv_sem(e),
            device_id=(owner,), device_id_type=pl.DeviceIdType.MESH,
        )
        copy.start()
        copy.wait()
    for e in range(EXPERTS):
        back = pltpu.make_async_copy(o_ref.at[e], tokens_ref.at[e], a2a_gather_sem_ref(e))
        back.start()
        back.wait()


def trace():
    mesh = Mesh(np.array(jax.devices()[:1]), ("ep",))
    call = pl.pallas_call(
        a2a_kernel,
        out_shape=jax.ShapeDtypeStruct((EXPERTS, 8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[
            pltpu.SemaphoreType.DMA((EXPERTS, 2)),
            pltpu.SemaphoreType.DMA((EXPERTS, 1)),
            pltpu.SemaphoreType.DMA((EXPERTS,)),
        ],
        interpret=True,
    )
    f = jax.shard_map(call, mesh=mesh, in_specs=P(), out_specs=P(), check_vma=False)
    jax.make_jaxpr(f)(jnp.ones((EXPERTS, 8, 128), jnp.float32))
