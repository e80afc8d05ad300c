"""`pl.with_scoped` decorators: the scoped refs come after the call arguments."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def staged_kernel(x_hbm, o_ref, buf):
    @pl.with_scoped(sem=pltpu.SemaphoreType.DMA((2,)))
    def load_halves(rows, sem):
        for h in range(2):
            cp = pltpu.make_async_copy(
                x_hbm.at[pl.ds(h * rows, rows)], buf.at[pl.ds(h * rows, rows)], sem.at[h]
            )
            cp.start()
            cp.wait()

    @pl.with_scoped(pltpu.SemaphoreType.DMA)
    def store(sem):
        pltpu.async_copy(buf, o_ref, sem).wait()

    load_halves(4)
    store()


def trace():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    out = pl.pallas_call(
        staged_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)],
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)
