"""Ring all-gather with remote DMAs -- BUGGY: the SOURCE (send)
semaphore is the whole array.

Each device owns one shard.  In step i every device forwards the shard it received in
step i - 1 to its right neighbour, so after n - 1 steps everyone has every shard.

* `send_sems` / `recv_sems` are `SemaphoreType.DMA((2,))` arrays: one semaphore per
  step parity, selected with `.at[slot]`; `make_async_remote_copy` takes BOTH a send
  (source) and a receive (destination) semaphore, and both must be single semaphores.
* The barrier semaphore from `pltpu.get_barrier_semaphore()` makes sure the
  neighbours have entered the kernel before anyone writes into their memory.

BUG: `send_sem=send_sems` passes the whole DMA((2,)) array.  The receive
semaphore is fine, but `.start()` checks the send semaphore too: JAX raises `Cannot
signal on a non-()-shaped semaphore: (2,)`.  Fix: `send_sems.at[slot]`.

Run it on CPU (TPU interpreter, a 1-device ring):  python examples/ring_all_gather_send_bug.py
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
    left = lax.rem(my_id + num_devices - 1, num_devices)

    barrier = pltpu.get_barrier_semaphore()
    pl.semaphore_signal(barrier, 1, device_id=(left,), device_id_type=pl.DeviceIdType.MESH)
    pl.semaphore_signal(barrier, 1, device_id=(right,), device_id_type=pl.DeviceIdType.MESH)
    pl.semaphore_wait(barrier, 2)

    o_ref[my_id] = x_ref[...]

    def step(i, carry):
        slot = i % 2
        shard = lax.rem(my_id + num_devices - i, num_devices)
        copy = pltpu.make_async_remote_copy(
            src_ref=o_ref.at[shard],
            dst_ref=o_ref.at[shard],
            send_sem=send_sems,
            recv_sem=recv_sems.at[slot],
            device_id=(right,),
            device_id_type=pl.DeviceIdType.MESH,
        )
        copy.start()
        copy.wait()
        return carry

    lax.fori_loop(0, num_devices - 1, step, 0)


def all_gather(x, mesh, interpret):
    n = mesh.shape[AXIS]
    call = pl.pallas_call(
        functools.partial(all_gather_kernel, num_devices=n),
        out_shape=jax.ShapeDtypeStruct((n, *x.shape), x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.SemaphoreType.DMA((2,)), pltpu.SemaphoreType.DMA((2,))],
        compiler_params=pltpu.CompilerParams(collective_id=0),
        interpret=interpret,
    )
    return jax.shard_map(call, mesh=mesh, in_specs=P(None), out_specs=P(None), check_vma=False)(x)


def main():
    mesh = Mesh(np.array(jax.devices()[:1]), (AXIS,))
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    out = jax.jit(lambda v: all_gather(v, mesh, pltpu.InterpretParams()))(x)
    assert out.shape == (1, 8, 128) and jnp.allclose(out[0], x)
    print("ring_all_gather_send_bug: ok")


if __name__ == "__main__":
    main()
