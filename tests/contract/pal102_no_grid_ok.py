"""Whole-array kernels without a grid: `grid=()`, no grid at all, zero-argument index maps
and `index_map=None`.

Legal and tricky: with no grid every index map takes no grid index (the lambda takes
no arguments), and a BlockSpec with a block shape but `index_map=None` gets the
all-zeros default map.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 16, 128


def axpy_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = 2.0 * x_ref[...] + y_ref[...]


def axpy_empty_grid(x, y):
    return pl.pallas_call(
        axpy_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(),
        in_specs=[pl.BlockSpec((ROWS, COLS), lambda: (0, 0)), pl.BlockSpec((ROWS, COLS))],
        out_specs=pl.BlockSpec((ROWS, COLS), index_map=None),
    )(x, y)


def axpy_no_grid(x, y):
    return pl.pallas_call(
        axpy_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
    )(x, y)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(axpy_empty_grid), platforms=["tpu"])(x, x)
    jax.export.export(jax.jit(axpy_no_grid), platforms=["tpu"])(x, x)
