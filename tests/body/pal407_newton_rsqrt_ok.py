"""Refine an approximate reciprocal square root of a block with Newton steps until a
`while_loop` has done STEPS of them: the carry is (step, estimate).

Correct: the estimate is f32 throughout, as the body returns it.
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

    init = (0, lax.rsqrt(x))
    _, y = lax.while_loop(more, step, init)
    o_ref[...] = y.astype(o_ref.dtype)


def newton(x):
    return pl.pallas_call(newton_kernel, out_shape=jax.ShapeDtypeStruct((ROWS, D), jnp.float32))(x)


def trace():
    x = jax.ShapeDtypeStruct((ROWS, D), jnp.float32)
    jax.export.export(jax.jit(newton), platforms=["tpu"])(x)
