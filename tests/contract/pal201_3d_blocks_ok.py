"""Batched (batch, seq, dim) add with 3-D blocks of two batch rows and (8, 128) tiles.

Legal and tricky: only the last two block dimensions are tiled; the leading block
dimension (2 of 4) is free, and a squeezed leading `None` is free too.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

B, T, D = 4, 16, 256
BB, BT, BD = 2, 8, 128


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def batched_add(x, y):
    spec = pl.BlockSpec((BB, BT, BD), lambda b, t, d: (b, t, d))
    return pl.pallas_call(
        add_kernel,
        out_shape=jax.ShapeDtypeStruct((B, T, D), jnp.float32),
        grid=(B // BB, T // BT, D // BD),
        in_specs=[spec, spec],
        out_specs=spec,
    )(x, y)


def per_batch_add(x, y):
    spec = pl.BlockSpec((None, BT, BD), lambda b, t, d: (b, t, d))
    return pl.pallas_call(
        add_kernel,
        out_shape=jax.ShapeDtypeStruct((B, T, D), jnp.float32),
        grid=(B, T // BT, D // BD),
        in_specs=[spec, spec],
        out_specs=spec,
    )(x, y)


def jax_check():
    x = jax.ShapeDtypeStruct((B, T, D), jnp.float32)
    jax.export.export(jax.jit(batched_add), platforms=["tpu"])(x, x)
    jax.export.export(jax.jit(per_batch_add), platforms=["tpu"])(x, x)
