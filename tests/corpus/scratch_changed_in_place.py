"""Scratch lists and call options changed in place, as Python shares them.

A helper appends the semaphore array to the scratch list it is given; a list changed
through another name for it (`more = scratch`, `more += [...]`); an item replaced
(`scratch[1] = DMA((2,))`); the options of a `pallas_call` in a dict written key by key,
or by `update` and `setdefault`, passed as `**options`.  Each kernel gets its semaphores last, and copies on one of
them at a time.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

DMA = pltpu.SemaphoreType.DMA


def add_semaphores(scratch, n):
    scratch.append(DMA((n,)))


def copy_kernel(x_hbm, o_ref, buf, sems):
    for i in range(2):
        copy = pltpu.make_async_copy(x_hbm.at[i], buf.at[i], sems.at[i])
        copy.start()
        copy.wait()
    o_ref[...] = buf[0] + buf[1]


def two_sem_kernel(x_hbm, o_ref, buf, first, sems):
    pltpu.async_copy(x_hbm.at[0], buf.at[0], first).wait()
    pltpu.async_copy(x_hbm.at[1], buf.at[1], sems.at[1]).wait()
    o_ref[...] = buf[0] + buf[1]


def _call(kernel, x, scratch):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=scratch,
        interpret=True,
    )(x)


def trace():
    x = jnp.ones((2, 8, 128), jnp.float32)
    buf = pltpu.VMEM((2, 8, 128), jnp.float32)

    scratch = [buf]
    add_semaphores(scratch, 2)   # the helper's append is the caller's list's
    assert jnp.allclose(_call(copy_kernel, x, scratch), 2.0)

    scratch = [buf]
    more = scratch
    more.append(DMA((2,)))
    assert jnp.allclose(_call(copy_kernel, x, scratch), 2.0)

    scratch = [buf, DMA]
    alias = scratch
    alias += [DMA((2,))]
    assert jnp.allclose(_call(two_sem_kernel, x, scratch), 2.0)

    scratch = [buf, DMA, DMA]
    scratch[2] = DMA((2,))
    assert jnp.allclose(_call(two_sem_kernel, x, scratch), 2.0)

    options = dict(out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32), interpret=True)
    options["in_specs"] = [pl.BlockSpec(memory_space=pl.ANY)]
    options["out_specs"] = pl.BlockSpec(memory_space=pltpu.VMEM)
    options["scratch_shapes"] = [buf, DMA((2,))]
    out = pl.pallas_call(copy_kernel, **options)(x)
    assert jnp.allclose(out, 2.0)

    options = dict(out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
    options.update(in_specs=[pl.BlockSpec(memory_space=pl.ANY)], interpret=True)
    options.setdefault("scratch_shapes", [buf, DMA, DMA((2,))])
    out = pl.pallas_call(two_sem_kernel, **options)(x)
    assert jnp.allclose(out, 2.0)
