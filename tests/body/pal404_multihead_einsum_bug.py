"""Multi-head attention scores of a bf16 row block split into heads, with `jnp.einsum`.

Bug: the batched bf16 einsum has no `preferred_element_type`: it lowers to a bf16
`tpu.matmul` (a 3-D matmul needs a 32-bit accumulator as a 2-D one does).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, HEADS, HEAD_DIM = 16, 2, 128


def heads_kernel(x_ref, o_ref):
    x = x_ref[...].reshape(ROWS, HEADS, HEAD_DIM).swapaxes(0, 1)
    s = jnp.einsum("hqd,hkd->hqk", x, x)  # expect: PAL404
    o_ref[...] = s.astype(jnp.float32)


def heads(x):
    return pl.pallas_call(heads_kernel, out_shape=jax.ShapeDtypeStruct((HEADS, ROWS, ROWS), jnp.float32))(x)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, HEADS * HEAD_DIM), jnp.bfloat16)
    jax.export.export(jax.jit(heads), platforms=["tpu"])(x)
