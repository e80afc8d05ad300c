"""Copy a (16, 128) f32 activation from HBM into a VMEM staging buffer by hand and
emit it as bf16 plus one.

Bug: the author declared the staging buffer in the output dtype (bf16), so the DMA
copies an f32 source into a bf16 destination; a DMA copies bytes, it does not convert.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 16, 128


def cast_kernel(x_hbm, o_ref, stage, sem):
    copy = pltpu.make_async_copy(x_hbm, stage, sem)  # expect: PAL305
    copy.start()
    copy.wait()
    o_ref[...] = stage[...].astype(jnp.bfloat16) + 1


def cast(x):
    return pl.pallas_call(
        cast_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.bfloat16),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((ROWS, COLS), jnp.bfloat16), pltpu.SemaphoreType.DMA],
        interpret=pltpu.InterpretParams(),
    )(x)


def jax_check():
    return cast(jnp.ones((ROWS, COLS), jnp.float32))
