"""`scratch_shapes` given as a dict: the refs reach the kernel as keyword arguments."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, *, stage, in_sems, out_sem):
    for half in range(2):
        rows = pl.ds(half * 4, 4)
        cp = pltpu.make_async_copy(x_hbm.at[rows], stage.at[rows], in_sems.at[half])
        cp.start()
        cp.wait()
    pltpu.make_async_copy(stage, o_ref, out_sem).start()
    pltpu.make_async_copy(stage, o_ref, out_sem).wait()


def trace():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=dict(  # noqa: C408 - the keyword spelling real kernels use
            stage=pltpu.VMEM((8, 128), jnp.float32),
            in_sems=pltpu.SemaphoreType.DMA((2,)),
            out_sem=pltpu.SemaphoreType.DMA(()),
        ),
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)
