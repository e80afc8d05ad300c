"""A matmul over K chunks inside the kernel: a `fori_loop` adds each chunk's product to a
carried accumulator, bf16 operands with f32 products.

Correct: the accumulator is f32 from the start; the result is cast once, at the store.
"""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

M, K, N, BK = 128, 512, 128, 128


def chunked_matmul_kernel(x_ref, w_ref, o_ref):
    def step(k, acc):
        x = x_ref[:, pl.ds(pl.multiple_of(k * BK, BK), BK)]
        w = w_ref[pl.ds(pl.multiple_of(k * BK, BK), BK), :]
        return acc + jnp.dot(x, w, preferred_element_type=jnp.float32)

    acc = lax.fori_loop(0, K // BK, step, jnp.zeros((M, N), jnp.float32))
    o_ref[...] = acc.astype(o_ref.dtype)


def chunked_matmul(x, w):
    return pl.pallas_call(chunked_matmul_kernel, out_shape=jax.ShapeDtypeStruct((M, N), jnp.bfloat16))(x, w)


def trace():
    x = jax.ShapeDtypeStruct((M, K), jnp.bfloat16)
    w = jax.ShapeDtypeStruct((K, N), jnp.bfloat16)
    jax.export.export(jax.jit(chunked_matmul), platforms=["tpu"])(x, w)
