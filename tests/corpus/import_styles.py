"""The same copies written with several import styles and re-bound aliases."""

import jax
import jax.experimental.pallas.tpu as tpu_alias
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu
from jax.experimental.pallas.tpu import SemaphoreType, async_copy, make_async_copy

copy = tpu_alias.make_async_copy
signal = pl.semaphore_signal


def kernel(x_hbm, o_ref, buf, sems, flag):
    a = make_async_copy(x_hbm.at[0], buf.at[0], sems.at[0])
    a.start()
    a.wait()
    b = copy(x_hbm.at[1], buf.at[1], sems.at[1])
    b.start()
    b.wait()
    async_copy(buf.at[0], o_ref.at[0], sems.at[2]).wait()
    tpu.async_copy(buf.at[1], o_ref.at[1], sems.at[0]).wait()
    signal(flag.at[0])
    pl.semaphore_wait(flag.at[0])


def trace():
    x = jnp.ones((2, 8, 128), jnp.float32)
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[
            tpu.VMEM((2, 8, 128), jnp.float32),
            SemaphoreType.DMA([3]),
            tpu_alias.SemaphoreType.REGULAR((1,)),
        ],
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)
