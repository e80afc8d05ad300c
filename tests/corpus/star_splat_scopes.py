"""Scratch spelled with list arithmetic and splatted into `run_scoped`:
`pl.run_scoped(body, *([DMA] * 3))` and `[VMEM] * 3 + [DMA] * 3`."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

DMA = pltpu.SemaphoreType.DMA


def three_way_kernel(x_hbm, o_ref):
    def body(sem_a, sem_b, sem_c):
        for k, sem in enumerate((sem_a, sem_b, sem_c)):
            rows = pl.ds(k * 2, 2)
            pltpu.async_copy(x_hbm.at[rows], o_ref.at[rows], sem).wait()

    pl.run_scoped(body, *([DMA] * 3))

    def staged(b0, b1, b2, s0, s1, s2):
        copies = [
            pltpu.make_async_copy(x_hbm.at[pl.ds(6, 2)], buf, sem)
            for buf, sem in ((b0, s0), (b1, s1), (b2, s2))
        ]
        for cp in copies:
            cp.start()
        for cp in copies:
            cp.wait()
        o_ref[pl.ds(6, 2)] = b0[...] + b1[...] - b2[...]

    pl.run_scoped(staged, *([pltpu.VMEM((2, 128), jnp.float32)] * 3 + [DMA] * 3))


def trace():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    out = pl.pallas_call(
        three_way_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)
