"""Clamp a length-3072 f32 vector into [-1, 1] in rank-1 chunks.

Bug: 384 is a multiple of 128 but rank-1 blocks need a power of 2 (>= 128 for f32), a
multiple of 1024, or the whole array.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

N, BLOCK = 3072, 384

TPU_V5E = jax.sharding.AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu")


def clamp_kernel(x_ref, o_ref):
    o_ref[...] = jnp.clip(x_ref[...], -1.0, 1.0)


def clamp(x):
    chunk = pl.BlockSpec((BLOCK,), lambda i: (i,))  # expect: PAL202
    return pl.pallas_call(
        clamp_kernel,
        out_shape=jax.ShapeDtypeStruct((N,), jnp.float32),
        grid=(N // BLOCK,),
        in_specs=[chunk],
        out_specs=chunk,
    )(x)


def jax_check():
    mesh = jax.sharding.AbstractMesh((1,), ("x",), abstract_device=TPU_V5E)
    with jax.sharding.use_abstract_mesh(mesh):
        x = jax.ShapeDtypeStruct((N,), jnp.float32)
        jax.export.export(jax.jit(clamp), platforms=["tpu"])(x)
