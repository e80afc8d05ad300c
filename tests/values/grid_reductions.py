"""Reductions that accumulate into the output across a grid axis, and the reshapes real
kernels do around them: column sums of a bf16 activation in f32 (`o_ref[...] +=` under a
`pl.when` init), per-channel mean / variance statistics over the `(rows, C)` blocks of a
3-D array read with `x_ref[0]`, a small self-attention that splits and merges heads with
`reshape` / `jnp.swapaxes` and broadcasts a bias with `jnp.expand_dims` /
`jnp.broadcast_to`, and a transpose (`.T`, `[None]`) scaled by a `jnp.tile`d pattern."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def column_sum_kernel(x_ref, o_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    x = x_ref[...].astype(jnp.float32)
    o_ref[...] += jnp.sum(x, axis=0, keepdims=True)


def column_sum(x, *, bm=8, bn=128):
    m, n = x.shape
    return pl.pallas_call(
        column_sum_kernel,
        grid=(n // bn, m // bm),
        in_specs=[pl.BlockSpec((bm, bn), lambda j, i: (i, j))],
        out_specs=pl.BlockSpec((1, bn), lambda j, i: (0, j)),
        out_shape=jax.ShapeDtypeStruct((1, n), jnp.float32),
        interpret=True,
    )(x)


def channel_stats_kernel(x_ref, mean_ref, var_ref, sum_ref, sq_ref, *, total_rows):
    step = pl.program_id(0)

    @pl.when(step == 0)
    def _():
        sum_ref[...] = jnp.zeros_like(sum_ref)
        sq_ref[...] = jnp.zeros_like(sq_ref)

    x = x_ref[0]
    xf = x.astype(jnp.float32)
    sum_ref[...] += xf.sum(axis=0, keepdims=True)
    sq_ref[...] += (xf * xf).sum(axis=0, keepdims=True)

    @pl.when(step == pl.num_programs(0) - 1)
    def _():
        count = np.float32(total_rows)
        mean = sum_ref[...] / count
        var = sq_ref[...] / count - mean * mean
        mean_ref[...] = mean
        var_ref[...] = jnp.maximum(var, jnp.float32(0.0))


def channel_stats(x):
    n, rows, c = x.shape
    stat = jax.ShapeDtypeStruct((1, c), jnp.float32)
    stat_spec = pl.BlockSpec((1, c), lambda i: (0, 0))
    return pl.pallas_call(
        functools.partial(channel_stats_kernel, total_rows=n * rows),
        grid=(n,),
        in_specs=[pl.BlockSpec((1, rows, c), lambda i: (i, 0, 0))],
        out_specs=[stat_spec, stat_spec],
        out_shape=[stat, stat],
        scratch_shapes=[pltpu.VMEM((1, c), jnp.float32), pltpu.VMEM((1, c), jnp.float32)],
        interpret=True,
    )(x)


def self_attention_kernel(x_ref, bias_ref, o_ref, *, num_heads):
    x = x_ref[...]
    rows, width = x.shape
    head_dim = width // num_heads
    q = (x * 0.125).reshape(rows, num_heads, head_dim)
    kv = x.reshape(rows, num_heads, head_dim)
    q = jnp.swapaxes(q, 0, 1)
    kv = jnp.swapaxes(kv, 0, 1)
    s = jnp.einsum("hqd,hkd->hqk", q, kv, preferred_element_type=jnp.float32)
    bias = jnp.broadcast_to(jnp.expand_dims(bias_ref[...], 0), s.shape)
    s = s + bias
    p = jnp.exp(s - s.max(axis=-1, keepdims=True))
    p = p / p.sum(axis=-1, keepdims=True)
    ctx = jnp.einsum("hqk,hkd->hqd", p.astype(x.dtype), kv,
                     preferred_element_type=jnp.float32)
    merged = ctx.swapaxes(0, 1).reshape(rows, width)
    o_ref[...] = merged.astype(o_ref.dtype)


def self_attention(x, bias, *, num_heads=4):
    return pl.pallas_call(
        functools.partial(self_attention_kernel, num_heads=num_heads),
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        interpret=True,
    )(x, bias)


def transpose_scale_kernel(x_ref, pattern_ref, o_ref):
    x = x_ref[...]
    xt = x.T
    period = pattern_ref.shape[1]
    scale = jnp.tile(pattern_ref[...], (1, xt.shape[1] // period))
    doubled = np.float32(2.0) * xt
    y = (doubled * scale)[None]
    o_ref[...] = y


def transpose_scale(x, pattern, *, bm=16, bn=128):
    m, n = x.shape
    return pl.pallas_call(
        transpose_scale_kernel,
        grid=(m // bm, n // bn),
        in_specs=[pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
                  pl.BlockSpec(pattern.shape, lambda i, j: (0, 0))],
        out_specs=pl.BlockSpec((1, bn, bm), lambda i, j: (i, j, 0)),
        out_shape=jax.ShapeDtypeStruct((m // bm, n, bm), jnp.float32),
        interpret=True,
    )(x, pattern)


def trace():
    column_sum(jnp.ones((16, 128), jnp.bfloat16))
    channel_stats(jnp.ones((2, 16, 128), jnp.bfloat16))
    self_attention(jnp.ones((8, 128), jnp.bfloat16), jnp.zeros((8, 8), jnp.float32))
    transpose_scale(jnp.ones((16, 256), jnp.bfloat16), jnp.ones((1, 8), jnp.float32))
