"""Per-token embedding scale over a (T, D) = (64, 256) array, a few tokens per grid step.

Eight tokens per grid step, `BlockSpec((8, D), ...)`, satisfy the 8 x 128 tiling.
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
        grid=(T // 8,),
        in_specs=[pl.BlockSpec((8, D), lambda t: (t, 0))],
        out_specs=pl.BlockSpec((8, D), lambda t: (t, 0)),
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((T, D), jnp.float32)
    jax.export.export(jax.jit(scale_tokens), platforms=["tpu"])(x)
