"""Double-buffered HBM -> VMEM copy pipeline driven by a fori_loop.

Two VMEM slots and a DMA((2,)) semaphore array: while block i is processed, block
i + 1 is already in flight in the other slot.
"""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NUM_BLOCKS = 4
BLOCK = (8, 128)


def scale_kernel(x_hbm, o_ref, buf, sems):
    def fetch(i, slot):
        return pltpu.make_async_copy(x_hbm.at[i], buf.at[slot], sems.at[slot])

    fetch(0, 0).start()

    def body(i, carry):
        slot = i % 2

        @pl.when(i + 1 < NUM_BLOCKS)
        def _():
            fetch(i + 1, 1 - slot).start()

        fetch(i, slot).wait()
        o_ref[i] = buf[slot] * 2.0
        return carry

    lax.fori_loop(0, NUM_BLOCKS, body, 0)


def scale(x):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[
            pltpu.VMEM((2, *BLOCK), jnp.float32),
            pltpu.SemaphoreType.DMA((2,)),
        ],
        interpret=True,
    )(x)


def trace():
    x = jnp.arange(NUM_BLOCKS * 8 * 128, dtype=jnp.float32).reshape(NUM_BLOCKS, *BLOCK)
    out = scale(x)
    assert jnp.allclose(out, x * 2.0)
