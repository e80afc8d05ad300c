"""Double-buffered HBM -> VMEM copy pipeline (correct).

While block i is being processed from one VMEM slot, block i + 1 is already being
copied into the other slot.  Each slot has its own DMA semaphore: `sems` is a
`SemaphoreType.DMA((2,))` array and every copy uses `sems.at[slot]`.

Run it on CPU (interpret mode):  python examples/double_buffer.py
"""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NUM_BLOCKS = 4
BLOCK = (8, 128)


def double_buffer_kernel(x_hbm, o_ref, buf, sems):
    first = pltpu.make_async_copy(x_hbm.at[0], buf.at[0], sems.at[0])
    first.start()

    def body(i, carry):
        slot = i % 2
        next_slot = 1 - slot

        @pl.when(i + 1 < NUM_BLOCKS)
        def _():
            nxt = pltpu.make_async_copy(x_hbm.at[i + 1], buf.at[next_slot], sems.at[next_slot])
            nxt.start()

        cur = pltpu.make_async_copy(x_hbm.at[i], buf.at[slot], sems.at[slot])
        cur.wait()
        o_ref[i] = buf[slot] * 2.0 + 1.0
        return carry

    lax.fori_loop(0, NUM_BLOCKS, body, 0)


def double_buffer(x):
    return pl.pallas_call(
        double_buffer_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[
            pltpu.VMEM((2, *BLOCK), jnp.float32),
            pltpu.SemaphoreType.DMA((2,)),
        ],
        interpret=True,
    )(x)


def main():
    x = jnp.arange(NUM_BLOCKS * BLOCK[0] * BLOCK[1], dtype=jnp.float32).reshape(NUM_BLOCKS, *BLOCK)
    out = double_buffer(x)
    assert jnp.allclose(out, x * 2.0 + 1.0)
    print("double_buffer: ok")


if __name__ == "__main__":
    main()
