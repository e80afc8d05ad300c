"""Blend two inputs with a weight bound positionally by `functools.partial`.

Legal and tricky: the partial binds the leading `alpha` parameter and the keyword-only
`nbuf`, so the remaining positional parameters `x_ref, y_ref, o_ref` match the refs.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS, BM = 64, 128, 8


def blend_kernel(alpha, x_ref, y_ref, o_ref, *, nbuf):
    acc = alpha * x_ref[...] + (1.0 - alpha) * y_ref[...]
    for _ in range(nbuf - 1):
        acc = acc * 0.5
    o_ref[...] = acc


def blend(x, y):
    kernel = functools.partial(blend_kernel, 0.25, nbuf=2)
    spec = pl.BlockSpec((BM, COLS), lambda i: (i, 0))
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid_spec=pl.GridSpec(grid=(ROWS // BM,), in_specs=[spec, spec], out_specs=spec),
        compiler_params=pltpu.CompilerParams(dimension_semantics=(pltpu.PARALLEL,)),
    )(x, y)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(blend), platforms=["tpu"])(x, x)
