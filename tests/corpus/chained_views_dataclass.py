"""Hierarchical-collective style: a dataclass holds multi-dimensional semaphore arrays
(`jax.Ref` fields) and slices them in steps, `self.p1_send_sem.at[slot]` then `.at[c]`."""

import dataclasses

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

CHUNKS = 3


@dataclasses.dataclass
class PhaseOne:
    src: jax.Ref
    dst: jax.Ref
    p1_send_sem: jax.Ref   # DMA((2, CHUNKS))
    p1_recv_sem: jax.Ref   # DMA((2, 2, CHUNKS))

    def run(self, recv_slot):
        p1_send_sem_slice = self.p1_send_sem.at[recv_slot]
        recv_plane = self.p1_recv_sem.at[recv_slot].at[1]
        for c in range(CHUNKS):
            cp = pltpu.make_async_copy(self.src.at[c], self.dst.at[c], p1_send_sem_slice.at[c])
            cp.start()
            cp.wait()
            back = pltpu.make_async_copy(self.dst.at[c], self.src.at[c], recv_plane.at[c])
            back.start()
            back.wait()


def kernel(x_hbm, o_ref, send_sems, recv_sems):
    o_ref[...] = jnp.zeros(o_ref.shape, o_ref.dtype)
    phase = PhaseOne(x_hbm, o_ref, send_sems, recv_sems)
    phase.run(pl.program_id(0) % 2)


def trace():
    x = jnp.ones((CHUNKS, 8, 128), jnp.float32)
    call = pl.pallas_call(
        kernel,
        grid=(2,),
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[
            pltpu.SemaphoreType.DMA((2, CHUNKS)),
            pltpu.SemaphoreType.DMA((2, 2, CHUNKS)),
        ],
        interpret=True,
    )
    jax.make_jaxpr(call)(x)
