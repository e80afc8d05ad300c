"""Every way of indexing a semaphore array down to one semaphore: full multi-indices,
chained views, slices then an index, `...`, and negative indices."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, grid_sems, row_sems, flags):
    def src(k):
        return x_hbm.at[pl.ds(k, 1)]

    def dst(k):
        return o_ref.at[pl.ds(k, 1)]

    pltpu.async_copy(src(0), dst(0), grid_sems.at[1, 2]).wait()
    pltpu.async_copy(src(1), dst(1), grid_sems.at[0].at[1]).wait()
    pltpu.async_copy(src(2), dst(2), grid_sems.at[0:2].at[1, 0]).wait()
    pltpu.async_copy(src(3), dst(3), grid_sems.at[pl.ds(1, 2)].at[0].at[2]).wait()
    pltpu.async_copy(src(4), dst(4), grid_sems.at[:, 0].at[3]).wait()
    pltpu.async_copy(src(5), dst(5), row_sems.at[..., 1]).wait()
    row = (src(6), dst(6))
    pltpu.make_async_copy(*row, sem=row_sems.at[-1]).start()
    pltpu.make_async_copy(*row, sem=row_sems.at[-1]).wait()
    pl.semaphore_signal(flags.at[1, 0].at[1])
    pl.semaphore_wait(flags.at[1, 0, 1])


def trace():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[
            pltpu.SemaphoreType.DMA((4, 3)),
            pltpu.SemaphoreType.DMA((2,)),
            pltpu.SemaphoreType.REGULAR((2, 2, 2)),
        ],
        interpret=True,
    )(x)
    assert jnp.allclose(out[:7], x[:7])
