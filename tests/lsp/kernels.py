"""Small realistic Pallas kernels used as documents by the LSP tests."""

HEADER = '''\
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NSLOTS = 2
'''

# A double-buffered copy whose DMA is given the whole (2,) semaphore array:
# JAX raises "Cannot signal on a non-()-shaped semaphore: (2,)" at `.start()` (PAL001).
KERNEL_BODY = '''

def kernel(x_hbm, o_ref, buf, sems):
    def body(i, carry):
        slot = i % NSLOTS
        copy = pltpu.make_async_copy(x_hbm.at[slot], buf.at[slot], sems)
        copy.start()
        copy.wait()
        o_ref[...] += buf[slot]
        return carry

    jax.lax.fori_loop(0, 4, body, 0)
'''

CALL = '''

def double_buffered(x):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.ANY)],
        scratch_shapes=[
            pltpu.VMEM((2, 8, 128), jnp.float32),
            pltpu.SemaphoreType.DMA((2,)),
        ],
    )(x)
'''

BUGGY = HEADER + KERNEL_BODY + CALL

# The same kernel, correct: one semaphore per slot.
FIXED = BUGGY.replace("buf.at[slot], sems)", "buf.at[slot], sems.at[slot])")

# A ring step with semaphore_signal on the whole array (PAL002) and a read of it (PAL003:
# JAX does not check reads, but the value is meaningless).
SIGNAL = HEADER + '''

def ring_kernel(x_ref, o_ref, sems):
    pl.semaphore_signal(sems, 1)
    pl.semaphore_wait(sems.at[0], 1)
    pending = pl.semaphore_read(sems)
    o_ref[...] = x_ref[...] + pending


def ring(x):
    return pl.pallas_call(
        ring_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        scratch_shapes=[pltpu.SemaphoreType.REGULAR((2,))],
    )(x)
'''

# A paged gather whose prefetch of the next page goes through a helper with the whole
# array (PAL001 at the `_fetch` call): the index is not certain (`1 - slot` is right, the
# other `pl.when` block uses `.at[0]`), so the fix is a choice.
PAGED_GATHER = HEADER + '''

def _fetch(kv_hbm, buf, sems, page, slot):
    pltpu.make_async_copy(kv_hbm.at[page], buf.at[slot], sems).start()


def paged_kernel(pt_ref, kv_hbm, o_ref, buf, copy_sems):
    i = pl.program_id(0)
    slot = i % 2

    @pl.when(i == 0)
    def _():
        _fetch(kv_hbm, buf, copy_sems.at[0], pt_ref[0], 0)

    @pl.when(i + 1 < pl.num_programs(0))
    def _():
        _fetch(kv_hbm, buf, copy_sems, pt_ref[i + 1], 1 - slot)

    pltpu.make_async_copy(kv_hbm.at[0], buf.at[slot], copy_sems.at[slot]).wait()
    o_ref[...] = buf[slot]


def paged(pt, kv):
    return pl.pallas_call(
        paged_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        grid=(4,),
        scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
    )(pt, kv)
'''

# Non-ASCII text before the semaphore on the same line: UTF-16 and code-point columns differ.
UNICODE = BUGGY.replace(
    "        copy = pltpu.make_async_copy(x_hbm.at[slot], buf.at[slot], sems)",
    '        tag = "é😀"; copy = pltpu.make_async_copy(x_hbm.at[slot], buf.at[slot], sems)',
)

# Notebook cells: the semaphore array is declared in the last cell, misused in the second.
NOTEBOOK_CELLS = [
    HEADER,
    "# Kernel\n",   # a markdown cell (skipped by the analysis)
    KERNEL_BODY.lstrip("\n"),
    "%timeit 1 + 1\n" + CALL.lstrip("\n"),
]
NOTEBOOK_KINDS = ["code", "markdown", "code", "code"]
