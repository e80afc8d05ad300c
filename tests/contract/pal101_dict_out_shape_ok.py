"""Per-block column statistics (sum and max) returned as a dict of outputs.

The dict `out_shape` arrives as one parameter, `out_refs`, indexed by key.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, BM = 64, 128, 8


def stats_kernel(x_ref, out_refs):
    sum_ref, max_ref = out_refs["sum"], out_refs["max"]
    x = x_ref[...]
    sum_ref[...] = jnp.broadcast_to(jnp.sum(x, axis=0, keepdims=True), sum_ref.shape)
    max_ref[...] = jnp.broadcast_to(jnp.max(x, axis=0, keepdims=True), max_ref.shape)


def column_stats(x):
    out = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    spec = pl.BlockSpec((BM, COLS), lambda i: (i, 0))
    return pl.pallas_call(
        stats_kernel,
        out_shape={"sum": out, "max": out},
        grid=(ROWS // BM,),
        in_specs=[spec],
        out_specs={"sum": spec, "max": spec},
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(column_stats), platforms=["tpu"])(x)
