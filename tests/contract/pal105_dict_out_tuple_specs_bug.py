"""Return the row-block minimum and maximum as a dict of outputs.

Bug: `out_shape` is a dict but `out_specs` is a tuple; the two pytrees must have the
same structure (a dict of specs with the same keys).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, BM = 64, 128, 8


def minmax_kernel(x_ref, out_refs):
    x = x_ref[...]
    out_refs["min"][...] = jnp.broadcast_to(jnp.min(x, axis=0, keepdims=True), (BM, COLS))
    out_refs["max"][...] = jnp.broadcast_to(jnp.max(x, axis=0, keepdims=True), (BM, COLS))


def minmax(x):
    spec = pl.BlockSpec((BM, COLS), lambda i: (i, 0))
    out = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    return pl.pallas_call(
        minmax_kernel,
        out_shape={"min": out, "max": out},
        grid=(ROWS // BM,),
        in_specs=[spec],
        out_specs=(spec, spec),  # expect: PAL105
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(minmax), platforms=["tpu"])(x)
