"""Remote copies and signals addressed with a dict `device_id` over a 2-axis mesh,
with per-axis semaphore arrays `DMA((2, n))` chosen by axis and step."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

AXES = ("dx", "dy")
STEPS = 2


def exchange_kernel(x_ref, o_ref, send_sems, recv_sems, ready):
    for axis_i, axis in enumerate(AXES):
        peer = lax.rem(lax.axis_index(axis) + 1, lax.axis_size(axis))
        target = {axis: peer}
        pl.semaphore_signal(ready.at[axis_i], 1, device_id=target,
                            device_id_type=pl.DeviceIdType.MESH)
        pl.semaphore_wait(ready.at[axis_i], 1)
        for step in range(STEPS):
            rdma = pltpu.make_async_remote_copy(
                x_ref.at[step], o_ref.at[axis_i, step],
                send_sems.at[axis_i, step], recv_sems.at[axis_i, step],
                device_id=target, device_id_type=pl.DeviceIdType.MESH,
            )
            rdma.start()
            rdma.wait()


def trace():
    mesh = Mesh(np.array(jax.devices()[:1]).reshape(1, 1), AXES)
    call = pl.pallas_call(
        exchange_kernel,
        out_shape=jax.ShapeDtypeStruct((2, STEPS, 8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[
            pltpu.SemaphoreType.DMA((2, STEPS)),
            pltpu.SemaphoreType.DMA((2, STEPS)),
            pltpu.SemaphoreType.REGULAR((2,)),
        ],
        interpret=True,
    )
    f = jax.shard_map(call, mesh=mesh, in_specs=P(), out_specs=P(), check_vma=False)
    jax.make_jaxpr(f)(jnp.ones((STEPS, 8, 128), jnp.float32))
