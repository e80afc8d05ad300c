"""Older code: the deprecated `pltpu.semaphore_*` aliases (still present in 0.10.x, with
a DeprecationWarning) next to the `pl.semaphore_*` spellings."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, flags):
    pltpu.semaphore_signal(flags.at[0], 1)
    pltpu.semaphore_wait(flags.at[0], 1)
    pl.semaphore_signal(sem_or_view=flags.at[1], inc=2)
    pl.semaphore_wait(flags.at[1], value=2)
    seen = pltpu.semaphore_read(flags.at[1])
    o_ref[...] = x_ref[...] + seen.astype(jnp.float32)


def trace():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        scratch_shapes=[pltpu.SemaphoreType.REGULAR((2,))],
        interpret=True,
    )(x)
    assert jnp.allclose(out, 1.0)
