"""A matmul tile with an optional Gram-matrix path, chosen by a Python flag.

Correct: `pl.when` given a Python bool calls its body only when the flag is True (JAX
traces no `lax.cond` for it), and the `x @ x` there is only asked for square tiles; this
module's entry point passes False. The flag is not known where the kernel is read, so the
body may not be traced: no error is certain there.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

M, K, N = 128, 256, 128


def matmul_kernel(x_ref, w_ref, o_ref, *, gram):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...])

    @pl.when(gram)
    def _():
        o_ref[...] += jnp.dot(x_ref[...], x_ref[...])


def matmul(x, w, gram):
    return pl.pallas_call(
        functools.partial(matmul_kernel, gram=gram),
        grid=(1,),
        in_specs=[pl.BlockSpec((M, K), lambda i: (0, 0)), pl.BlockSpec((K, N), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((M, N), lambda i: (0, 0)),
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
    )(x, w)


def trace():
    x = jax.ShapeDtypeStruct((M, K), jnp.float32)
    w = jax.ShapeDtypeStruct((K, N), jnp.float32)
    jax.export.export(jax.jit(matmul, static_argnames="gram"), platforms=["tpu"])(x, w, gram=False)
