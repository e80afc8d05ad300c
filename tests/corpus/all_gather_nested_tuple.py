"""All-gather whose scratch holds nested tuples of scalar semaphores.

`scratch_shapes=[((DMA, DMA), (DMA, DMA))]` arrives as ONE kernel parameter that is
a Python tuple of tuples, so `sems[0][1]` is tuple indexing of scalar semaphores.
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

DMA = pltpu.SemaphoreType.DMA


def gather_kernel(x_ref, o_ref, sems):
    send_sem, recv_sem = sems
    me = lax.axis_index("d")
    peer = lax.rem(me + 1, lax.axis_size("d"))
    o_ref[0] = x_ref[...]
    for hop in range(2):
        copy = pltpu.make_async_remote_copy(
            o_ref.at[hop], o_ref.at[hop + 1], send_sem[hop], recv_sem[hop],
            device_id=(peer,), device_id_type=pl.DeviceIdType.MESH,
        )
        copy.start()
        copy.wait()


def trace():
    mesh = Mesh(np.array(jax.devices()[:1]), ("d",))
    call = pl.pallas_call(
        gather_kernel,
        out_shape=jax.ShapeDtypeStruct((3, 8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[((DMA, DMA), (DMA, DMA))],
        interpret=True,
    )
    f = jax.shard_map(call, mesh=mesh, in_specs=P(None), out_specs=P(None), check_vma=False)
    jax.make_jaxpr(f)(jnp.ones((8, 128), jnp.float32))
