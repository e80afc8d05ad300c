"""Copy a (16, 128) f32 activation from HBM into a VMEM staging buffer by hand and
emit it as bf16 plus one.

The staging buffer has the source's dtype (f32); the cast to bf16 happens on the
vector load, after the DMA.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 16, 128


def cast_kernel(x_hbm, o_ref, stage, sem):
    copy = pltpu.make_async_copy(x_hbm, stage, sem)
    copy.start()
    copy.wait()
    o_ref[...] = stage[...].astype(jnp.bfloat16) + 1


def cast(x):
    return pl.pallas_call(
        cast_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.bfloat16),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((ROWS, COLS), jnp.float32), pltpu.SemaphoreType.DMA],
        interpret=pltpu.InterpretParams(),
    )(x)


def jax_check():
    return cast(jnp.ones((ROWS, COLS), jnp.float32))
