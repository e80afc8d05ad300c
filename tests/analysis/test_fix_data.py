"""The fix data the analysis attaches to findings (what the quick fixes are built from):
the index a user would mean, the guard position, the (1,)-declaration replacement."""

from pallas_lsp.analysis.findings import finding_from_data, finding_to_data

from .helpers import analyze, dedent, line_of

HEAD = """
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

DMA = pltpu.SemaphoreType.DMA
OUT = jax.ShapeDtypeStruct((8, 128), jnp.float32)
"""

SRC = HEAD + """
def copy(src, dst, sem):
    pltpu.async_copy(src, dst, sem).wait()

def kernel(x_hbm, o_ref, buf, sems, sems2d):
    slot = pl.program_id(0) % 2
    pltpu.make_async_copy(x_hbm.at[slot], buf.at[slot], sems).start()  # A

    def body(i, carry):
        pltpu.make_async_copy(x_hbm, buf, sems).start()  # B
        return carry

    lax.fori_loop(0, 4, body, 0)
    pltpu.make_async_copy(x_hbm, buf.at[slot], sems2d).start()  # C
    pltpu.make_async_copy(x_hbm, buf.at[slot], sems2d.at[slot]).start()  # D
    copy(x_hbm, buf.at[slot], sems)  # E
    pltpu.make_async_copy(x_hbm, buf.at[pl.ds(0, 2)], sems).start()  # F
    pltpu.make_async_copy(  # G
        x_hbm,
        buf,
        sems,
    ).start()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, grid=(2,),
                          scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), DMA((2,)), DMA((2, 3))])(x)
"""


def by_marker():
    out = {}
    lines = dedent(SRC).split("\n")
    for f in analyze(SRC):
        text = lines[f.fix.guard_line]
        marker = text.rsplit("# ", 1)[-1] if "# " in text else None
        out[marker] = f
    return out


def test_every_finding_has_fix_data_and_round_trips_through_json():
    fs = analyze(SRC)
    assert len(fs) == 7
    for f in fs:
        assert finding_from_data(finding_to_data(f)) == f


def test_index_is_the_slot_of_the_neighbouring_buffer():
    f = by_marker()["A"]
    assert (f.fix.sem_text, f.fix.index) == ("sems", ("slot",))
    assert f.message.endswith("pass one semaphore, e.g. `sems.at[slot]`.")


def test_index_in_a_loop_body_is_the_loop_variable():
    f = by_marker()["B"]
    assert f.fix.index == ("i",)
    assert f.fix.guard_indent == "        "


def test_two_dimensional_array_gets_an_index_per_dimension():
    assert by_marker()["C"].fix.index == ("slot", "0")


def test_partly_indexed_view_gets_the_missing_index():
    f = by_marker()["D"]
    assert (f.fix.sem_text, f.fix.index, f.shape) == ("sems2d.at[slot]", ("0",), (3,))
    assert "e.g. `sems2d.at[slot, 0]`" in f.message


def test_helper_call_site():
    f = by_marker()["E"]
    assert (f.fix.sem_text, f.fix.index, f.fix.guard_target) == ("sems", ("slot",), "sems")
    assert f.fix.guard_line + 1 == line_of(SRC, "# E")


def test_a_slice_of_the_buffer_is_not_a_slot():
    assert by_marker()["F"].fix.index == ("0",)


def test_guard_goes_above_the_whole_multi_line_statement():
    f = by_marker()["G"]
    assert f.span.line + 1 == line_of(SRC, "        sems,")
    assert f.fix.guard_line + 1 == line_of(SRC, "# G")
    assert f.fix.guard_indent == "    "


def test_scalar_declaration_offered_for_shape_one_in_run_scoped():
    src = HEAD + """
def kernel(x_hbm, o_ref):
    def body(sem):
        pltpu.async_copy(x_hbm, o_ref, sem).wait()
    pl.run_scoped(body, pltpu.SemaphoreType.DMA((1,)))

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT)(x)
"""
    (f,) = analyze(src)
    assert f.shape == (1,)
    decl = f.fix.scalar_decl
    assert decl is not None and decl.line + 1 == line_of(src, "DMA((1,)))")
    assert f.fix.scalar_decl_text == "pltpu.SemaphoreType.DMA"


def test_no_scalar_declaration_for_a_shape_one_array_that_is_also_indexed():
    """`(1,)` declared once and used both as `sems.at[0]` and whole: the declaration
    cannot simply become a single semaphore (the `.at[0]` would then break)."""
    src = HEAD + """
def kernel(x_hbm, o_ref, sems):
    pltpu.async_copy(x_hbm, o_ref, sems.at[0]).wait()
    pltpu.async_copy(x_hbm, o_ref, sems).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((1,))])(x)
"""
    (f,) = analyze(src)
    assert f.shape == (1,)
    assert f.fix.index == ("0",)
    assert f.fix.scalar_decl is None


def test_index_from_the_sibling_semaphore_and_comprehension_variable():
    src = HEAD + """
def kernel(x_hbm, o_ref, send_sems, recv_sems):
    slot = pl.program_id(0) % 2
    dev = jax.lax.axis_index("x")
    pltpu.make_async_remote_copy(x_hbm, o_ref, send_sems.at[slot], recv_sems, device_id=dev).start()
    copies = [pltpu.make_async_copy(x_hbm.at[k], o_ref, send_sems) for k in range(2)]
    for c in copies:
        c.start()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, grid=(2,), scratch_shapes=[DMA((2,)), DMA((2,))])(x)
"""
    remote, comp = analyze(src)
    assert (remote.span.line + 1, remote.fix.sem_text, remote.fix.index) == (
        line_of(src, "send_sems.at[slot], recv_sems"), "recv_sems", ("slot",))
    assert (comp.span.line + 1, comp.fix.sem_text, comp.fix.index) == (
        line_of(src, "for k in range(2)]"), "send_sems", ("k",))
