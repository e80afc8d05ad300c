"""Tiled matmuls in the style of `pallas/ops/tpu/matmul.py`: a bf16 matmul with an f32
VMEM accumulator over the k grid axis, and an int8 x int8 -> int32 matmul whose epilogue
dequantizes with per-row and per-column f32 scales."""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def matmul_kernel(x_ref, y_ref, o_ref, acc_ref, *, nsteps):
    @pl.when(pl.program_id(2) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    x = x_ref[...]
    y = y_ref[...]
    acc_ref[...] += jnp.dot(x, y, preferred_element_type=jnp.float32)

    @pl.when(pl.program_id(2) == nsteps - 1)
    def _():
        o_ref[...] = acc_ref[...].astype(o_ref.dtype)


def matmul(x, y, *, bm=16, bk=128, bn=128):
    m, k = x.shape
    _, n = y.shape
    return pl.pallas_call(
        functools.partial(matmul_kernel, nsteps=k // bk),
        grid=(m // bm, n // bn, k // bk),
        in_specs=[pl.BlockSpec((bm, bk), lambda i, j, kk: (i, kk)),
                  pl.BlockSpec((bk, bn), lambda i, j, kk: (kk, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, kk: (i, j)),
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
        interpret=True,
    )(x, y)


def int8_matmul_kernel(x_ref, w_ref, xs_ref, ws_ref, o_ref, acc_ref):
    k = pl.program_id(2)

    @pl.when(k == 0)
    def _():
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.int32)

    acc_ref[...] += jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.int32)

    @pl.when(k == pl.num_programs(2) - 1)
    def _():
        acc = acc_ref[...].astype(jnp.float32)
        scale = xs_ref[...] * ws_ref[...]
        out = acc * scale
        o_ref[...] = out.astype(o_ref.dtype)


def int8_matmul(x, w, x_scale, w_scale, *, bm=32, bk=128, bn=128):
    m, k = x.shape
    n = w.shape[1]
    return pl.pallas_call(
        int8_matmul_kernel,
        grid=(m // bm, n // bn, k // bk),
        in_specs=[pl.BlockSpec((bm, bk), lambda i, j, kk: (i, kk)),
                  pl.BlockSpec((bk, bn), lambda i, j, kk: (kk, j)),
                  pl.BlockSpec((bm, 1), lambda i, j, kk: (i, 0)),
                  pl.BlockSpec((1, bn), lambda i, j, kk: (0, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, kk: (i, j)),
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.bfloat16),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.int32)],
        interpret=True,
    )(x, w, x_scale, w_scale)


def trace():
    x = jnp.ones((16, 256), jnp.bfloat16)
    y = jnp.ones((256, 128), jnp.bfloat16)
    matmul(x, y)
    xq = jnp.ones((32, 256), jnp.int8)
    wq = jnp.ones((256, 128), jnp.int8)
    int8_matmul(xq, wq, jnp.ones((32, 1), jnp.float32), jnp.ones((1, 128), jnp.float32))
