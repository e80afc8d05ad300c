"""Each pair of grid steps reads the same 8-row window of a resident input: step i reads
window i // 2.

Bug: the window number is computed with `/`, a float; the TPU lowering casts an index to
an integer type and rejects a float.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, STEPS = 32, 128, 8


def window_kernel(x_ref, o_ref):
    w = pl.program_id(0) / 2
    o_ref[...] = x_ref[pl.ds(w * 8, 8), :] * 2.0  # expect: PAL409


def windows(x):
    return pl.pallas_call(
        window_kernel,
        grid=(STEPS,),
        in_specs=[pl.BlockSpec((ROWS, COLS), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((8, COLS), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct((STEPS * 8, COLS), jnp.float32),
    )(x)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(windows), platforms=["tpu"])(x)
