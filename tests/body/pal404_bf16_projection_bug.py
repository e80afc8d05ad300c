"""A bf16 projection of a row block, written straight into a bf16 output block.

Bug: the bf16 x bf16 dot has no `preferred_element_type`: Mosaic requires a 32-bit
matmul accumulator (the f32 product then has to be cast back for the bf16 output).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

M, K, N, BM = 256, 256, 128, 128


def projection_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...])  # expect: PAL404


def projection(x, w):
    return pl.pallas_call(
        projection_kernel,
        grid=(M // BM,),
        in_specs=[pl.BlockSpec((BM, K), lambda i: (i, 0)), pl.BlockSpec((K, N), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((BM, N), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.bfloat16),
    )(x, w)


def trace():
    x = jax.ShapeDtypeStruct((M, K), jnp.bfloat16)
    w = jax.ShapeDtypeStruct((K, N), jnp.bfloat16)
    jax.export.export(jax.jit(projection), platforms=["tpu"])(x, w)
