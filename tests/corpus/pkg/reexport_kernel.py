"""A kernel that takes `pl` / `pltpu` and its semaphore declaration from `.compat`."""

import jax
import jax.numpy as jnp

from . import common as c
from .compat import SLOT_SEMS, pl, pltpu


def kernel(x_hbm, o_ref, buf, sems):
    pltpu.async_copy(x_hbm.at[0], buf.at[0], sems.at[0]).wait()
    copy = pltpu.make_async_copy(x_hbm.at[1], buf.at[1], sems.at[1])
    copy.start()
    copy.wait()
    c.start_copy(buf, o_ref, sems.at[0]).wait()


def trace():
    x = jnp.ones((2, 8, 128), jnp.float32)
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), SLOT_SEMS],
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)
