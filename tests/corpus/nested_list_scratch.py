"""Nested scratch: `[VMEM, (DMA, DMA((2,))), [REGULAR, (DMA,)]]` keeps its structure,
so the kernel receives a tuple and a list and unpacks them."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

DMA = pltpu.SemaphoreType.DMA


def kernel(x_hbm, o_ref, buf, copy_sems, misc):
    single, pair = copy_sems
    counter, (tail_sem,) = misc
    head = pltpu.make_async_copy(x_hbm.at[0], buf.at[0], single)
    head.start()
    head.wait()
    for k in range(2):
        cp = pltpu.make_async_copy(x_hbm.at[k], buf.at[k], pair.at[k])
        cp.start()
        cp.wait()
    pl.semaphore_signal(counter)
    pl.semaphore_wait(counter)
    tail = pltpu.make_async_copy(buf, o_ref, misc[1][0])
    tail.start()
    pltpu.make_async_copy(buf, o_ref, tail_sem).wait()


def trace():
    x = jnp.ones((2, 8, 128), jnp.float32)
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[
            pltpu.VMEM((2, 8, 128), jnp.float32),
            (DMA, DMA((2,))),
            [pltpu.SemaphoreType.REGULAR, (DMA,)],
        ],
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)
