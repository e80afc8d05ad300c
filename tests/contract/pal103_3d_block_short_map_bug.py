"""Batched bias add over (batch, row-block) tiles with a squeezed batch dimension.

Bug: the block `(None, 8, 128)` has three dimensions (the squeezed one counts), but the
input index map returns only the two row/column block indices.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

B, T, D, BT = 2, 32, 128, 8


def bias_kernel(x_ref, b_ref, o_ref):
    o_ref[...] = x_ref[...] + b_ref[...]


def add_bias(x, bias):
    return pl.pallas_call(
        bias_kernel,
        out_shape=jax.ShapeDtypeStruct((B, T, D), jnp.float32),
        grid=(B, T // BT),
        in_specs=[
            pl.BlockSpec((None, BT, D), lambda b, t: (t, 0)),  # expect: PAL103
            pl.BlockSpec((BT, D), lambda b, t: (t, 0)),
        ],
        out_specs=pl.BlockSpec((None, BT, D), lambda b, t: (b, t, 0)),
    )(x, bias)


def jax_check():
    x = jax.ShapeDtypeStruct((B, T, D), jnp.float32)
    bias = jax.ShapeDtypeStruct((T, D), jnp.float32)
    jax.export.export(jax.jit(add_bias), platforms=["tpu"])(x, bias)
