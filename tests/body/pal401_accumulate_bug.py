"""A K-tiled matmul that accumulates each step's partial product in its bf16 output block.

Bug: `+=` adds an f32 partial product to the bf16 block; the sum is f32 and the store
does not convert it back.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

M, K, N, BK = 64, 512, 128, 128


def matmul_kernel(x_ref, w_ref, o_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        o_ref[...] = jnp.zeros((M, N), o_ref.dtype)

    o_ref[...] += jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.float32)  # expect: PAL401


def matmul(x, w):
    return pl.pallas_call(
        matmul_kernel,
        grid=(K // BK,),
        in_specs=[pl.BlockSpec((M, BK), lambda k: (0, k)), pl.BlockSpec((BK, N), lambda k: (k, 0))],
        out_specs=pl.BlockSpec((M, N), lambda k: (0, 0)),
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.bfloat16),
        interpret=True,
    )(x, w)


def trace():
    return matmul(jnp.ones((M, K), jnp.bfloat16), jnp.ones((K, N), jnp.bfloat16))
