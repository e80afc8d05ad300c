"""Sums blocks with a double-buffered pipeline built from the package helpers."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from .common import pipeline_scratch, slot_sem, start_copy, wait_copy


def sum_kernel(x_hbm, o_ref, buf, sems):
    nblocks = x_hbm.shape[0]
    start_copy(x_hbm.at[0], buf.at[0], sems.at[0])

    def body(i, acc):
        slot = i % 2

        @pl.when(i + 1 < nblocks)
        def _():
            start_copy(x_hbm.at[i + 1], buf.at[1 - slot], slot_sem(sems, 1 - slot))

        wait_copy(x_hbm.at[i], buf.at[slot], sems.at[slot])
        return acc + buf[slot]

    o_ref[...] = lax.fori_loop(0, nblocks, body, jnp.zeros(o_ref.shape, o_ref.dtype))


def trace():
    x = jnp.ones((4, 8, 128), jnp.float32)
    out = pl.pallas_call(
        sum_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=pipeline_scratch((8, 128)),
        interpret=True,
    )(x)
    assert jnp.allclose(out, 4.0)
