"""KV-cache update: new rows are scattered from VMEM into HBM pages at positions read
from scalar prefetch; the copies are started in one `fori_loop` and drained in
another with wait-only descriptors."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NEW_ROWS = 4
NSEM = 2


def update_kernel(slots_ref, new_ref, cache_hbm, out_hbm, sems):
    del cache_hbm  # aliased with out_hbm

    def start(i, c):
        pltpu.async_copy(new_ref.at[pl.ds(i, 1)], out_hbm.at[pl.ds(slots_ref[i], 1)],
                         sems.at[i % NSEM])
        return c

    def drain(i, c):
        pltpu.make_async_copy(new_ref.at[pl.ds(0, 1)], out_hbm.at[pl.ds(0, 1)],
                              sems.at[i % NSEM]).wait()
        return c

    lax.fori_loop(0, NEW_ROWS, start, 0)
    lax.fori_loop(0, NEW_ROWS, drain, 0)


def trace():
    cache = jnp.zeros((16, 128), jnp.float32)
    new = jnp.ones((NEW_ROWS, 128), jnp.float32)
    slots = jnp.array([3, 9, 0, 12], jnp.int32)
    out = pl.pallas_call(
        update_kernel,
        out_shape=jax.ShapeDtypeStruct(cache.shape, cache.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(1,),
            in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM), pl.BlockSpec(memory_space=pl.ANY)],
            out_specs=pl.BlockSpec(memory_space=pl.ANY),
            scratch_shapes=[pltpu.SemaphoreType.DMA((NSEM,))],
        ),
        input_output_aliases={2: 0},
        interpret=True,
    )(slots, new, cache)
    assert jnp.allclose(out[slots], 1.0) and float(out.sum()) == NEW_ROWS * 128
