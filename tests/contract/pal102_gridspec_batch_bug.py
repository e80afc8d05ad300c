"""Per-batch layer norm over (batch, seq-block) tiles, with a `pl.GridSpec`.

Bug: the grid is (batch, seq blocks) but the input index map, a named function, takes
only the batch index.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

B, T, D, BT = 2, 64, 128, 16


def x_index(b):  # expect: PAL102
    return (b, 0, 0)


def layernorm_kernel(x_ref, o_ref):
    x = x_ref[...]
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mu) ** 2, axis=-1, keepdims=True)
    o_ref[...] = (x - mu) * jax.lax.rsqrt(var + 1e-5)


def layernorm(x):
    grid_spec = pl.GridSpec(
        grid=(B, T // BT),
        in_specs=[pl.BlockSpec((None, BT, D), x_index)],
        out_specs=pl.BlockSpec((None, BT, D), lambda b, t: (b, t, 0)),
    )
    return pl.pallas_call(
        layernorm_kernel,
        out_shape=jax.ShapeDtypeStruct((B, T, D), jnp.float32),
        grid_spec=grid_spec,
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((B, T, D), jnp.float32)
    jax.export.export(jax.jit(layernorm), platforms=["tpu"])(x)
