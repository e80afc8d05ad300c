"""PAL301, semaphore kinds: what JAX 0.10.2 says when it lowers these for TPU
(`jax.export` with platforms=["tpu"] on a CPU; the protocol corpus checks it mechanically):
a DMA semaphore signalled -> `Must signal semaphores of the following types: ...`; a
REGULAR or BARRIER semaphore waited by a DMA -> `dma_wait requires a DMA semaphore`."""

from __future__ import annotations

import pytest
from pallas_lsp.analysis.fixes import apply_edits, fixes_for, split_lines

from .helpers import IMPORTS, analyze, dedent, found, line_of

SIGNAL = IMPORTS + """
import jax.numpy as jnp

def kernel(x_hbm, o_hbm, sems):
    pl.semaphore_signal(sems.at[0])
    pl.semaphore_wait(sems.at[0])

def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                          in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                          out_specs=pl.BlockSpec(memory_space=pl.ANY),
                          scratch_shapes=[pltpu.SemaphoreType.{kind}((2,))])(x)
"""

COPY = IMPORTS + """
import jax.numpy as jnp

def kernel(x_hbm, o_hbm, buf, sem):
    copy = pltpu.make_async_copy(x_hbm, buf, sem)
    copy.start()
    copy.wait()
    pltpu.sync_copy(buf, o_hbm)

def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                          in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                          out_specs=pl.BlockSpec(memory_space=pl.ANY),
                          scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.{kind}(())])(x)
"""


def test_a_dma_semaphore_signalled_and_waited():
    src = SIGNAL.replace("{kind}", "DMA")
    assert found(src) == [(line_of(src, "semaphore_signal("), "PAL301", ()),
                          (line_of(src, "semaphore_wait("), "PAL301", ())]
    f = analyze(src)[0]
    assert f.message.startswith("Must signal semaphores of the following types: BARRIER, REGULAR")
    assert "`sems.at[0]` is a DMA semaphore" in f.message
    assert f.related[0].span.line + 1 == line_of(src, "scratch_shapes=")


@pytest.mark.parametrize("kind", ["REGULAR", "BARRIER"])
def test_regular_and_barrier_semaphores_signal(kind):
    assert found(SIGNAL.replace("{kind}", kind)) == []


@pytest.mark.parametrize("kind", ["REGULAR", "BARRIER"])
def test_a_dma_waits_on_a_non_dma_semaphore(kind):
    src = COPY.replace("{kind}", kind)
    [(line, code, _)] = found(src)
    assert (line, code) == (line_of(src, "copy.wait()"), "PAL301")   # where JAX raises
    assert analyze(src)[0].message.startswith("dma_wait requires a DMA semaphore, but got a regular semaphore")


def test_a_dma_with_a_dma_semaphore():
    assert found(COPY.replace("{kind}", "DMA")) == []


def test_the_fix_declares_the_kind_the_call_needs():
    src = dedent(SIGNAL.replace("{kind}", "DMA"))
    finding = analyze(src)[0]
    [fix] = [f for f in fixes_for(finding, split_lines(src)) if f.title.startswith("Declare")]
    assert not fix.safe
    fixed = apply_edits(src, fix.edits)
    assert "pltpu.SemaphoreType.REGULAR((2,))" in fixed
    assert analyze(fixed) == []
