"""Row gather driven by scalar-prefetched indices (PrefetchScalarGridSpec).

Kernel parameters: the two prefetched SMEM refs, the HBM table, the output block, then
the scratch (a VMEM row buffer and a DMA((8,)) array: one semaphore per row of a step;
eight rows per step, so the output block is (8, 128) as the TPU lowering's tiling wants).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS_PER_STEP = 8


def gather_kernel(idx_ref, scale_ref, table_hbm, o_ref, rows_vmem, sems):
    step = pl.program_id(0)
    copies = []
    for r in range(ROWS_PER_STEP):
        row = idx_ref[step * ROWS_PER_STEP + r]
        cp = pltpu.make_async_copy(table_hbm.at[pl.ds(row, 1)], rows_vmem.at[pl.ds(r, 1)], sems.at[r])
        cp.start()
        copies.append(cp)
    for cp in copies:
        cp.wait()
    o_ref[...] = rows_vmem[...] * scale_ref[0].astype(jnp.float32)


def trace():
    table = jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128)
    idx = jnp.array([3, 1, 7, 0, 12, 5, 9, 2, 15, 4, 8, 6, 10, 11, 13, 14], jnp.int32)
    scale = jnp.array([2], jnp.int32)
    steps = idx.shape[0] // ROWS_PER_STEP
    out = pl.pallas_call(
        gather_kernel,
        out_shape=jax.ShapeDtypeStruct((idx.shape[0], 128), jnp.float32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=2,
            grid=(steps,),
            in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
            out_specs=pl.BlockSpec((ROWS_PER_STEP, 128), lambda i, idx, scale: (i, 0)),
            scratch_shapes=[
                pltpu.VMEM((ROWS_PER_STEP, 128), jnp.float32),
                pltpu.SemaphoreType.DMA((ROWS_PER_STEP,)),
            ],
        ),
        interpret=True,
    )(idx, scale, table)
    assert jnp.allclose(out, table[idx] * 2)
