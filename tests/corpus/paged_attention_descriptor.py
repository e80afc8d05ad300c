"""Paged-attention style multi-page copy descriptor.

The descriptor class keeps `self._sem` (one semaphore, e.g. `k_sems.at[buffer]`) and
builds one DMA per page in its methods; `start()` and `wait()` are called later by the
kernel, with the next buffer prefetched while the current one is used.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

PAGES_PER_SEQ = 2
PAGE = 8
HEAD_DIM = 128


class MultiPageAsyncCopyDescriptor:
    """Copies the pages of one sequence from the HBM page pool into a VMEM buffer."""

    def __init__(self, pages_hbm, vmem_buffer, sem, page_indices, seq):
        self._pages_hbm = pages_hbm
        self._vmem_buffer = vmem_buffer
        self._sem = sem
        self._page_indices = page_indices
        self._seq = seq

    def _copy(self, i):
        page = self._page_indices[self._seq * PAGES_PER_SEQ + i]
        return pltpu.make_async_copy(
            self._pages_hbm.at[page], self._vmem_buffer.at[pl.ds(i * PAGE, PAGE)], self._sem
        )

    def start(self):
        for i in range(PAGES_PER_SEQ):
            self._copy(i).start()

    def wait_and_get(self):
        for i in range(PAGES_PER_SEQ):
            self._copy(i).wait()
        return self._vmem_buffer[...]


def paged_kernel(page_indices_ref, q_ref, k_pages_hbm, o_ref, k_vmem, k_sems):
    seq = pl.program_id(0)
    nseq = pl.num_programs(0)

    def descriptor(s, buffer_index):
        return MultiPageAsyncCopyDescriptor(
            k_pages_hbm, k_vmem.at[buffer_index], k_sems.at[buffer_index], page_indices_ref, s
        )

    @pl.when(seq == 0)
    def _():
        descriptor(0, 0).start()

    buffer_index = seq % 2

    @pl.when(seq + 1 < nseq)
    def _():
        descriptor(seq + 1, 1 - buffer_index).start()

    k = descriptor(seq, buffer_index).wait_and_get()
    o_ref[...] = (q_ref[...] * k).astype(o_ref.dtype)


def trace():
    num_seqs = 2
    num_pages = num_seqs * PAGES_PER_SEQ
    k_pages = jnp.ones((num_pages, PAGE, HEAD_DIM), jnp.float32)
    q = jnp.full((num_seqs * PAGES_PER_SEQ * PAGE, HEAD_DIM), 3.0, jnp.float32)
    page_indices = jnp.arange(num_pages, dtype=jnp.int32)[::-1]
    rows = PAGES_PER_SEQ * PAGE
    out = pl.pallas_call(
        paged_kernel,
        out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(num_seqs,),
            in_specs=[
                pl.BlockSpec((rows, HEAD_DIM), lambda s, idx: (s, 0)),
                pl.BlockSpec(memory_space=pl.ANY),
            ],
            out_specs=pl.BlockSpec((rows, HEAD_DIM), lambda s, idx: (s, 0)),
            scratch_shapes=[
                pltpu.VMEM((2, rows, HEAD_DIM), jnp.float32),
                pltpu.SemaphoreType.DMA((2,)),
            ],
        ),
        interpret=True,
    )(page_indices, q, k_pages)
    assert jnp.allclose(out, 3.0)
