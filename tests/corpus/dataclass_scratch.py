"""Registered-dataclass scratch: `TopKScratch(buf=..., sem=DMA, slots=DMA((2,)))` is one
scratch entry; the kernel reads `scratch.sem` and indexes `scratch.slots`."""

import dataclasses

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class TopKScratch:
    buf: object
    sem: object
    slots: object


def topk_kernel(x_hbm, o_ref, scratch):
    cp = pltpu.make_async_copy(x_hbm.at[0], scratch.buf, scratch.sem)
    cp.start()
    cp.wait()
    best = scratch.buf[...]
    for k in range(1, x_hbm.shape[0]):
        slot = k % 2
        nxt = pltpu.make_async_copy(x_hbm.at[k], scratch.buf, scratch.slots.at[slot])
        nxt.start()
        nxt.wait()
        best = jnp.maximum(best, scratch.buf[...])
    o_ref[...] = best


def trace():
    x = jnp.arange(3 * 8 * 128, dtype=jnp.float32).reshape(3, 8, 128)
    out = pl.pallas_call(
        topk_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[
            TopKScratch(
                buf=pltpu.VMEM((8, 128), jnp.float32),
                sem=pltpu.SemaphoreType.DMA,
                slots=pltpu.SemaphoreType.DMA((2,)),
            )
        ],
        interpret=True,
    )(x)
    assert jnp.allclose(out, x[2])
