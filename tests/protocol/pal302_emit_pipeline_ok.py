"""Scale a (64, 128) HBM activation by 2 with `pltpu.emit_pipeline` over (8, 128) row
blocks, inside a kernel whose operands stay in HBM (`pl.ANY`), after a hand-written,
waited DMA of a (8, 128) scale table into VMEM.

No twin: the check must stay silent on JAX's own pipeline (its DMAs, started in one
pipeline step and waited in the next, are all waited by the end) and on the waited copy.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

N, ROWS, COLS = 8, 8, 128
# emit_pipeline asks for the chip's tiling; on a CPU it runs under a TPU abstract mesh.
TPU_V5E = jax.sharding.AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu")


def outer_kernel(x_hbm, t_hbm, o_hbm, table, sem):
    copy = pltpu.make_async_copy(t_hbm, table, sem)
    copy.start()
    copy.wait()

    def body(x_ref, o_ref):
        o_ref[...] = x_ref[...] * table[...]

    pltpu.emit_pipeline(
        body,
        grid=(N,),
        in_specs=[pl.BlockSpec((ROWS, COLS), lambda i: (i, 0))],
        out_specs=[pl.BlockSpec((ROWS, COLS), lambda i: (i, 0))],
    )(x_hbm, o_hbm)


def scale(x, t):
    return pl.pallas_call(
        outer_kernel,
        out_shape=jax.ShapeDtypeStruct((N * ROWS, COLS), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[pltpu.VMEM((ROWS, COLS), jnp.float32), pltpu.SemaphoreType.DMA],
        interpret=pltpu.InterpretParams(dma_execution_mode="eager"),
    )(x, t)


def jax_check():
    mesh = jax.sharding.AbstractMesh((1,), ("x",), abstract_device=TPU_V5E)
    with jax.sharding.use_abstract_mesh(mesh):
        return scale(jnp.ones((N * ROWS, COLS), jnp.float32),
                     jnp.full((ROWS, COLS), 2.0, jnp.float32))
