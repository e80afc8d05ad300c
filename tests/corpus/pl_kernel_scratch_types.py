"""A mesh kernel built with `pl.kernel(..., scratch_types=...)` (JAX >= 0.10 names).

The body gets inputs, outputs, then the scratch refs; the copy-in and copy-out use
the two slots of one DMA((2,)) array.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def roundtrip_body(x_hbm, o_hbm, buf, sems):
    copy_in = pltpu.make_async_copy(x_hbm, buf, sems.at[0])
    copy_in.start()
    copy_in.wait()
    buf[...] = buf[...] * 3.0
    copy_out = pltpu.make_async_copy(buf, o_hbm, sems.at[1])
    copy_out.start()
    copy_out.wait()


def roundtrip(x):
    mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)
    return pl.kernel(
        roundtrip_body,
        out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
        mesh=mesh,
        scratch_types=[pltpu.VMEM(x.shape, x.dtype), pltpu.SemaphoreType.DMA((2,))],
        interpret=True,
    )(x)


def trace():
    x = jnp.ones((8, 128), jnp.float32)
    assert jnp.allclose(roundtrip(x), 3.0)
