"""Semaphore slots computed with `lax` / `jnp` integer arithmetic, in a `while_loop`
ring of buffers, a `switch` over the slot, and a clamped write-back bank.

Every index is one number (`lax.rem`, `lax.div`, `lax.clamp`, `lax.select`,
`jnp.mod`, `jnp.floor_divide`, ...), so each `.at[...]` picks one semaphore.
`jnp.int64` is `int32` here (x64 is off).
"""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NUM_BLOCKS = 6
NSLOTS = 3
NBANKS = 2


def ring_kernel(x_hbm, o_hbm, buf, in_sems, out_sems, flags):
    def copy_in(i):
        slot = lax.rem(i, NSLOTS)
        return pltpu.make_async_copy(x_hbm.at[i], buf.at[slot], in_sems.at[slot])

    def copy_out(i):
        slot = jnp.remainder(i, NSLOTS)
        bank = lax.clamp(0, lax.div(i, NSLOTS), NBANKS - 1)
        return pltpu.make_async_copy(buf.at[slot], o_hbm.at[i], out_sems.at[bank])

    def cond(state):
        i, _ = state
        return i < NUM_BLOCKS

    def body(state):
        i, done = state
        copy_in(i).start()
        copy_in(i).wait()
        copy_out(i).start()
        copy_out(i).wait()
        return i + 1, done + 1

    _, done = lax.while_loop(cond, body, (jnp.int32(0), jnp.int32(0)))

    # Refresh one slot again, chosen at run time by a switch over its index.
    last = jnp.mod(done - 1, NSLOTS)

    def refresh(slot):
        def branch():
            cp = pltpu.make_async_copy(x_hbm.at[NUM_BLOCKS - NSLOTS + slot], buf.at[slot], in_sems.at[slot])
            cp.start()
            cp.wait()

        return branch

    lax.switch(last, [refresh(s) for s in range(NSLOTS)])

    # Per-step flags: the step's bank, clamped both ways, as int32 for the index.
    step = pl.program_id(0)
    lo = lax.min(step, NBANKS - 1)
    hi = lax.max(step - NBANKS, 0)
    bank = lax.convert_element_type(lax.select(step < NBANKS, lo, hi), jnp.int32)
    pl.semaphore_signal(flags.at[bank])
    pl.semaphore_wait(flags.at[bank])

    lane = jnp.uint32(step)
    wide = jnp.int64(step + 1)
    parity = jnp.where(lane % 2 == 0, jnp.floor_divide(wide, NBANKS), jnp.minimum(wide, NBANKS - 1))
    pl.semaphore_signal(flags.at[parity], 2)
    pl.semaphore_wait(flags.at[parity], 2)


def trace():
    x = jnp.arange(NUM_BLOCKS * 8 * 128, dtype=jnp.float32).reshape(NUM_BLOCKS, 8, 128)
    out = pl.pallas_call(
        ring_kernel,
        grid=(2,),
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[
            pltpu.VMEM((NSLOTS, 8, 128), jnp.float32),
            pltpu.SemaphoreType.DMA((NSLOTS,)),
            pltpu.SemaphoreType.DMA((NBANKS,)),
            pltpu.SemaphoreType.REGULAR((NBANKS,)),
        ],
        interpret=True,
    )(x)
    assert jnp.allclose(out, x)
