"""Descriptors in lists: one built per block in an unrolled loop (`copies.append(...)`)
plus one after it, and a helper that returns the blocked list on one path and a single
copy on the other; every descriptor is started and waited by iterating the list."""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 8, 128


def ring_kernel(x_hbm, o_ref, ring, sems, *, blocked):
    def block_transfers(slot):
        copies = []
        for row in (0, 1):
            copies.append(pltpu.make_async_copy(x_hbm.at[row], ring.at[row], sems.at[slot, len(copies)]))
        copies.append(pltpu.make_async_copy(x_hbm.at[2], ring.at[2], sems.at[slot, 2]))
        return copies

    def transfers(slot):
        if blocked:
            return block_transfers(slot)
        return [pltpu.make_async_copy(x_hbm, ring, sems.at[slot, 0])]

    for copy in transfers(1):
        copy.start()
    for copy in transfers(1):
        copy.wait()
    o_ref[...] = ring[0] + ring[1] + ring[2]


def trace():
    x = jnp.ones((3, ROWS, COLS), jnp.float32)
    for blocked in (True, False):
        out = pl.pallas_call(
            functools.partial(ring_kernel, blocked=blocked),
            out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
            in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
            out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
            scratch_shapes=[pltpu.VMEM((3, ROWS, COLS), jnp.float32), pltpu.SemaphoreType.DMA((2, 3))],
            interpret=True,
        )(x)
        assert jnp.allclose(out, 3.0)


if __name__ == "__main__":
    trace()
