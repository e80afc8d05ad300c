"""Rank-generic helpers: one walks an index tuple with a `for` loop, one keeps taking
the first element `while` the view still has a shape.  Both end on one semaphore."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def scalar_sem(sem, index):
    for i in index:
        sem = sem.at[i]
    return sem


def first_sem(sem):
    while sem.shape:
        sem = sem.at[0]
    return sem


def kernel(x_hbm, o_ref, sems, grid):
    halves = (pl.ds(0, 4), pl.ds(4, 4))
    pltpu.async_copy(x_hbm.at[halves[0]], o_ref.at[halves[0]], scalar_sem(grid, (1, 2))).wait()
    pltpu.async_copy(x_hbm.at[halves[1]], o_ref.at[halves[1]], scalar_sem(sems, [1])).wait()
    done = pltpu.make_async_copy(x_hbm, o_ref, first_sem(grid))
    done.start()
    done.wait()


def trace():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[pltpu.SemaphoreType.DMA((2,)), pltpu.SemaphoreType.DMA((2, 3))],
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)
