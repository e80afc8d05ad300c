"""Rotary position embeddings applied inside a kernel: the rotate-half form (`x[..., :half]`,
`jnp.concatenate`) on a `(seq, heads, head_dim)` block with cos / sin broadcast over the
heads by `[:, None, :]`, and the interleaved form with `pltpu.roll` along the lanes and a
parity mask from `lax.broadcasted_iota`."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def rope_half_kernel(x_ref, cos_ref, sin_ref, o_ref):
    x = x_ref[...].astype(jnp.float32)
    half = x.shape[-1] // 2
    x1 = x[..., :half]
    x2 = x[..., half:]
    rotated = jnp.concatenate([-x2, x1], axis=-1)
    cos = cos_ref[...][:, None, :]
    sin = sin_ref[...][:, None, :]
    out = x * cos + rotated * sin
    o_ref[...] = out.astype(o_ref.dtype)


def rope_half(x, cos, sin, *, block_seq=8):
    seq, heads, dim = x.shape
    return pl.pallas_call(
        rope_half_kernel,
        grid=(seq // block_seq,),
        in_specs=[pl.BlockSpec((block_seq, heads, dim), lambda i: (i, 0, 0)),
                  pl.BlockSpec((block_seq, dim), lambda i: (i, 0)),
                  pl.BlockSpec((block_seq, dim), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((block_seq, heads, dim), lambda i: (i, 0, 0)),
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        interpret=True,
    )(x, cos, sin)


def rope_interleaved_kernel(x_ref, cos_ref, sin_ref, o_ref):
    x = x_ref[...].astype(jnp.float32)
    dim = x.shape[-1]
    lane = lax.broadcasted_iota(jnp.int32, x.shape, 1)
    even = lane % 2 == 0
    nxt = pltpu.roll(x, dim - 1, 1)
    prev = pltpu.roll(x, 1, 1)
    partner = jnp.where(even, -nxt, prev)
    out = x * cos_ref[...] + partner * sin_ref[...]
    o_ref[...] = out.astype(o_ref.dtype)


def rope_interleaved(x, cos, sin, *, block_rows=8):
    rows, dim = x.shape
    spec = pl.BlockSpec((block_rows, dim), lambda i: (i, 0))
    return pl.pallas_call(
        rope_interleaved_kernel,
        grid=(rows // block_rows,),
        in_specs=[spec, spec, spec],
        out_specs=spec,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        interpret=True,
    )(x, cos, sin)


def trace():
    x = jnp.ones((16, 4, 128), jnp.bfloat16)
    table = jnp.ones((16, 128), jnp.float32)
    rope_half(x, table, table)
    rope_interleaved(jnp.ones((16, 128), jnp.bfloat16), table, table)
