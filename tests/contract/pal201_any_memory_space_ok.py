"""Manual double-buffered copy of (8, 100)-row chunks from HBM, one chunk per grid step.

Legal and tricky: the input is `pl.BlockSpec(memory_space=pl.ANY)` with no block shape
(the whole array stays in HBM, no tiling applies even though 100 lanes is not a
multiple of 128), the VMEM scratch buffer of (2, 8, 100) is not a block either, and
the output block equals the full 100-lane width.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

STEPS, BM, COLS = 4, 8, 100


def copy_chunk(x_hbm, buf, sems, step, slot):
    return pltpu.make_async_copy(x_hbm.at[step], buf.at[slot], sems.at[slot])


def stream_kernel(x_hbm, o_ref, buf, sems):
    step = pl.program_id(0)
    slot = step % 2

    @pl.when(step == 0)
    def _():
        copy_chunk(x_hbm, buf, sems, 0, 0).start()

    @pl.when(step + 1 < pl.num_programs(0))
    def _():
        copy_chunk(x_hbm, buf, sems, step + 1, 1 - slot).start()

    copy_chunk(x_hbm, buf, sems, step, slot).wait()
    o_ref[...] = buf[slot] * 2.0


def stream(x):
    return pl.pallas_call(
        stream_kernel,
        out_shape=jax.ShapeDtypeStruct((STEPS * BM, COLS), jnp.float32),
        grid=(STEPS,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((BM, COLS), lambda i: (i, 0)),
        scratch_shapes=[pltpu.VMEM((2, BM, COLS), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((STEPS, BM, COLS), jnp.float32)
    jax.export.export(jax.jit(stream), platforms=["tpu"])(x)
