"""Semaphores handed down a chain of helpers, and a bounded recursive splitter.

`stage -> issue -> _copy` pass the array and the slot separately; the innermost helper
indexes it.  `split_copy` recurses on halves of the block with a static depth and
selects the semaphore of each leaf with a 2-D index.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

DEPTH = 2


def _copy(src, dst, sems, slot):
    cp = pltpu.make_async_copy(src, dst, sems.at[slot])
    cp.start()
    return cp


def issue(src, dst, sems, slot):
    return _copy(src, dst, sems, slot)


def stage(x_hbm, buf, sems):
    copies = [issue(x_hbm.at[s], buf.at[s], sems, s) for s in range(2)]
    for cp in copies:
        cp.wait()


def split_copy(src, dst, leaf_sems, depth, index, rows):
    if depth == 0:
        leaf = pltpu.make_async_copy(src, dst, leaf_sems.at[index // 2, index % 2])
        leaf.start()
        leaf.wait()
        return
    half = rows // 2
    split_copy(src.at[pl.ds(0, half)], dst.at[pl.ds(0, half)], leaf_sems, depth - 1, 2 * index, half)
    split_copy(src.at[pl.ds(half, half)], dst.at[pl.ds(half, half)], leaf_sems, depth - 1,
               2 * index + 1, half)


def kernel(x_hbm, o_ref, buf, sems, leaf_sems):
    stage(x_hbm, buf, sems)
    split_copy(buf.at[0], o_ref, leaf_sems, DEPTH, 0, 8)


def trace():
    x = jnp.arange(2 * 8 * 128, dtype=jnp.float32).reshape(2, 8, 128)
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[
            pltpu.VMEM((2, 8, 128), jnp.float32),
            pltpu.SemaphoreType.DMA((2,)),
            pltpu.SemaphoreType.DMA((2, 2)),
        ],
        interpret=True,
    )(x)
    assert jnp.allclose(out, x[0])
