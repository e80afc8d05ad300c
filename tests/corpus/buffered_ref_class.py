"""A small `BufferedRef`-like class: it owns a VMEM window and a DMA((2,)) semaphore
array, and its methods copy into and out of a slot with `self.sems.at[slot]`."""

import dataclasses

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


@dataclasses.dataclass(frozen=True)
class DoubleBuffer:
    window: object
    sems: object

    def copy_in(self, src, slot):
        pltpu.make_async_copy(src, self.window.at[slot], self.sems.at[slot]).start()

    def wait_in(self, src, slot):
        pltpu.make_async_copy(src, self.window.at[slot], self.sems.at[slot]).wait()

    def get(self, slot):
        return self.window[slot]


def accumulate_kernel(x_hbm, o_ref, window, sems):
    db = DoubleBuffer(window, sems)
    db.copy_in(x_hbm.at[0], 0)

    def step(i, acc):
        slot = i % 2

        @pl.when(i + 1 < x_hbm.shape[0])
        def _():
            db.copy_in(x_hbm.at[i + 1], 1 - slot)

        db.wait_in(x_hbm.at[i], slot)
        return acc + db.get(slot)

    o_ref[...] = lax.fori_loop(0, x_hbm.shape[0], step, jnp.zeros(o_ref.shape, o_ref.dtype))


def trace():
    x = jnp.ones((3, 8, 128), jnp.float32)
    out = pl.pallas_call(
        accumulate_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
        interpret=True,
    )(x)
    assert jnp.allclose(out, 3.0)
