"""Per-head softmax over a (heads, seq, dim) = (2, 16, 128) tensor, squeezing the head.

Bug: the block `(None, 4, 128)` has 4 rows in its second-to-last dimension: not a
multiple of 8 and not the full 16.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

H, T, D = 2, 16, 128
BT = 4


def softmax_kernel(x_ref, o_ref):
    x = x_ref[...]
    e = jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))
    o_ref[...] = e / jnp.sum(e, axis=-1, keepdims=True)


def head_softmax(x):
    spec = pl.BlockSpec((None, BT, D), lambda h, t: (h, t, 0))  # expect: PAL201
    return pl.pallas_call(
        softmax_kernel,
        out_shape=jax.ShapeDtypeStruct((H, T, D), jnp.float32),
        grid=(H, T // BT),
        in_specs=[spec],
        out_specs=spec,
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((H, T, D), jnp.float32)
    jax.export.export(jax.jit(head_softmax), platforms=["tpu"])(x)
