"""Kernels built by factory functions: the number of buffers is a factory argument, so
the semaphore array's length is not a literal (`DMA((nbuf,))`), only its rank is."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def make_ring_buffer_kernel(nbuf, steps):
    def kernel(x_hbm, o_ref, bufs, sems):
        def copy(i):
            return pltpu.make_async_copy(x_hbm.at[i], bufs.at[i % nbuf], sems.at[i % nbuf])

        for i in range(min(nbuf, steps)):
            copy(i).start()

        def body(i, acc):
            copy(i).wait()
            acc = acc + bufs[i % nbuf]

            @pl.when(i + nbuf < steps)
            def _():
                copy(i + nbuf).start()

            return acc

        o_ref[...] = lax.fori_loop(0, steps, body, jnp.zeros(o_ref.shape, o_ref.dtype))

    return kernel


def build(nbuf, steps):
    return pl.pallas_call(
        make_ring_buffer_kernel(nbuf, steps),
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((nbuf, 8, 128), jnp.float32), pltpu.SemaphoreType.DMA((nbuf,))],
        interpret=True,
    )


def trace():
    for nbuf, steps in ((2, 4), (3, 5)):
        x = jnp.ones((steps, 8, 128), jnp.float32)
        assert jnp.allclose(build(nbuf, steps)(x), float(steps))
