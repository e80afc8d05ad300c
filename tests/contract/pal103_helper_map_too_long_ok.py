"""Token-embedding scale over (16, 256) tiles; the spec comes from a helper function.

The helper's index map returns one index per block dimension.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

T, D, BT = 64, 256, 16


def token_block(bt, d):
    return pl.BlockSpec((bt, d), lambda t: (t, 0))


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * (D ** -0.5)


def scale_tokens(x):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct((T, D), jnp.float32),
        grid=(T // BT,),
        in_specs=[token_block(BT, D)],
        out_specs=pl.BlockSpec((BT, D), lambda t: (t, 0)),
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((T, D), jnp.float32)
    jax.export.export(jax.jit(scale_tokens), platforms=["tpu"])(x)
