"""Row-wise softmax over (8, 128) blocks that also wants to write the log-sum-exp.

`out_shape` and `out_specs` are pairs, so Pallas passes two output refs, `o_ref` and
`lse_ref`.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, BM = 32, 128, 8


def softmax_kernel(x_ref, o_ref, lse_ref):
    x = x_ref[...]
    m = jnp.max(x, axis=-1, keepdims=True)
    e = jnp.exp(x - m)
    s = jnp.sum(e, axis=-1, keepdims=True)
    o_ref[...] = e / s
    lse_ref[...] = jnp.broadcast_to(m + jnp.log(s), lse_ref.shape)


def softmax(x):
    block = pl.BlockSpec((BM, COLS), lambda i: (i, 0))
    return pl.pallas_call(
        softmax_kernel,
        out_shape=(
            jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
            jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        ),
        grid=(ROWS // BM,),
        in_specs=[block],
        out_specs=(block, block),
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(softmax), platforms=["tpu"])(x)
