"""Elementwise exp over a length-1000 f32 vector in rank-1 blocks.

Legal and tricky: the rank-1 block is the whole 1000-element vector (one grid step);
1000 is neither a multiple of 1024 nor a power of 2, but equal to the array.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

N, BLOCK = 1000, 1000

# Rank-1 block rules depend on the chip: lower for a TPU v5e described abstractly.
TPU_V5E = jax.sharding.AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu")


def exp_kernel(x_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...])


def vec_exp(x):
    return pl.pallas_call(
        exp_kernel,
        out_shape=jax.ShapeDtypeStruct((N,), jnp.float32),
        grid=(N // BLOCK,),
        in_specs=[pl.BlockSpec((BLOCK,), lambda i: (i,))],
        out_specs=pl.BlockSpec((BLOCK,), lambda i: (i,)),
    )(x)


def jax_check():
    mesh = jax.sharding.AbstractMesh((1,), ("x",), abstract_device=TPU_V5E)
    with jax.sharding.use_abstract_mesh(mesh):
        x = jax.ShapeDtypeStruct((N,), jnp.float32)
        jax.export.export(jax.jit(vec_exp), platforms=["tpu"])(x)
