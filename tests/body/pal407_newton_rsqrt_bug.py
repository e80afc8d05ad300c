"""Refine an approximate reciprocal square root of a block with Newton steps until a
`while_loop` has done STEPS of them: the carry is (step, estimate).

Bug: the estimate starts as bf16 but each step mixes it with the f32 input: the body returns
an f32 estimate for a bf16 carry.
"""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

ROWS, D, STEPS = 16, 128, 3


def newton_kernel(x_ref, o_ref):
    x = x_ref[...]

    def more(carry):
        return carry[0] < STEPS

    def step(carry):
        i, y = carry
        return i + 1, y * (1.5 - 0.5 * x * y * y)

    init = (0, lax.rsqrt(x).astype(jnp.bfloat16))
    _, y = lax.while_loop(more, step, init)  # expect: PAL407
    o_ref[...] = y.astype(o_ref.dtype)


def newton(x):
    return pl.pallas_call(newton_kernel, out_shape=jax.ShapeDtypeStruct((ROWS, D), jnp.float32))(x)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, D), jnp.float32)
    jax.export.export(jax.jit(newton), platforms=["tpu"])(x)
