"""Per-token embedding scale over a (T, D) = (64, 256) array, a few tokens per grid step.

Bug: `BlockSpec((None, D), ...)` squeezes the token dimension, which counts as a block
of 1 row: not a multiple of 8 and not all 64 rows.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

T, D = 64, 256


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 16.0


def scale_tokens(x):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct((T, D), jnp.float32),
        grid=(T,),
        in_specs=[pl.BlockSpec((None, D), lambda t: (t, 0))],  # expect: PAL201
        out_specs=pl.BlockSpec((None, D), lambda t: (t, 0)),  # expect: PAL201
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((T, D), jnp.float32)
    jax.export.export(jax.jit(scale_tokens), platforms=["tpu"])(x)
