"""Semaphore arrays cut into views with `pl.dslice`, `pl.Slice` and `slice(...)`, each
view then indexed down to one semaphore; scratch declared through the `MemorySpace`
enum members (and one `pl.MemoryRef`), inputs placed in HBM."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NBUF = 4
HALF = NBUF // 2


def gather_kernel(x_hbm, y_hbm, o_hbm, buf, order, sems, out_sems, flags, acc):
    order[0] = 1
    x_sems = sems.at[pl.dslice(0, HALF)]  # the first half of the banks serves x
    y_sems = sems.at[pl.Slice(HALF, HALF)]  # the second half serves y
    spare = sems.at[slice(1, 3)]

    for b in range(HALF):
        cp = pltpu.make_async_copy(x_hbm.at[b], buf.at[b], x_sems.at[b])
        cp.start()
        cp.wait()
    slot = order[0]
    rows = pltpu.make_async_copy(y_hbm.at[pl.dslice(0, HALF)], buf.at[pl.dslice(HALF, HALF)], y_sems.at[slot])
    rows.start()
    rows.wait()
    again = pltpu.make_async_copy(y_hbm.at[0], acc, spare.at[0])
    again.start()
    again.wait()

    pltpu.async_copy(buf.at[0], acc, out_sems.at[pl.dslice(1, 1)].at[0]).wait()
    pltpu.async_copy(buf, o_hbm, out_sems.at[slice(0, 1), ...].at[0]).wait()
    pl.semaphore_signal(flags.at[pl.Slice(0, 2, 1)].at[1])
    pl.semaphore_wait(flags.at[1])


def trace():
    x = jnp.ones((HALF, 8, 128), jnp.float32)
    y = jnp.full((HALF, 8, 128), 2.0, jnp.float32)
    out = pl.pallas_call(
        gather_kernel,
        out_shape=jax.ShapeDtypeStruct((NBUF, 8, 128), jnp.float32),
        in_specs=[
            pl.BlockSpec(memory_space=pltpu.HBM),
            pl.BlockSpec(memory_space=pltpu.MemorySpace.HBM),
        ],
        out_specs=pl.BlockSpec(memory_space=pl.MemorySpace.ANY),
        scratch_shapes=[
            pltpu.MemorySpace.VMEM((NBUF, 8, 128), jnp.float32),
            pltpu.MemorySpace.SMEM((1,), jnp.int32),
            pltpu.SemaphoreType.DMA((NBUF,)),
            pltpu.MemorySpace.SEMAPHORE((2,), pltpu.SemaphoreType.DMA.dtype),
            pltpu.SemaphoreType.REGULAR((2,)),
            pl.MemoryRef(jax.core.ShapedArray((8, 128), jnp.float32), pltpu.VMEM),
        ],
        interpret=True,
    )(x, y)
    assert jnp.allclose(out[:HALF], 1.0)
    assert jnp.allclose(out[HALF:], 2.0)
