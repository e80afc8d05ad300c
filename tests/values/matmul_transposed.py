"""Matmuls written with `lax.dot_general`: an NT matmul (`x @ w.T`, the layout of a
Linear layer's weight) with an f32 accumulator, and a batched matmul over a leading
head axis whose blocks squeeze the batch dim."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NT_DIMS = (((1,), (1,)), ((), ()))


def matmul_nt_kernel(x_ref, w_ref, b_ref, o_ref, acc_ref):
    k_idx = pl.program_id(2)

    @pl.when(k_idx == 0)
    def _init():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    x = x_ref[...]
    w = w_ref[...]
    acc_ref[...] += lax.dot_general(x, w, NT_DIMS, preferred_element_type=jnp.float32)

    @pl.when(k_idx == pl.num_programs(2) - 1)
    def _store():
        bias = b_ref[...].astype(jnp.float32)
        result = acc_ref[...] + bias
        o_ref[...] = result.astype(o_ref.dtype)


def linear(x, w, b, *, bm=16, bn=128, bk=128):
    m, k = x.shape
    n = w.shape[0]
    return pl.pallas_call(
        matmul_nt_kernel,
        grid=(m // bm, n // bn, k // bk),
        in_specs=[pl.BlockSpec((bm, bk), lambda i, j, kk: (i, kk)),
                  pl.BlockSpec((bn, bk), lambda i, j, kk: (j, kk)),
                  pl.BlockSpec((1, bn), lambda i, j, kk: (0, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, kk: (i, j)),
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
        interpret=True,
    )(x, w, b)


def bmm_kernel(a_ref, b_ref, o_ref):
    a = a_ref[...]
    b = b_ref[...]
    prod = lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,))),
                           preferred_element_type=jnp.float32)
    o_ref[...] = prod


def bmm(a, b, *, heads_per_block=2):
    h, m, k = a.shape
    n = b.shape[2]
    return pl.pallas_call(
        bmm_kernel,
        grid=(h // heads_per_block,),
        in_specs=[pl.BlockSpec((heads_per_block, m, k), lambda g: (g, 0, 0)),
                  pl.BlockSpec((heads_per_block, k, n), lambda g: (g, 0, 0))],
        out_specs=pl.BlockSpec((heads_per_block, m, n), lambda g: (g, 0, 0)),
        out_shape=jax.ShapeDtypeStruct((h, m, n), jnp.float32),
        interpret=True,
    )(a, b)


def trace():
    linear(jnp.ones((16, 256), jnp.bfloat16), jnp.ones((128, 256), jnp.bfloat16),
           jnp.zeros((1, 128), jnp.bfloat16))
    bmm(jnp.ones((4, 8, 128), jnp.bfloat16), jnp.ones((4, 128, 128), jnp.bfloat16))
