"""Sum three (8, 128) row blocks of an HBM array per grid step (2 steps), double-buffered
inside a `jax.lax.while_loop`: the step starts its first block, and each trip prefetches
the next block (while there is one) before waiting for its own.

Bug: the prefetch guard is `k < TRIPS`, true on the last trip too: it starts a copy of the
(wrapped) next block that no trip waits, and the step ends with it in flight.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

R, C = 8, 128
STEPS = 2
TRIPS = 3


def block_sum_kernel(x_hbm, o_ref, buf, sems):
    base = pl.program_id(0) * TRIPS

    def fetch(block, slot):
        return pltpu.make_async_copy(x_hbm.at[pl.ds(block * R, R)], buf.at[slot], sems.at[slot])

    fetch(base, 0).start()

    def trip(carry):
        k, acc = carry
        slot = k % 2

        @pl.when(k < TRIPS)
        def _next():
            fetch((base + k + 1) % (STEPS * TRIPS), 1 - slot).start()  # expect: PAL302

        fetch(base + k, slot).wait()
        return k + 1, acc + buf[slot]

    _, acc = jax.lax.while_loop(lambda c: c[0] < TRIPS, trip, (0, jnp.zeros((R, C), jnp.float32)))
    o_ref[...] = acc


def block_sum(x):
    return pl.pallas_call(
        block_sum_kernel,
        out_shape=jax.ShapeDtypeStruct((STEPS * R, C), jnp.float32),
        grid=(STEPS,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((R, C), lambda i: (i, 0)),
        scratch_shapes=[pltpu.VMEM((2, R, C), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=pltpu.InterpretParams(dma_execution_mode="eager"),
    )(x)


def jax_check():
    return block_sum(jnp.ones((STEPS * TRIPS * R, C), jnp.float32))
