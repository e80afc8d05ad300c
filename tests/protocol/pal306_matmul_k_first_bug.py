"""Tiled matmul (16, 256) @ (256, 128) with an f32 accumulator in the output block:
(8, 128) output tiles, 128-wide contraction steps, grid (k, i), all "arbitrary".

Bug: the contraction axis `k` is the first grid axis; the output `index_map` ignores it
while it uses the later axis `i`, so each output tile is left and revisited once per
`k` step.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

M, K, N, TM, TK = 16, 256, 128, 8, 128


def matmul_kernel(a_ref, b_ref, o_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)


def matmul(a, b):
    return pl.pallas_call(
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
        grid=(K // TK, M // TM),
        in_specs=[pl.BlockSpec((TM, TK), lambda k, i: (i, k)),
                  pl.BlockSpec((TK, N), lambda k, i: (k, 0))],
        out_specs=pl.BlockSpec((TM, N), lambda k, i: (i, 0)),  # expect: PAL306
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary", "arbitrary")),
        interpret=pltpu.InterpretParams(),
    )(a, b)


def jax_check():
    return matmul(jnp.ones((M, K), jnp.float32), jnp.ones((K, N), jnp.float32))
