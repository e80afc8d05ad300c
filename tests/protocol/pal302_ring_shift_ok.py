"""Ring shift over two devices: inside `jax.shard_map`, each device sends its (8, 128)
block to its right neighbour's output with `pltpu.make_async_remote_copy` (a send and a
receive DMA semaphore).

The remote copy's `.wait()` waits both halves: `wait_send()` (the outgoing block has
left) and `wait_recv()` (the incoming block has landed).

Needs two devices: the runner sets `--xla_force_host_platform_device_count=2`.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

DEVICES, ROWS, COLS = 2, 8, 128


def shift_kernel(x_hbm, o_hbm, send_sem, recv_sem):
    right = (jax.lax.axis_index("x") + 1) % DEVICES
    copy = pltpu.make_async_remote_copy(x_hbm, o_hbm, send_sem, recv_sem, device_id=(right,),
                                        device_id_type=pl.DeviceIdType.MESH)
    copy.start()
    copy.wait()


def shift_block(x):
    return pl.pallas_call(
        shift_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[pltpu.SemaphoreType.DMA, pltpu.SemaphoreType.DMA],
        interpret=pltpu.InterpretParams(dma_execution_mode="eager"),
    )(x)


def jax_check():
    mesh = Mesh(jax.devices()[:DEVICES], ("x",))
    ring = jax.jit(jax.shard_map(shift_block, mesh=mesh, in_specs=P("x"), out_specs=P("x"),
                                 check_vma=False))
    x = jax.device_put(jnp.ones((DEVICES * ROWS, COLS), jnp.float32), NamedSharding(mesh, P("x")))
    return ring(x)
