"""Ring all-gather with remote DMAs (the classic distributed-Pallas example).

Every device forwards the shard it received in the previous step to its right
neighbour.  send/recv semaphores are DMA((2,)) arrays indexed by the step parity, and
the barrier semaphore from `get_barrier_semaphore()` handshakes with the neighbours.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

AXIS = "x"


def all_gather_kernel(x_ref, o_ref, send_sems, recv_sems, *, num_devices):
    my_id = lax.axis_index(AXIS)
    right = lax.rem(my_id + 1, num_devices)
    left = lax.rem(my_id - 1 + num_devices, num_devices)

    barrier = pltpu.get_barrier_semaphore()
    pl.semaphore_signal(barrier, 1, device_id=(left,), device_id_type=pl.DeviceIdType.MESH)
    pl.semaphore_signal(barrier, 1, device_id=(right,), device_id_type=pl.DeviceIdType.MESH)
    pl.semaphore_wait(barrier, 2)

    o_ref[my_id] = x_ref[...]

    def step(i, carry):
        slot = i % 2
        src = lax.rem(my_id - i + num_devices, num_devices)
        copy = pltpu.make_async_remote_copy(
            src_ref=o_ref.at[src],
            dst_ref=o_ref.at[src],
            send_sem=send_sems.at[slot],
            recv_sem=recv_sems.at[slot],
            device_id=(right,),
            device_id_type=pl.DeviceIdType.MESH,
        )
        copy.start()
        copy.wait()
        return carry

    lax.fori_loop(0, num_devices - 1, step, 0)


def all_gather(x, mesh):
    n = mesh.shape[AXIS]
    call = pl.pallas_call(
        functools.partial(all_gather_kernel, num_devices=n),
        out_shape=jax.ShapeDtypeStruct((n, *x.shape), x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.SemaphoreType.DMA((2,)), pltpu.SemaphoreType.DMA((2,))],
        compiler_params=pltpu.CompilerParams(collective_id=0),
        interpret=True,
    )
    return jax.shard_map(call, mesh=mesh, in_specs=P(None), out_specs=P(None), check_vma=False)(x)


def trace():
    mesh = Mesh(np.array(jax.devices()[:1]), (AXIS,))
    x = jnp.ones((8, 128), jnp.float32)
    # Remote DMAs only trace on CPU (running them needs the TPU interpreter).
    jax.make_jaxpr(lambda v: all_gather(v, mesh))(x)
