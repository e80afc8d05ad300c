"""bf16 vector ReLU over a length-4096 vector in rank-1 chunks.

bf16 chunks of 256 = 128 * (32 // 16): the smallest power-of-2 rank-1 block for
16-bit types.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

N, BLOCK = 4096, 256

TPU_V5E = jax.sharding.AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu")


def relu_kernel(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0)


def relu(x):
    return pl.pallas_call(
        relu_kernel,
        out_shape=jax.ShapeDtypeStruct((N,), jnp.bfloat16),
        grid=(N // BLOCK,),
        in_specs=[pl.BlockSpec((BLOCK,), lambda i: (i,))],
        out_specs=pl.BlockSpec((BLOCK,), lambda i: (i,)),
    )(x)


def jax_check():
    mesh = jax.sharding.AbstractMesh((1,), ("x",), abstract_device=TPU_V5E)
    with jax.sharding.use_abstract_mesh(mesh):
        x = jax.ShapeDtypeStruct((N,), jnp.bfloat16)
        jax.export.export(jax.jit(relu), platforms=["tpu"])(x)
