"""Bidirectional ring reduce-scatter.

Half of each chunk travels clockwise and half counter-clockwise.  The semaphores are
2-D arrays `DMA((2, 2))` indexed `[direction, slot]`, and REGULAR "capacity"
semaphores tell the sender that the receiver's buffer is free again.
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

AXIS = "ring"
LEFT, RIGHT = 0, 1


def reduce_scatter_kernel(x_ref, o_ref, acc, recv_buf, send_sems, recv_sems, capacity):
    n = lax.axis_size(AXIS)
    me = lax.axis_index(AXIS)
    neighbours = (lax.rem(me - 1 + n, n), lax.rem(me + 1, n))
    acc[...] = x_ref[...]

    def hop(direction, slot):
        peer = neighbours[direction]
        half = pl.ds(direction * 64, 64)
        rdma = pltpu.make_async_remote_copy(
            acc.at[:, half],
            recv_buf.at[slot, :, half],
            send_sems.at[direction, slot],
            recv_sems.at[direction, slot],
            device_id=(peer,),
            device_id_type=pl.DeviceIdType.MESH,
        )
        # Wait until the peer says our target slot is free.
        pl.semaphore_wait(capacity.at[direction], 1)
        rdma.start()
        rdma.wait_send()
        rdma.wait_recv()
        pl.semaphore_signal(
            capacity.at[1 - direction], 1, device_id=(peer,), device_id_type=pl.DeviceIdType.MESH
        )
        acc[:, half] += recv_buf[slot, :, half]

    @pl.loop(0, n - 1)
    def _(step):
        slot = step % 2
        hop(LEFT, slot)
        hop(RIGHT, slot)

    o_ref[...] = acc[...]


def reduce_scatter(x, mesh):
    call = pl.pallas_call(
        reduce_scatter_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[
            pltpu.VMEM(x.shape, x.dtype),
            pltpu.VMEM((2, *x.shape), x.dtype),
            pltpu.SemaphoreType.DMA((2, 2)),
            pltpu.SemaphoreType.DMA((2, 2)),
            pltpu.SemaphoreType.REGULAR((2,)),
        ],
        interpret=True,
    )
    return jax.shard_map(call, mesh=mesh, in_specs=P(None), out_specs=P(None), check_vma=False)(x)


def trace():
    mesh = Mesh(np.array(jax.devices()[:1]), (AXIS,))
    jax.make_jaxpr(lambda v: reduce_scatter(v, mesh))(jnp.ones((8, 128), jnp.float32))
