"""Correct code that is easy to misread: names rebound to views, views held in tuples,
dicts and lists, indices held in tuple variables, trailing `...`, `functools.partial`
of `make_async_copy` itself, keyword unpacking, and shadowed parameter names."""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, sems, grid_sems, k_sems, v_sems, flags):
    def row(k):
        return x_hbm.at[pl.ds(k, 1)], o_ref.at[pl.ds(k, 1)]

    # A name rebound to a view of itself.
    first = sems
    first = first.at[0]
    src, dst = row(0)
    pltpu.async_copy(src, dst, first).wait()

    # Views unpacked from a tuple, picked from a dict and from a list.
    send, recv = grid_sems.at[0, 0], grid_sems.at[1, 1]
    src, dst = row(1)
    pltpu.async_copy(src, dst, send).wait()
    pltpu.async_copy(src, dst, recv).wait()
    by_name = {"k": k_sems.at[0], "v": v_sems.at[1]}
    src, dst = row(2)
    pltpu.async_copy(src, dst, by_name["v"]).wait()
    views = [sems.at[i] for i in range(2)]
    src, dst = row(3)
    pltpu.async_copy(src, dst, views[1]).wait()

    # The index held in a tuple variable covers both dimensions; `...` expands to none.
    idx = (1, 2)
    src, dst = row(4)
    pltpu.async_copy(src, dst, grid_sems.at[idx]).wait()
    src, dst = row(5)
    pltpu.async_copy(src, dst, sems.at[1, ...]).wait()
    src, dst = row(6)
    pltpu.async_copy(src, dst, grid_sems.at[(0, 1)]).wait()

    # functools.partial of the Pallas function itself, and keyword unpacking.
    copy_k = functools.partial(pltpu.make_async_copy, sem=k_sems.at[1])
    src, dst = row(7)
    cp = copy_k(src, dst)
    cp.start()
    cp.wait()
    kwargs = {"src_ref": src, "dst_ref": dst, "sem": v_sems.at[0]}
    cp = pltpu.make_async_copy(**kwargs)
    cp.start()
    cp.wait()

    # A conditional expression of two views; a parameter that shadows the array's name.
    src, dst = row(0)
    pltpu.async_copy(src, dst, sems.at[0] if src.shape[0] == 1 else sems.at[1]).wait()

    def signal_one(sems):
        pl.semaphore_signal(sems)
        pl.semaphore_wait(sems)

    signal_one(flags.at[0])


def trace():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[
            pltpu.SemaphoreType.DMA((2,)),
            pltpu.SemaphoreType.DMA((2, 3)),
            pltpu.SemaphoreType.DMA((2,)),
            pltpu.SemaphoreType.DMA((2,)),
            pltpu.SemaphoreType.REGULAR((2,)),
        ],
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)
