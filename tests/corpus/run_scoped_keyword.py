"""`pl.run_scoped` with keyword types: the body receives the refs as keyword arguments.

The same name `sems` is bound to differently shaped arrays in two neighbouring kernels.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel_1d(x_hbm, o_ref):
    def body(*, buf, sems):
        cp = pltpu.make_async_copy(x_hbm, buf, sems.at[2])
        cp.start()
        cp.wait()
        o_ref[...] = buf[...]

    pl.run_scoped(body, buf=pltpu.VMEM((8, 128), jnp.float32), sems=pltpu.SemaphoreType.DMA((3,)))


def kernel_2d(x_hbm, o_ref):
    def body(*, sems, buf):
        for i in range(2):
            for j in range(2):
                cp = pltpu.make_async_copy(
                    x_hbm.at[pl.ds(4 * i, 4), pl.ds(64 * j, 64)],
                    buf.at[pl.ds(4 * i, 4), pl.ds(64 * j, 64)],
                    sems.at[i, j],
                )
                cp.start()
                cp.wait()
        o_ref[...] = buf[...]

    pl.run_scoped(body, sems=pltpu.SemaphoreType.DMA(shape=(2, 2)), buf=pltpu.VMEM((8, 128), jnp.float32))


def trace():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    for kernel in (kernel_1d, kernel_2d):
        out = pl.pallas_call(
            kernel,
            out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
            in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
            out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
            interpret=True,
        )(x)
        assert jnp.allclose(out, x)
