"""Kernels specialised with `functools.partial`: bound positional arguments use up the
leading parameters, keyword-bound ones are taken out of the parameter list."""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def blend_kernel(alpha, x_hbm, o_ref, buf, sems, *, nbuf):
    for b in range(nbuf):
        cp = pltpu.make_async_copy(x_hbm.at[b], buf.at[b], sems.at[b])
        cp.start()
        cp.wait()
    o_ref[...] = alpha * buf[0] + (1 - alpha) * buf[nbuf - 1]


def trace():
    nbuf = 3
    x = jnp.ones((nbuf, 8, 128), jnp.float32)
    kernel = functools.partial(blend_kernel, 0.25, nbuf=nbuf)
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((nbuf, 8, 128), jnp.float32), pltpu.SemaphoreType.DMA((nbuf,))],
        interpret=True,
    )(x)
    assert jnp.allclose(out, 1.0)
