"""A kernel that takes every ref from one iterator (`it = iter(refs)`), built by a
factory whose flag decides how many refs come first (an optional scale input, there
for narrow dtypes only; `jnp.dtype(...).itemsize` is not something the code gives):
where a semaphore array sits in `refs` is not in the code, so what `next(it)` gives is
unknown.  Each array is still indexed where
it is given to a DMA, directly or through helpers (`_slot_copy` indexes the array it
is given, `_rows_wait` takes one semaphore): that is what the analysis knows them by.

Every semaphore that reaches a DMA is one semaphore."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NBUF = 2
ROWS = 8


def _slot_copy(src, bufs, sems, slot):
    """A copy of `src` into buffer slot `slot`, on that slot's semaphore."""
    return pltpu.make_async_copy(src, bufs.at[slot], sems.at[slot])


def _rows_wait(sem, ref, rows):
    """Block until `rows` rows' worth of copies on `sem` have landed."""
    pltpu.make_async_copy(ref.at[pl.ds(0, rows)], ref.at[pl.ds(0, rows)], sem).wait()


def build(dtype):
    scaled = jnp.dtype(dtype).itemsize < 4
    buffer_shapes = [(NBUF, ROWS, 128)] + [(ROWS, 128)] * int(scaled)

    def kernel(*refs):
        it = iter(refs)
        x_hbm = next(it)
        scale_hbm = next(it) if scaled else None
        o_hbm = next(it)
        bufs, *extra_bufs = (next(it) for _ in buffer_shapes)
        load_sems, store_sems = next(it), next(it)
        scale_sem = next(it) if scaled else None

        for slot in range(NBUF):
            _slot_copy(x_hbm.at[slot], bufs, load_sems, slot).start()
        for slot in range(NBUF):
            _rows_wait(load_sems.at[slot], bufs.at[slot], ROWS)
            pltpu.make_async_copy(bufs.at[slot], o_hbm.at[slot], store_sems.at[slot]).start()
        for slot in range(NBUF):
            _rows_wait(store_sems.at[slot], o_hbm.at[slot], ROWS)
        if scaled:
            cp = pltpu.make_async_copy(scale_hbm, extra_bufs[0], scale_sem)
            cp.start()
            cp.wait()

    hbm = pl.BlockSpec(memory_space=pl.ANY)
    scratch = [pltpu.VMEM(shape, dtype) for shape in buffer_shapes]
    scratch += [pltpu.SemaphoreType.DMA((NBUF,)), pltpu.SemaphoreType.DMA((NBUF,))]
    if scaled:
        scratch.append(pltpu.SemaphoreType.DMA)
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((NBUF, ROWS, 128), dtype),
        in_specs=[hbm] * (1 + int(scaled)),
        out_specs=hbm,
        scratch_shapes=scratch,
        interpret=True,
    )


def trace():
    for dtype in (jnp.float32, jnp.bfloat16):
        x = jnp.arange(NBUF * ROWS * 128, dtype=dtype).reshape(NBUF, ROWS, 128)
        scaled = dtype == jnp.bfloat16
        args = (x, jnp.ones((ROWS, 128), dtype)) if scaled else (x,)
        assert jnp.allclose(build(dtype)(*args), x)
