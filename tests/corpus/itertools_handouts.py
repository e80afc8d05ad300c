"""Semaphores handed out by `itertools`: `product` of rows and slots, `chain` of a row's
views and a single semaphore, `islice` of a list of views, `pairwise` over views,
`zip_longest` with a single semaphore as the filler, and `starmap` building
descriptors.

Every semaphore that reaches a DMA or a signal is one semaphore."""

import itertools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NSLOTS = 2
ROWS = 8 // NSLOTS


def _copy(src, dst, sem):
    cp = pltpu.make_async_copy(src, dst, sem)
    cp.start()
    cp.wait()


def kernel(x_hbm, o_hbm, buf, grid_sems, row_sems, done_sem):
    # Every (row, slot) pair of a 2-D array, one semaphore each.
    for r, slot in itertools.product(range(2), range(NSLOTS)):
        rows = pl.ds(slot * ROWS, ROWS)
        _copy(x_hbm.at[rows], buf.at[rows], grid_sems.at[r, slot])

    # A row's views, then one more semaphore.
    for sem in itertools.chain((row_sems.at[s] for s in range(NSLOTS)), [done_sem]):
        _copy(buf, o_hbm, sem)

    # The last views of a list.
    for sem in itertools.islice([grid_sems.at[0, 0], grid_sems.at[1, 0], grid_sems.at[1, 1]], 1, None):
        _copy(x_hbm, buf, sem)

    # Neighbouring views.
    for first, second in itertools.pairwise([row_sems.at[0], row_sems.at[1], done_sem]):
        _copy(x_hbm, buf, first)
        _copy(buf, o_hbm, second)

    # Views of a row, padded with a single semaphore.
    for slot, sem in itertools.zip_longest(range(NSLOTS + 1), [row_sems.at[0], row_sems.at[1]],
                                           fillvalue=done_sem):
        _copy(x_hbm, buf, sem)

    # Descriptors built by starmap, started together, then waited on.
    copies = list(itertools.starmap(
        lambda r, slot: pltpu.make_async_copy(buf.at[pl.ds(slot * ROWS, ROWS)], o_hbm.at[pl.ds(slot * ROWS, ROWS)],
                                              grid_sems.at[r, slot]),
        [(0, 0), (1, 1)]))
    for cp in copies:
        cp.start()
    for cp in copies:
        cp.wait()


def trace():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    any_spec = pl.BlockSpec(memory_space=pl.ANY)
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[any_spec],
        out_specs=any_spec,
        scratch_shapes=[
            pltpu.VMEM((8, 128), jnp.float32),
            pltpu.SemaphoreType.DMA((2, NSLOTS)),
            pltpu.SemaphoreType.DMA((NSLOTS,)),
            pltpu.SemaphoreType.DMA,
        ],
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)
