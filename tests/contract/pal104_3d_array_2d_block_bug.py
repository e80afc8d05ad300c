"""Per-head scaling of a (heads, seq, dim) tensor, one (8, 128) tile per step.

Bug: the array is 3-D but the author wrote a 2-D block, forgetting the squeezed head
dimension (`None`).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

H, T, D, BT = 4, 16, 128, 8


def head_scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * (1.0 + pl.program_id(0).astype(jnp.float32))


def head_scale(x):
    return pl.pallas_call(
        head_scale_kernel,
        out_shape=jax.ShapeDtypeStruct((H, T, D), jnp.float32),
        grid=(H, T // BT),
        in_specs=[pl.BlockSpec((BT, D), lambda h, t: (t, 0))],  # expect: PAL104
        out_specs=pl.BlockSpec((None, BT, D), lambda h, t: (h, t, 0)),
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((H, T, D), jnp.float32)
    jax.export.export(jax.jit(head_scale), platforms=["tpu"])(x)
