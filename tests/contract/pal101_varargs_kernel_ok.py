"""A generic elementwise-sum kernel over any number of inputs, written with `*refs`.

Legal and tricky: a `*refs` kernel accepts however many refs Pallas passes (here three
inputs and one output); an arity check must stay silent.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, BM = 32, 128, 8


def sum_kernel(*refs):
    *in_refs, o_ref = refs
    acc = in_refs[0][...]
    for r in in_refs[1:]:
        acc = acc + r[...]
    o_ref[...] = acc


def sum_all(*xs):
    spec = pl.BlockSpec((BM, COLS), lambda i: (i, 0))
    return pl.pallas_call(
        sum_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(ROWS // BM,),
        in_specs=[spec] * len(xs),
        out_specs=spec,
    )(*xs)


def jax_check():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    jax.export.export(jax.jit(sum_all), platforms=["tpu"])(x, x, x)
