"""Scale a (64, 256) array by a constant, the constant bound with `functools.partial`.

Bug: `scale` is keyword-only, but the author bound it positionally, so the 0.5 is
passed as an extra leading positional argument.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, BM = 64, 256, 16


def scale_kernel(x_ref, o_ref, *, scale):  # expect: PAL101
    o_ref[...] = x_ref[...] * scale


def scale_rows(x):
    kernel = functools.partial(scale_kernel, 0.5)
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(ROWS // BM,),
        in_specs=[pl.BlockSpec((BM, COLS), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((BM, COLS), lambda i: (i, 0)),
    )(x)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(scale_rows), platforms=["tpu"])(x)
