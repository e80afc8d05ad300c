"""A run_scoped kernel that uses the package's copy helpers with its own semaphores."""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from . import common
from .common import start_copy


def copy_kernel(x_hbm, o_ref):
    @functools.partial(
        pl.run_scoped,
        buf=pltpu.VMEM((8, 128), jnp.float32),
        sems=pltpu.SemaphoreType.DMA((common.NSLOTS,)),
    )
    def _(buf, sems):
        start_copy(x_hbm, buf, sems.at[0])
        common.wait_copy(x_hbm, buf, sems.at[0])
        out = pltpu.make_async_copy(buf, o_ref, common.slot_sem(sems, 1))
        out.start()
        out.wait()


def trace():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    out = pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)
