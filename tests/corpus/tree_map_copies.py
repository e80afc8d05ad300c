"""Copies started and waited through pytrees: `jax.tree.map` over a list of descriptors,
and `jax.tree_util.tree_map` over a dict of (buffer, semaphore) leaves."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 8, 128


def gather_kernel(x_hbm, o_ref, bufs, sems):
    copies = [pltpu.make_async_copy(x_hbm.at[i], bufs.at[i], sems.at[i]) for i in range(2)]
    jax.tree.map(lambda copy: copy.start(), copies)
    jax.tree.map(lambda copy: copy.wait(), copies)
    o_ref[...] = bufs[0] + bufs[1]


def pair_kernel(a_hbm, b_hbm, o_ref, a_buf, b_buf, sems):
    srcs = {"a": a_hbm, "b": b_hbm}
    dsts = {"a": a_buf, "b": b_buf}
    slots = {"a": sems.at[0], "b": sems.at[1]}
    copies = jax.tree_util.tree_map(pltpu.make_async_copy, srcs, dsts, slots)
    for copy in copies.values():
        copy.start()
    jax.tree_util.tree_map(lambda copy: copy.wait(), copies)
    o_ref[...] = a_buf[...] - b_buf[...]


def trace():
    x = jnp.ones((2, ROWS, COLS), jnp.float32)
    out = pl.pallas_call(
        gather_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((2, ROWS, COLS), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
        interpret=True,
    )(x)
    assert jnp.allclose(out, 2.0)
    a = jnp.full((ROWS, COLS), 3.0, jnp.float32)
    out = pl.pallas_call(
        pair_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((ROWS, COLS), jnp.float32), pltpu.VMEM((ROWS, COLS), jnp.float32),
                        pltpu.SemaphoreType.DMA((2,))],
        interpret=True,
    )(a, jnp.ones((ROWS, COLS), jnp.float32))
    assert jnp.allclose(out, 2.0)


if __name__ == "__main__":
    trace()
