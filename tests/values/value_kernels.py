"""Kernels whose every assigned value has a known aval (the value recorder's test bed).

A tiled bf16 matmul with an f32 accumulator and a `pl.when` epilogue, a layernorm with
weak Python-float constants, a `lax.fori_loop` row sum, a kernel traced at two shapes
and an unrolled Python loop (several avals at one place). `trace()` traces them all on
CPU: the matmul under `jax.jit(...).trace(...)`, the others with `interpret=True`.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

BM, BN, BK = 16, 128, 128


def matmul_kernel(x_ref, w_ref, o_ref, acc_ref):
    k = pl.program_id(2)
    nk = pl.num_programs(2)

    @pl.when(k == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc = jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.float32)
    acc_ref[...] += acc

    @pl.when(k == nk - 1)
    def _():
        out = acc_ref[...].astype(o_ref.dtype)
        o_ref[...] = out


def matmul(x, w):
    m, kdim = x.shape
    n = w.shape[1]
    return pl.pallas_call(
        matmul_kernel,
        grid=(m // BM, n // BN, kdim // BK),
        in_specs=[pl.BlockSpec((BM, BK), lambda i, j, k: (i, k)),
                  pl.BlockSpec((BK, BN), lambda i, j, k: (k, j))],
        out_specs=pl.BlockSpec((BM, BN), lambda i, j, k: (i, j)),
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        scratch_shapes=[pltpu.VMEM((BM, BN), jnp.float32)],
    )(x, w)


def _center(x):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    return x - mean


def layernorm_kernel(x_ref, g_ref, o_ref, *, eps):
    x = x_ref[...].astype(jnp.float32)
    s = 2.0
    mean = jnp.mean(x, axis=-1, keepdims=True)
    xc = _center(x)
    var: jax.Array = jnp.mean(xc * xc, axis=-1, keepdims=True)
    inv = lax.rsqrt(var + eps) * s
    rows = x_ref.shape[0]
    h = g_ref[...]
    scaled = h * 0.5
    neg = jnp.finfo(jnp.float32).min
    y, z = (xc * inv,
            jnp.maximum(mean, neg))
    y += z
    o_ref[...] = (res := (y * scaled.astype(jnp.float32)).astype(o_ref.dtype)) + rows * 0
    del res


def layernorm(x, g):
    return pl.pallas_call(
        functools.partial(layernorm_kernel, eps=1e-5),
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        interpret=True,
    )(x, g)


def rowsum_kernel(x_ref, o_ref):
    def body(i, carry):
        row = x_ref[pl.ds(i, 1), :]
        carry = carry + row
        return carry

    init = jnp.zeros((1, x_ref.shape[1]), jnp.float32)
    total = lax.fori_loop(0, x_ref.shape[0], body, init)
    o_ref[...] = total


def rowsum(x):
    return pl.pallas_call(
        rowsum_kernel,
        out_shape=jax.ShapeDtypeStruct((1, x.shape[1]), jnp.float32),
        interpret=True,
    )(x)


def halves_kernel(x_ref, o_ref):
    first = x_ref[...]
    for k in range(2):
        part = first[: 8 * (k + 1)]
        o_ref[: 8 * (k + 1)] = part
    if (n := first.shape[0]) > 8:
        o_ref[8:] = first[8:n]


def halves(x):
    return pl.pallas_call(
        halves_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        interpret=True,
    )(x)


def trace():
    x = jax.ShapeDtypeStruct((32, 256), jnp.bfloat16)
    w = jax.ShapeDtypeStruct((256, 256), jnp.bfloat16)
    jax.jit(matmul).trace(x, w)
    layernorm(jnp.ones((8, 128), jnp.float32), jnp.ones((8, 128), jnp.bfloat16))
    rowsum(jnp.ones((8, 128), jnp.float32))
    halves(jnp.ones((16, 128), jnp.float32))
    halves(jnp.ones((24, 128), jnp.int32))
