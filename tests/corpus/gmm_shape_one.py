"""Grouped matmul tiles with one-element semaphore arrays (`DMA((1,))`): the group's
weights are fetched once per group under `pl.when`, through a helper that receives
`sem_ref.at[0]`."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

GROUPS = 2


def fetch_weights(w_hbm, w_vmem, group, sem):
    cp = pltpu.make_async_copy(w_hbm.at[group], w_vmem, sem)
    cp.start()
    cp.wait()


def gmm_kernel(group_ids_ref, x_ref, w_hbm, o_ref, w_vmem, w_sem, acc_sem):
    tile = pl.program_id(0)
    group = group_ids_ref[tile]
    prev = group_ids_ref[jnp.maximum(tile - 1, 0)]

    @pl.when((tile == 0) | (group != prev))
    def _():
        fetch_weights(w_hbm, w_vmem, group, w_sem.at[0])

    o_ref[...] = jnp.dot(x_ref[...], w_vmem[...], preferred_element_type=jnp.float32)
    pl.semaphore_signal(acc_sem.at[0])
    pl.semaphore_wait(acc_sem.at[0])


def trace():
    x = jnp.ones((4 * 8, 128), jnp.float32)
    w = jnp.stack([jnp.eye(128, dtype=jnp.float32) * (g + 1) for g in range(GROUPS)])
    group_ids = jnp.array([0, 0, 1, 1], jnp.int32)
    out = pl.pallas_call(
        gmm_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(4,),
            in_specs=[
                pl.BlockSpec((8, 128), lambda t, gids: (t, 0)),
                pl.BlockSpec(memory_space=pl.ANY),
            ],
            out_specs=pl.BlockSpec((8, 128), lambda t, gids: (t, 0)),
            scratch_shapes=[
                pltpu.VMEM((128, 128), jnp.float32),
                pltpu.SemaphoreType.DMA((1,)),
                pltpu.SemaphoreType.REGULAR((1,)),
            ],
        ),
        interpret=True,
    )(group_ids, x, w)
    assert jnp.allclose(out[:16], 1.0) and jnp.allclose(out[16:], 2.0)
