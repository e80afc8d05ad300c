"""A bf16 matmul tile with an f32 accumulator.

Correct: the accumulator is cast to the output dtype before it is stored.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

M, K, N = 128, 256, 128


def matmul_kernel(x_ref, w_ref, o_ref):
    acc = jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.float32)
    o_ref[...] = acc.astype(o_ref.dtype)


def matmul(x, w):
    return pl.pallas_call(
        matmul_kernel,
        grid=(1,),
        in_specs=[pl.BlockSpec((M, K), lambda i: (0, 0)), pl.BlockSpec((K, N), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((M, N), lambda i: (0, 0)),
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.bfloat16),
        interpret=True,
    )(x, w)


def trace():
    return matmul(jnp.ones((M, K), jnp.bfloat16), jnp.ones((K, N), jnp.bfloat16))
