"""`pl.select_ref` picks one of two semaphore views at run time.

Traced with `jax.make_jaxpr` only: the generic interpreter cannot discharge a DMA whose
semaphore comes from `select_ref` (an interpreter limitation, unrelated to shapes).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def pingpong_kernel(x_hbm, o_ref, buf, sem):
    i = pl.program_id(0)
    chosen = pl.select_ref(i % 2, sem.at[0], sem.at[1])
    cp = pltpu.make_async_copy(x_hbm.at[i], buf, chosen)
    cp.start()
    cp.wait()
    pltpu.make_async_copy(buf, o_ref.at[i], pl.select_ref(i % 2, sem.at[1], sem.at[0])).start()
    pltpu.make_async_copy(buf, o_ref.at[i], pl.select_ref(i % 2, sem.at[1], sem.at[0])).wait()


def trace():
    x = jnp.arange(3 * 8 * 128, dtype=jnp.float32).reshape(3, 8, 128)
    call = pl.pallas_call(
        pingpong_kernel,
        grid=(3,),
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA(2)],
        interpret=True,
    )
    jax.make_jaxpr(call)(x)
