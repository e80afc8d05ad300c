"""Functional remote copies: `pltpu.async_remote_copy` starts immediately and returns a
descriptor; semaphores are passed by keyword and come from a 2-D array."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P


def shift_kernel(x_ref, o_ref, sems):
    me = lax.axis_index("x")
    peer = lax.rem(me + 1, lax.axis_size("x"))
    for chunk in range(2):
        desc = pltpu.async_remote_copy(
            x_ref.at[chunk],
            o_ref.at[chunk],
            send_sem=sems.at[0, chunk],
            recv_sem=sems.at[1, chunk],
            device_id=(peer,),
            device_id_type=pl.DeviceIdType.MESH,
        )
        desc.wait_send()
        desc.wait_recv()


def trace():
    mesh = Mesh(np.array(jax.devices()[:1]), ("x",))
    call = pl.pallas_call(
        shift_kernel,
        out_shape=jax.ShapeDtypeStruct((2, 8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.SemaphoreType.DMA((2, 2))],
        interpret=True,
    )
    f = jax.shard_map(call, mesh=mesh, in_specs=P(None), out_specs=P(None), check_vma=False)
    jax.make_jaxpr(f)(jnp.ones((2, 8, 128), jnp.float32))
