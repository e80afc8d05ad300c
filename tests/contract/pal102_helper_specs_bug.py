"""Blocked matmul whose BlockSpecs come from small helper functions.

Bug: the helpers were written for an (i, j, k) grid with a K loop; the author then
loaded the whole K dimension per block and dropped `k` from the grid, but the index
maps still take three grid indices.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

M, K, N = 64, 256, 256
BM, BN = 32, 128


def lhs_spec(bm, bk):
    return pl.BlockSpec((bm, bk), lambda i, j, k: (i, 0))  # expect: PAL102


def rhs_spec(bk, bn):
    return pl.BlockSpec((bk, bn), lambda i, j, k: (0, j))  # expect: PAL102


def out_spec(bm, bn):
    return pl.BlockSpec((bm, bn), lambda i, j: (i, j))


def matmul_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)


def matmul(a, b):
    return pl.pallas_call(
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
        grid=(M // BM, N // BN),
        in_specs=[lhs_spec(BM, K), rhs_spec(K, BN)],
        out_specs=out_spec(BM, BN),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel")),
    )(a, b)


def jax_check():
    a = jax.ShapeDtypeStruct((M, K), jnp.float32)
    b = jax.ShapeDtypeStruct((K, N), jnp.float32)
    jax.export.export(jax.jit(matmul), platforms=["tpu"])(a, b)
