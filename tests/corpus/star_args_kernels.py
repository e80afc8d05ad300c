"""Kernels that take `*refs` and unpack them: positional unpacking, a starred target
(`x_hbm, *outs, sems = refs`) and slicing by count (`refs[:n]`, `refs[-1]`); one is
only traced (`jax.make_jaxpr(pl.pallas_call(...))(x)`), so its operands are not
written at the `pallas_call`."""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ANY = pl.BlockSpec(memory_space=pl.ANY)


def unpacking_kernel(*refs):
    x_hbm, o_ref, buf, sems = refs
    pltpu.async_copy(x_hbm, buf, sems.at[0]).wait()
    pltpu.async_copy(buf, o_ref, sems.at[1]).wait()


def starred_kernel(*refs):
    x_hbm, *outs, sems = refs
    for k, out in enumerate(outs):
        pltpu.async_copy(x_hbm, out, sems.at[k]).wait()


def sliced_kernel(*refs, n):
    ins, outs, sems = refs[:n], refs[n:2 * n], refs[-1]
    for k in range(n):
        cp = pltpu.make_async_copy(ins[k], outs[k], sems.at[k])
        cp.start()
        cp.wait()


def traced_only_kernel(*refs):
    x_hbm, o_ref, sems, one = refs
    pltpu.async_copy(x_hbm, o_ref, sems.at[1]).wait()
    pltpu.async_copy(x_hbm, o_ref, one).wait()


def trace():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    spec = jax.ShapeDtypeStruct(x.shape, x.dtype)
    out = pl.pallas_call(
        unpacking_kernel, out_shape=spec, in_specs=[ANY], out_specs=ANY,
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)
    outs = pl.pallas_call(
        starred_kernel, out_shape=[spec] * 3, in_specs=[ANY], out_specs=[ANY] * 3,
        scratch_shapes=[pltpu.SemaphoreType.DMA((3,))], interpret=True,
    )(x)
    assert all(jnp.allclose(o, x) for o in outs)
    outs = pl.pallas_call(
        functools.partial(sliced_kernel, n=2), out_shape=(spec, spec), in_specs=[ANY, ANY],
        out_specs=(ANY, ANY), scratch_shapes=[pltpu.SemaphoreType.DMA((2,))], interpret=True,
    )(x, x + 1)
    assert jnp.allclose(outs[0], x) and jnp.allclose(outs[1], x + 1)
    jax.make_jaxpr(pl.pallas_call(
        traced_only_kernel, out_shape=spec, in_specs=[ANY], out_specs=ANY,
        scratch_shapes=[pltpu.SemaphoreType.DMA((2,)), pltpu.SemaphoreType.DMA], interpret=True,
    ))(x)
