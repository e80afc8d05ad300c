"""Item 5: the checked calls, their semaphore arguments by position and keyword, the rule
codes, severities and messages (JAX's words)."""

import pytest

from .helpers import analyze, found, line_of, text_at

HEAD = """
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

DMA = pltpu.SemaphoreType.DMA
REGULAR = pltpu.SemaphoreType.REGULAR
OUT = jax.ShapeDtypeStruct((8, 128), jnp.float32)
"""

# `sems` is DMA((2,)), `one` is DMA, `flags` is REGULAR((3,)), `flag` is REGULAR.
KERNEL = HEAD + """
def kernel(x_hbm, o_ref, sems, one, flags, flag):
    dev = jax.lax.axis_index("x")
    {stmt}

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT,
                          scratch_shapes=[DMA((2,)), DMA, REGULAR((3,)), REGULAR])(x)
"""

# (statement, [(argument text flagged, code, shape)]); `[]` where JAX accepts it
CASES = [
    # make_async_copy: checked at .start(), warned at .wait()
    ("pltpu.make_async_copy(x_hbm, o_ref, sems).start()", [("sems", "PAL001", (2,))]),
    ("pltpu.make_async_copy(x_hbm, o_ref, sem=sems).start()", [("sems", "PAL001", (2,))]),
    ("pltpu.make_async_copy(src_ref=x_hbm, dst_ref=o_ref, sem=sems).start()", [("sems", "PAL001", (2,))]),
    ("pltpu.make_async_copy(x_hbm, o_ref, sems.at[1]).start()", []),
    ("pltpu.make_async_copy(x_hbm, o_ref, one).start()", []),
    ("pltpu.make_async_copy(x_hbm, o_ref, sems)", []),  # never started or waited: JAX is silent
    ("pltpu.make_async_copy(x_hbm, o_ref, sems).wait()", [("sems", "PAL003", (2,))]),
    ("pltpu.make_async_copy(x_hbm, o_ref, one).wait()", []),
    ("pltpu.make_async_copy(x_hbm, o_ref, sems.at[0]).wait()", []),
    # async_copy starts at once
    ("pltpu.async_copy(x_hbm, o_ref, sems)", [("sems", "PAL001", (2,))]),
    ("pltpu.async_copy(x_hbm, o_ref, sem=sems, priority=1)", [("sems", "PAL001", (2,))]),
    ("pltpu.async_copy(x_hbm, o_ref, one)", []),
    # remote copies: send_sem (position 2) and recv_sem (position 3) are both checked
    ("pltpu.make_async_remote_copy(x_hbm, o_ref, sems, one, device_id=dev).start()",
     [("sems", "PAL001", (2,))]),
    ("pltpu.make_async_remote_copy(x_hbm, o_ref, one, sems, device_id=dev).start()",
     [("sems", "PAL001", (2,))]),
    ("pltpu.make_async_remote_copy(x_hbm, o_ref, send_sem=sems.at[0], recv_sem=sems, device_id=dev).start()",
     [("sems", "PAL001", (2,))]),
    ("pltpu.make_async_remote_copy(x_hbm, o_ref, send_sem=sems, recv_sem=sems.at[0], device_id=dev).start()",
     [("sems", "PAL001", (2,))]),
    ("pltpu.make_async_remote_copy(x_hbm, o_ref, sems.at[0], sems.at[1], dev).start()", []),
    ("pltpu.async_remote_copy(x_hbm, o_ref, sems, one, dev)", [("sems", "PAL001", (2,))]),
    ("pltpu.async_remote_copy(x_hbm, o_ref, one, one, device_id=dev)", []),
    # remote waits: wait_send uses send_sem, wait_recv uses recv_sem, wait both
    ("pltpu.make_async_remote_copy(x_hbm, o_ref, sems, one, device_id=dev).wait_send()",
     [("sems", "PAL003", (2,))]),
    ("pltpu.make_async_remote_copy(x_hbm, o_ref, sems, one, device_id=dev).wait_recv()", []),
    ("pltpu.make_async_remote_copy(x_hbm, o_ref, one, sems, device_id=dev).wait_recv()",
     [("sems", "PAL003", (2,))]),
    ("pltpu.make_async_remote_copy(x_hbm, o_ref, one, sems, device_id=dev).wait_send()", []),
    ("pltpu.make_async_remote_copy(x_hbm, o_ref, one, sems, device_id=dev).wait()",
     [("sems", "PAL003", (2,))]),
    # semaphore_signal / wait / read, current and deprecated spellings
    ("pl.semaphore_signal(flags)", [("flags", "PAL002", (3,))]),
    ("pl.semaphore_signal(flags, 2, device_id=dev)", [("flags", "PAL002", (3,))]),
    ("pl.semaphore_signal(sem_or_view=flags, inc=1)", [("flags", "PAL002", (3,))]),
    ("pl.semaphore_signal(flags.at[0])", []),
    ("pl.semaphore_signal(flag)", []),
    ("pl.semaphore_wait(flags)", [("flags", "PAL002", (3,))]),
    ("pl.semaphore_wait(flags, 2)", [("flags", "PAL002", (3,))]),
    ("pl.semaphore_wait(flags.at[2], 1)", []),
    ("pltpu.semaphore_signal(flags)", [("flags", "PAL002", (3,))]),
    ("pltpu.semaphore_wait(flags)", [("flags", "PAL002", (3,))]),
    ("pltpu.semaphore_wait(flag)", []),
    ("pl.semaphore_read(flags)", [("flags", "PAL003", (3,))]),
    ("pl.semaphore_read(sems)", [("sems", "PAL003", (2,))]),
    ("pltpu.semaphore_read(flags)", [("flags", "PAL003", (3,))]),
    ("pl.semaphore_read(flags.at[0])", []),
    # core_barrier
    ("pltpu.core_barrier(flags, core_axis_name='core')", [("flags", "PAL002", (3,))]),
    ("pltpu.core_barrier(flags.at[0], core_axis_name='core')", []),
    # no user semaphore at all
    ("pltpu.sync_copy(x_hbm, o_ref)", []),
    ("pltpu.sync_copy(x_hbm, o_ref, add=True)", []),
]


@pytest.mark.parametrize("stmt,expected", CASES, ids=[c[0] for c in CASES])
def test_checked_call(stmt, expected):
    src = "\n" + KERNEL.format(stmt=stmt)
    line = line_of(src, stmt)
    got = [(text_at(src, f.span), f.code, tuple(f.shape)) for f in analyze(src)]
    assert got == expected
    assert all(f.span.line + 1 == line for f in analyze(src))


def test_severities_follow_the_rule_table():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems, flags):
    pltpu.async_copy(x_hbm, o_ref, sems)
    pl.semaphore_signal(flags)
    pl.semaphore_read(flags)

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,)), REGULAR((3,))])(x)
"""
    assert [(f.code, f.severity) for f in analyze(src)] == [
        ("PAL001", "error"), ("PAL002", "error"), ("PAL003", "warning")]


def test_remote_copy_with_both_semaphores_bad_reports_each_with_its_role():
    src = HEAD + """
def kernel(x_hbm, o_ref, send_sems, recv_sems):
    dev = jax.lax.axis_index("x")
    pltpu.make_async_remote_copy(x_hbm, o_ref, send_sems, recv_sems, device_id=dev).start()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,)), DMA((4,))])(x)
"""
    fs = analyze(src)
    assert [(text_at(src, f.span), f.code, f.shape) for f in fs] == [
        ("send_sems", "PAL001", (2,)), ("recv_sems", "PAL001", (4,))]
    assert "given as the source semaphore (send_sem)" in fs[0].message
    assert "given as the destination semaphore (recv_sem)" in fs[1].message


def test_messages_use_jax_wording():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems, flags):
    pl.semaphore_wait(flags)
    pltpu.make_async_copy(x_hbm, o_ref, sems).wait()
    pl.semaphore_read(flags.at[pl.ds(0, 2)])

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,)), REGULAR((3,))])(x)
"""
    wait, dma_wait, read = analyze(src)
    assert wait.message.startswith("Cannot wait on a non-()-shaped semaphore: (3,) — `flags` is a "
                                   "REGULAR semaphore array of shape (3,)")
    assert dma_wait.message.startswith("`.wait()` on a DMA whose semaphore is non-()-shaped: (2,)")
    assert "JAX does not check this when tracing" in dma_wait.message
    assert read.message.startswith("semaphore_read of a non-()-shaped semaphore:")


def test_descriptor_started_and_waited_is_one_error():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems):
    cp = pltpu.make_async_copy(x_hbm, o_ref, sems)
    cp.start()
    cp.wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "make_async_copy(x_hbm, o_ref, sems)"), "PAL001", (2,))]


def test_wait_only_descriptor_with_dummy_refs():
    """`make_async_copy(ref, ref, sem).wait()` waits for a DMA started elsewhere."""
    src = HEAD + """
def kernel(x_hbm, o_ref, sems):
    pltpu.make_async_copy(o_ref, o_ref, sems.at[0]).wait()
    pltpu.make_async_copy(o_ref, o_ref, sems).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "o_ref, sems).wait()"), "PAL003", (2,))]


def test_python_loop_over_semaphores_checks_each_item():
    """A Python `for` over a tuple is unrolled at trace time: JAX signals each item."""
    src = HEAD + """
def kernel(x_hbm, o_ref, flag, flags):
    for s in (flag, flags):
        pl.semaphore_signal(s)

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[REGULAR, REGULAR((3,))])(x)
"""
    assert found(src) == [(line_of(src, "semaphore_signal(s)"), "PAL002", (3,))]


def test_descriptor_stored_and_started_later_in_a_loop():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems):
    copies = [pltpu.make_async_copy(x_hbm, o_ref, sems.at[0]),
              pltpu.make_async_copy(x_hbm, o_ref, sems)]
    for cp in copies:
        cp.start()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "o_ref, sems)]"), "PAL001", (2,))]


PLGPU = """
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

OUT = jax.ShapeDtypeStruct((8, 128), jnp.float32)

def kernel(x_ref, o_ref, sem):
    {stmt}
    o_ref[...] = x_ref[...]

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT,
                          scratch_shapes=[plgpu.SemaphoreType.REGULAR((2,))])(x)
"""

GPU_CASES = [
    ("pl.semaphore_signal(sem)", "PAL002", "signal"),
    ("plgpu.semaphore_signal(sem)", "PAL002", "signal"),
    ("plgpu.semaphore_wait(sem)", "PAL002", "wait"),
    ("plgpu.semaphore_signal_parallel(plgpu.SemaphoreSignal(sem, device_id=None))", "PAL002", "signal"),
    ("plgpu.semaphore_signal_multicast(sem, collective_axes='x')", "PAL002", "semaphore_signal_multicast"),
    ("plgpu.semaphore_signal(sem.at[0])", None, None),
    ("plgpu.semaphore_wait(sem.at[1], 2)", None, None),
]


@pytest.mark.parametrize("stmt,code,verb", GPU_CASES, ids=[c[0] for c in GPU_CASES])
def test_mosaic_gpu_semaphores(stmt, code, verb):
    src = "\n" + PLGPU.format(stmt=stmt)
    fs = analyze(src)
    if code is None:
        assert fs == []
        return
    (f,) = fs
    assert (f.span.line + 1, f.code, f.shape, text_at(src, f.span)) == (
        line_of(src, stmt), code, (2,), "sem")
    assert f.message.startswith(f"Cannot {verb} on a non-()-shaped semaphore: (2,)")


def test_descriptors_appended_to_a_list_then_started():
    src = HEAD + """
def kernel(x_hbm, o_ref, buf, sems):
    copies = []
    for i in range(4):
        copies.append(pltpu.make_async_copy(x_hbm.at[i], buf.at[i], sems))
    for c in copies:
        c.start()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT,
                          scratch_shapes=[pltpu.VMEM((4, 8, 128), jnp.float32), DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "buf.at[i], sems))"), "PAL001", (2,))]
