"""Row softmax and log-softmax along the lane axis, one block of rows per grid step: the
max-subtracted exponentials of a bf16 block in f32, `pl.reciprocal`, `jnp.log` of the
row sum, and a temperature given as a weak Python float."""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def softmax_kernel(x_ref, o_ref, *, temperature):
    x = x_ref[...].astype(jnp.float32) / temperature
    row_max = jnp.max(x, axis=1, keepdims=True)
    e = jnp.exp(x - row_max)
    denom = jnp.sum(e, axis=1, keepdims=True)
    probs = e * pl.reciprocal(denom, approx=True)
    o_ref[...] = probs.astype(o_ref.dtype)


def log_softmax_kernel(x_ref, o_ref):
    logits = x_ref[...]
    shifted = logits - logits.max(axis=-1, keepdims=True)
    lse = jnp.log(jnp.exp(shifted).sum(axis=-1, keepdims=True))
    o_ref[...] = shifted - lse


def _row_call(kernel, x, out_dtype, block_rows):
    rows, cols = x.shape
    spec = pl.BlockSpec((block_rows, cols), lambda i: (i, 0))
    return pl.pallas_call(
        kernel,
        grid=(rows // block_rows,),
        in_specs=[spec],
        out_specs=spec,
        out_shape=jax.ShapeDtypeStruct(x.shape, out_dtype),
        interpret=True,
    )(x)


def trace():
    x = jnp.ones((16, 256), jnp.bfloat16)
    _row_call(functools.partial(softmax_kernel, temperature=0.7), x, x.dtype, 8)
    _row_call(log_softmax_kernel, jnp.ones((8, 512), jnp.float32), jnp.float32, 8)
