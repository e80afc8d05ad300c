"""Transformer MLP blocks: a SwiGLU feed-forward (gate and up projections, SiLU written
out with `jax.nn.sigmoid`, the down projection accumulated over hidden-dim tiles in f32)
and a GELU MLP with the tanh approximation spelled out, bias added in f32."""

import math

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def swiglu_kernel(x_ref, wg_ref, wu_ref, wd_ref, o_ref, acc_ref):
    h = pl.program_id(1)

    @pl.when(h == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    x = x_ref[...]
    gate = jnp.dot(x, wg_ref[...], preferred_element_type=jnp.float32)
    up = jnp.dot(x, wu_ref[...], preferred_element_type=jnp.float32)
    act = gate * jax.nn.sigmoid(gate) * up
    acc_ref[...] += jnp.dot(act.astype(x.dtype), wd_ref[...],
                            preferred_element_type=jnp.float32)

    @pl.when(h == pl.num_programs(1) - 1)
    def _():
        o_ref[...] = acc_ref[...].astype(o_ref.dtype)


def swiglu(x, w_gate, w_up, w_down, *, bm=16, bh=128):
    m, d = x.shape
    hidden = w_gate.shape[1]
    return pl.pallas_call(
        swiglu_kernel,
        grid=(m // bm, hidden // bh),
        in_specs=[pl.BlockSpec((bm, d), lambda i, j: (i, 0)),
                  pl.BlockSpec((d, bh), lambda i, j: (0, j)),
                  pl.BlockSpec((d, bh), lambda i, j: (0, j)),
                  pl.BlockSpec((bh, d), lambda i, j: (j, 0))],
        out_specs=pl.BlockSpec((bm, d), lambda i, j: (i, 0)),
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        scratch_shapes=[pltpu.VMEM((bm, d), jnp.float32)],
        interpret=True,
    )(x, w_gate, w_up, w_down)


def gelu_mlp_kernel(x_ref, w1_ref, b1_ref, w2_ref, b2_ref, o_ref):
    x = x_ref[...]
    h = jnp.dot(x, w1_ref[...], preferred_element_type=jnp.float32)
    h = h + b1_ref[...].astype(jnp.float32)
    c = math.sqrt(2.0 / math.pi)
    inner = c * (h + 0.044715 * h ** 3)
    h = 0.5 * h * (1.0 + jnp.tanh(inner))
    y = jnp.dot(h.astype(jnp.bfloat16), w2_ref[...], preferred_element_type=jnp.float32)
    y += b2_ref[...].astype(jnp.float32)
    o_ref[...] = y.astype(o_ref.dtype)


def gelu_mlp(x, w1, b1, w2, b2, *, bm=8):
    m, d = x.shape
    hidden = w1.shape[1]
    return pl.pallas_call(
        gelu_mlp_kernel,
        grid=(m // bm,),
        in_specs=[pl.BlockSpec((bm, d), lambda i: (i, 0)),
                  pl.BlockSpec((d, hidden), lambda i: (0, 0)),
                  pl.BlockSpec((1, hidden), lambda i: (0, 0)),
                  pl.BlockSpec((hidden, d), lambda i: (0, 0)),
                  pl.BlockSpec((1, d), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((bm, d), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        interpret=True,
    )(x, w1, b1, w2, b2)


def trace():
    x = jnp.ones((16, 128), jnp.bfloat16)
    w = jnp.ones((128, 256), jnp.bfloat16)
    swiglu(x, w, w, jnp.ones((256, 128), jnp.bfloat16))
    gelu_mlp(jnp.ones((16, 128), jnp.bfloat16), w, jnp.zeros((1, 256), jnp.bfloat16),
             jnp.ones((256, 128), jnp.bfloat16), jnp.zeros((1, 128), jnp.bfloat16))
