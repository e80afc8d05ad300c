"""A bf16 blocked matmul accumulated over the K grid axis in an f32 VMEM scratch.

Bug: the bf16 x bf16 dot has no `preferred_element_type`: its result is bf16, and Mosaic
requires a 32-bit matmul accumulator.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

M, K, N = 256, 512, 256
BM, BK, BN = 128, 256, 128


def matmul_kernel(x_ref, w_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(x_ref[...], w_ref[...])  # expect: PAL404

    @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
    def _():
        o_ref[...] = acc_ref[...].astype(o_ref.dtype)


def matmul(x, w):
    return pl.pallas_call(
        matmul_kernel,
        grid=(M // BM, N // BN, K // BK),
        in_specs=[pl.BlockSpec((BM, BK), lambda i, j, k: (i, k)),
                  pl.BlockSpec((BK, BN), lambda i, j, k: (k, j))],
        out_specs=pl.BlockSpec((BM, BN), lambda i, j, k: (i, j)),
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.bfloat16),
        scratch_shapes=[pltpu.VMEM((BM, BN), jnp.float32)],
    )(x, w)


def trace():
    x = jax.ShapeDtypeStruct((M, K), jnp.bfloat16)
    w = jax.ShapeDtypeStruct((K, N), jnp.bfloat16)
    jax.export.export(jax.jit(matmul), platforms=["tpu"])(x, w)
