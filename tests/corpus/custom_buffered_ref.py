"""A custom pipeline buffer: a subclass of `pltpu.BufferedRef` whose copy and wait
of an input block use the slot's semaphore (`self.sem_recvs.at[slot]`: JAX declares
the field as one DMA semaphore per buffer).  The kernel allocates it with
`pl.run_scoped` and drives it itself."""

import dataclasses

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

BLOCK = (8, 128)


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class StagedInput(pltpu.BufferedRef):
    def copy_in(self, src_ref, grid_indices):
        if not self.is_buffered:
            return
        slot = grid_indices[0] % self.buffer_count
        pltpu.make_async_copy(src_ref.at[pl.ds(0, BLOCK[0])], self.window_ref.at[slot],
                              self.sem_recvs.at[slot]).start()

    def wait_in(self, src_ref, grid_indices):
        if not self.is_buffered:
            return
        slot = grid_indices[0] % self.buffer_count
        pltpu.make_async_copy(src_ref.at[pl.ds(0, BLOCK[0])], self.window_ref.at[slot],
                              self.sem_recvs.at[slot]).wait()


def kernel(x_hbm, o_hbm):
    spec = pl.BlockSpec(BLOCK, lambda i: (i, 0))
    staged = StagedInput.input(spec, jax.core.ShapedArray(x_hbm.shape, x_hbm.dtype), 2, grid_rank=1)

    def run(bref):
        bref.copy_in(x_hbm, (0,))
        bref.wait_in(x_hbm, (0,))
        o_hbm[...] = bref.window_ref[0] + 1.0

    pl.run_scoped(run, staged)


def trace():
    x = jnp.zeros(BLOCK, jnp.float32)
    any_spec = pl.BlockSpec(memory_space=pl.ANY)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), in_specs=[any_spec],
                         out_specs=pl.BlockSpec(memory_space=pltpu.VMEM), interpret=True)(x)
    assert jnp.allclose(out, 1.0)

