"""Add one to each (8, 128) row block of an HBM array, double-buffered across a grid of 3
steps: each step waits for its block and prefetches the next. The copies start through a
dispatch table, one `functools.partial` per slot, built from a dict and read back in
`sorted` key order, and chosen with `jax.lax.switch`; the first step's block is started by
a prologue.

Bug: the prologue is gone, so nothing starts the first step's block and its wait hangs.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

R, C = 8, 128
STEPS = 3
NSLOT = 2


def add_one_kernel(x_hbm, o_ref, buf, sems):
    step = pl.program_id(0)

    def fetch(block, slot):
        return pltpu.make_async_copy(x_hbm.at[pl.ds(block * R, R)], buf.at[slot], sems.at[slot])

    def start_into(block, slot):
        fetch(block, slot).start()

    by_slot = {slot: functools.partial(start_into, slot=slot) for slot in range(NSLOT)}
    starters = [by_slot[slot] for slot in sorted(by_slot)]
    slot = step % NSLOT

    @pl.when(step + 1 < STEPS)
    def _prefetch():
        jax.lax.switch((step + 1) % NSLOT, starters, step + 1)

    fetch(step, slot).wait()  # expect: PAL303
    o_ref[...] = buf[slot] + 1.0


def add_one(x):
    return pl.pallas_call(
        add_one_kernel,
        out_shape=jax.ShapeDtypeStruct((STEPS * R, C), jnp.float32),
        grid=(STEPS,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((R, C), lambda i: (i, 0)),
        scratch_shapes=[pltpu.VMEM((NSLOT, R, C), jnp.float32), pltpu.SemaphoreType.DMA((NSLOT,))],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=pltpu.InterpretParams(dma_execution_mode="eager"),
    )(x)


def jax_check():
    return add_one(jnp.ones((STEPS * R, C), jnp.float32))
