"""Collective matmul: each step multiplies the LHS chunk it holds while sending it to the
right neighbour; the receiver tells the sender its buffer is free again with a REGULAR
semaphore signalled remotely.  Single scalar DMA semaphores (bare `DMA`)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

AXIS = "model"


def matmul_kernel(lhs_ref, rhs_ref, o_ref, lhs_bufs, send_sem, recv_sem, free_sems):
    n = lax.axis_size(AXIS)
    me = lax.axis_index(AXIS)
    right = lax.rem(me + 1, n)
    left = lax.rem(me + n - 1, n)
    lhs_bufs[0] = lhs_ref[...]
    o_ref[...] = jnp.zeros(o_ref.shape, o_ref.dtype)

    def step(i, carry):
        cur = i % 2
        nxt = 1 - cur
        rdma = pltpu.make_async_remote_copy(
            lhs_bufs.at[cur], lhs_bufs.at[nxt], send_sem, recv_sem,
            device_id=(right,), device_id_type=pl.DeviceIdType.MESH,
        )
        pl.semaphore_wait(free_sems.at[nxt], 1)
        rdma.start()
        o_ref[...] += jnp.dot(lhs_bufs[cur], rhs_ref[...], preferred_element_type=jnp.float32)
        rdma.wait()
        pl.semaphore_signal(free_sems.at[cur], 1, device_id=(left,),
                            device_id_type=pl.DeviceIdType.MESH)
        return carry

    lax.fori_loop(0, n, step, 0)


def trace():
    mesh = Mesh(np.array(jax.devices()[:1]), (AXIS,))
    call = pl.pallas_call(
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)] * 2,
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[
            pltpu.VMEM((2, 8, 128), jnp.float32),
            pltpu.SemaphoreType.DMA,
            pltpu.SemaphoreType.DMA,
            pltpu.SemaphoreType.REGULAR((2,)),
        ],
        interpret=True,
    )
    f = jax.shard_map(call, mesh=mesh, in_specs=(P(), P()), out_specs=P(), check_vma=False)
    jax.make_jaxpr(f)(jnp.ones((8, 128), jnp.float32), jnp.ones((128, 128), jnp.float32))
