"""Scratch grouped in named tuples (pytrees): `collections.namedtuple` and a
`typing.NamedTuple` class, each one scratch entry reaching the kernel as one parameter."""

import collections
import typing

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

Stage = collections.namedtuple("Stage", ["buf", "sems"])


class Flags(typing.NamedTuple):
    ready: object
    done: object


def kernel(x_hbm, o_ref, stage, flags):
    for half in range(2):
        rows = pl.ds(half * 4, 4)
        cp = pltpu.make_async_copy(x_hbm.at[rows], stage.buf.at[rows], stage.sems.at[half])
        cp.start()
        cp.wait()
    pl.semaphore_signal(flags.ready.at[0])
    pl.semaphore_wait(flags.ready.at[0])
    pltpu.async_copy(stage.buf, o_ref, flags.done).wait()


def trace():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[
            Stage(pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,))),
            Flags(ready=pltpu.SemaphoreType.REGULAR((1,)), done=pltpu.SemaphoreType.DMA),
        ],
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)
