"""Scale a length-6144 f32 vector in two rank-1 chunks of 3072.

Legal and tricky: 3072 is not a power of 2 and not the whole vector, but it is a
multiple of 1024 (8 sublanes x 128 lanes), which the rank-1 rule accepts.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

N, BLOCK = 6144, 3072

TPU_V5E = jax.sharding.AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu")


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.125


def scale(x):
    chunk = pl.BlockSpec((BLOCK,), lambda i: (i,))
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct((N,), jnp.float32),
        grid=(N // BLOCK,),
        in_specs=[chunk],
        out_specs=chunk,
    )(x)


def jax_check():
    mesh = jax.sharding.AbstractMesh((1,), ("x",), abstract_device=TPU_V5E)
    with jax.sharding.use_abstract_mesh(mesh):
        x = jax.ShapeDtypeStruct((N,), jnp.float32)
        jax.export.export(jax.jit(scale), platforms=["tpu"])(x)
