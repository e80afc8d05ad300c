"""Row-block matmul against a small weight matrix that every grid step loads whole.

Legal and tricky: the weight's BlockSpec has a block shape and `index_map=None`, which
Pallas replaces with an all-zeros map taking any number of grid indices.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

M, K, N, BM = 64, 128, 128, 16


def proj_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.float32)


def project(x, w):
    return pl.pallas_call(
        proj_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
        grid=(M // BM,),
        in_specs=[pl.BlockSpec((BM, K), lambda i: (i, 0)), pl.BlockSpec((K, N), None)],
        out_specs=pl.BlockSpec((BM, N), lambda i: (i, 0)),
    )(x, w)


def jax_check():
    x = jax.ShapeDtypeStruct((M, K), jnp.float32)
    w = jax.ShapeDtypeStruct((K, N), jnp.float32)
    jax.export.export(jax.jit(project), platforms=["tpu"])(x, w)
