"""Mixture-of-experts routing and combine kernels: a top-2 router over the expert lanes
(`jnp.argmax`, a one-hot from `lax.broadcasted_iota`, masking out the first choice,
renormalized gates) and a combine that weights each expert's output by its gate and
sums over the expert axis."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def router_kernel(x_ref, w_ref, gates_ref, experts_ref):
    x = x_ref[...]
    logits = jnp.dot(x, w_ref[...], preferred_element_type=jnp.float32)
    probs = jax.nn.softmax(logits, axis=-1)
    expert_ids = lax.broadcasted_iota(jnp.int32, probs.shape, 1)
    first = jnp.argmax(probs, axis=-1, keepdims=True)
    first_gate = jnp.max(probs, axis=-1, keepdims=True)
    masked = jnp.where(expert_ids == first, -1.0, probs)
    second = jnp.argmax(masked, axis=-1, keepdims=True)
    second_gate = jnp.max(masked, axis=-1, keepdims=True)
    norm = first_gate + second_gate
    gates_ref[...] = jnp.concatenate([first_gate, second_gate], axis=-1) / norm
    experts_ref[...] = jnp.concatenate([first, second], axis=-1).astype(jnp.int32)


def router(x, w, *, bm=8):
    m, d = x.shape
    return pl.pallas_call(
        router_kernel,
        grid=(m // bm,),
        in_specs=[pl.BlockSpec((bm, d), lambda i: (i, 0)),
                  pl.BlockSpec(w.shape, lambda i: (0, 0))],
        out_specs=[pl.BlockSpec((bm, 2), lambda i: (i, 0)),
                   pl.BlockSpec((bm, 2), lambda i: (i, 0))],
        out_shape=[jax.ShapeDtypeStruct((m, 2), jnp.float32),
                   jax.ShapeDtypeStruct((m, 2), jnp.int32)],
        interpret=True,
    )(x, w)


def combine_kernel(y_ref, gates_ref, o_ref):
    y = y_ref[...].astype(jnp.float32)
    gates = gates_ref[...]
    weights = jnp.swapaxes(gates, 0, 1)[:, :, None]
    weighted = y * weights
    combined = jnp.sum(weighted, axis=0)
    o_ref[...] = combined.astype(o_ref.dtype)


def combine(expert_out, gates, *, bm=8):
    num_experts, m, d = expert_out.shape
    return pl.pallas_call(
        combine_kernel,
        grid=(m // bm,),
        in_specs=[pl.BlockSpec((num_experts, bm, d), lambda i: (0, i, 0)),
                  pl.BlockSpec((bm, num_experts), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((bm, d), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct((m, d), expert_out.dtype),
        interpret=True,
    )(expert_out, gates)


def trace():
    router(jnp.ones((16, 128), jnp.bfloat16), jnp.ones((128, 8), jnp.bfloat16))
    combine(jnp.ones((4, 16, 128), jnp.bfloat16), jnp.ones((16, 4), jnp.float32))
