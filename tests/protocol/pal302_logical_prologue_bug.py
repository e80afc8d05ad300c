"""Add one to each (8, 128) row block of an HBM array over a (2, 2) grid, triple-buffered:
a `Fetcher` class makes each block's copy, a prologue guarded by
`jnp.logical_and(i == 0, j == 0)` starts the first block, and each step but the last
prefetches the next block under `(i < 1) | (j < 1)`, both through `jax.lax.cond` and a
`jax.lax.switch` over one lambda per slot (`lambda k=k: ...`).

Bug: the prefetch is guarded by `(i < 1) | (j < 2)`, true at the last step too: its copy of
the (wrapped) first block is never waited, and the kernel ends with it in flight.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

R, C = 8, 128
BLOCKS = 4
NSLOT = 3


class Fetcher:
    def __init__(self, src, dst, sems):
        self.src, self.dst, self.sems = src, dst, sems

    def __call__(self, block, slot):
        return pltpu.make_async_copy(self.src.at[pl.ds(block * R, R)], self.dst.at[slot], self.sems.at[slot])


def add_one_kernel(x_hbm, o_ref, buf, sems):
    i, j = pl.program_id(0), pl.program_id(1)
    step = i * 2 + j
    fetch = Fetcher(x_hbm, buf, sems)
    slot = step % NSLOT

    def _prologue():
        jax.lax.switch(slot, [lambda k=k: fetch(step, k).start() for k in range(NSLOT)])

    jax.lax.cond(jnp.logical_and(i == 0, j == 0), _prologue, lambda: None)

    def _prefetch():
        nxt = (step + 1) % BLOCKS
        jax.lax.switch((step + 1) % NSLOT, [lambda k=k: fetch(nxt, k).start() for k in range(NSLOT)])  # expect: PAL302

    jax.lax.cond((i < 1) | (j < 2), _prefetch, lambda: None)
    fetch(step, slot).wait()
    o_ref[...] = buf[slot] + 1.0


def add_one(x):
    return pl.pallas_call(
        add_one_kernel,
        out_shape=jax.ShapeDtypeStruct((BLOCKS * R, C), jnp.float32),
        grid=(2, 2),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((R, C), lambda i, j: (i * 2 + j, 0)),
        scratch_shapes=[pltpu.VMEM((NSLOT, R, C), jnp.float32), pltpu.SemaphoreType.DMA((NSLOT,))],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary", "arbitrary")),
        interpret=pltpu.InterpretParams(dma_execution_mode="eager"),
    )(x)


def jax_check():
    return add_one(jnp.ones((BLOCKS * R, C), jnp.float32))
