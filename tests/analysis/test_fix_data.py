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
    assert (f.fix.sem_text, f.fix.index, f.fix.safe) == ("sems", ("slot",), True)
    assert f.message.endswith("pass one semaphore, e.g. `sems.at[slot]`.")


def test_index_in_a_loop_body_is_the_loop_variable_first_among_choices():
    f = by_marker()["B"]
    assert (f.fix.index, f.fix.safe, f.fix.alternatives) == (("i",), False, (("0",), ("1",)))
    assert f.fix.guard_indent == "        "


def test_two_dimensional_array_gets_an_index_per_dimension():
    f = by_marker()["C"]
    assert (f.fix.index, f.fix.safe) == (("slot", "0"), False)


def test_partly_indexed_view_gets_the_missing_index_as_a_choice():
    f = by_marker()["D"]
    assert (f.fix.sem_text, f.fix.index, f.shape) == ("sems2d.at[slot]", ("0",), (3,))
    assert not f.fix.safe
    assert f.message.endswith("which index is right is not certain: `sems2d.at[slot, 0]`, "
                              "`sems2d.at[slot, 1]` or `sems2d.at[slot, 2]`.")


def test_helper_call_site():
    f = by_marker()["E"]
    assert (f.fix.sem_text, f.fix.index, f.fix.guard_target) == ("sems", ("slot",), "sems")
    assert f.fix.safe
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
    assert (f.fix.index, f.fix.safe) == (("0",), True)
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
    assert (remote.span.line + 1, remote.fix.sem_text, remote.fix.index, remote.fix.safe) == (
        line_of(src, "send_sems.at[slot], recv_sems"), "recv_sems", ("slot",), True)
    # only the source is indexed (a page or a step as often as a slot): a choice
    assert (comp.span.line + 1, comp.fix.sem_text, comp.fix.index, comp.fix.safe) == (
        line_of(src, "for k in range(2)]"), "send_sems", ("k",), False)


# --------------------------------------------------------------------------------------
# safe fixes and choices: the index is applied by `check --fix` only when it is certain

# Reported (issue 13): the prefetch of the next page goes through a helper; its slot is
# the helper call's `1 - slot`, not the `.at[0]` of the other `pl.when` block.
PAGED = HEAD + """
def _fetch(kv_hbm, buf, sems, page, slot):
    pltpu.make_async_copy(kv_hbm.at[page], buf.at[slot], sems).start()

def _wait(kv_hbm, buf, sems, slot):
    pltpu.make_async_copy(kv_hbm.at[0], buf.at[slot], sems).wait()

def kernel(pt_ref, kv_hbm, o_ref, buf, copy_sems):
    i = pl.program_id(0)
    slot = i % 2

    @pl.when(i == 0)
    def _():
        _fetch(kv_hbm, buf, copy_sems.at[0], pt_ref[0], 0)

    @pl.when(i + 1 < pl.num_programs(0))
    def _():
        _fetch(kv_hbm, buf, copy_sems, pt_ref[i + 1], 1 - slot)

    _wait(kv_hbm, buf, copy_sems.at[slot], slot)
    o_ref[...] = buf[slot]

def run(pt, kv):
    return pl.pallas_call(kernel, out_shape=OUT, grid=(4,),
                          scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), DMA((2,))])(pt, kv)
"""



# Reported (issue 13): a bidirectional ring; `ready_sems` is indexed LEFT on the next line
# but RIGHT is right, and `send_sems.at[RIGHT]` lacks the slot every other `.at` gives.
RING = HEAD + """
LEFT, RIGHT = 0, 1

def kernel(x_ref, o_ref, buf, send_sems, recv_sems, ready_sems):
    my = lax.axis_index("x")
    left = lax.rem(my + 7, 8)
    right = lax.rem(my + 1, 8)

    def step(i, carry):
        slot = i % 2
        pl.semaphore_signal(ready_sems, 1, device_id=(left,), device_id_type=pltpu.DeviceIdType.MESH)
        pl.semaphore_wait(ready_sems.at[LEFT], 1)
        pl.semaphore_signal(ready_sems.at[RIGHT], 1, device_id=(right,), device_id_type=pltpu.DeviceIdType.MESH)
        pl.semaphore_wait(ready_sems.at[RIGHT], 1)
        right_copy = pltpu.make_async_remote_copy(
            buf.at[RIGHT, slot], buf.at[RIGHT, 1 - slot], send_sems.at[RIGHT],
            recv_sems.at[RIGHT, slot], device_id=(right,), device_id_type=pltpu.DeviceIdType.MESH)
        left_copy = pltpu.make_async_remote_copy(
            buf.at[LEFT, slot], buf.at[LEFT, 1 - slot], send_sems.at[LEFT, slot],
            recv_sems.at[LEFT, slot], device_id=(left,), device_id_type=pltpu.DeviceIdType.MESH)
        right_copy.start()
        left_copy.start()
        right_copy.wait()
        left_copy.wait()
        return carry

    lax.fori_loop(0, 7, step, 0)

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT,
                          scratch_shapes=[pltpu.VMEM((2, 2, 8, 128), jnp.float32), DMA((2, 2)), DMA((2, 2)),
                                          pltpu.SemaphoreType.REGULAR((2,))])(x)
"""


def _choices(f):
    return [f.fix.index, *f.fix.alternatives]


def test_paged_gather_through_a_helper_is_a_choice_led_by_the_helpers_slot():
    (f,) = analyze(PAGED)
    assert f.span.line + 1 == line_of(PAGED, "pt_ref[i + 1], 1 - slot)")
    assert not f.fix.safe
    assert _choices(f) == [("1 - slot",), ("slot",), ("0",), ("1",)]
    assert "e.g." not in f.message
    assert f.message.endswith("which index is right is not certain: `copy_sems.at[1 - slot]`, "
                              "`copy_sems.at[slot]`, `copy_sems.at[0]` or `copy_sems.at[1]`.")


def test_bidirectional_ring_gets_choices_holding_the_right_index():
    signal, send = analyze(RING)
    assert signal.span.line + 1 == line_of(RING, "pl.semaphore_signal(ready_sems, 1")
    assert not signal.fix.safe and ("RIGHT",) in _choices(signal)
    assert _choices(signal)[:2] == [("LEFT",), ("RIGHT",)]
    assert send.fix.sem_text == "send_sems.at[RIGHT]"
    assert not send.fix.safe and _choices(send)[0] == ("slot",)
    assert "e.g." not in signal.message + send.message


def test_the_choices_round_trip_through_json():
    for f in analyze(PAGED) + analyze(RING):
        assert finding_from_data(finding_to_data(f)) == f
        assert finding_from_data(finding_to_data(f)).fix.alternatives == f.fix.alternatives


def test_a_helper_call_with_a_slot_argument_besides_the_buffer_slot_is_a_choice():
    src = HEAD + """
def fetch(src, dst, sems, slot):
    pltpu.make_async_copy(src, dst, sems).start()

def kernel(x_hbm, o_ref, buf, sems):
    slot = pl.program_id(0) % 2
    fetch(x_hbm, buf.at[slot], sems, 1 - slot)

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, grid=(2,),
                          scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), DMA((2,))])(x)
"""
    (f,) = analyze(src)
    assert not f.fix.safe and _choices(f)[:2] == [("slot",), ("1 - slot",)]


def test_a_source_indexed_alone_is_a_choice():
    src = HEAD + """
def kernel(x_hbm, o_ref, buf, sems):
    for k in range(1, 3):
        pltpu.make_async_copy(x_hbm.at[k], buf, sems).start()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), DMA((2,))])(x)
"""
    (f,) = analyze(src)
    assert not f.fix.safe and _choices(f) == [("k",), ("0",), ("1",)]


def test_buffers_indexed_differently_in_the_call_are_a_choice():
    src = HEAD + """
def kernel(x_hbm, o_ref, buf, sems):
    slot = pl.program_id(0) % 2
    page = pl.program_id(0)
    pltpu.make_async_copy(x_hbm.at[page], buf.at[slot], sems).start()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, grid=(2,),
                          scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), DMA((2,))])(x)
"""
    (f,) = analyze(src)
    assert not f.fix.safe and _choices(f)[:2] == [("slot",), ("page",)]


LOOP = HEAD + """
def kernel(x_hbm, o_ref, buf, sems):
    def body(i, carry):
        pltpu.make_async_copy(x_hbm, buf, sems.at[i]).start()
        pltpu.make_async_copy(x_hbm, buf, sems).wait()
        return carry

    lax.fori_loop(0, 2, body, 0)

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), DMA((2,))])(x)
"""


def test_the_loop_variable_that_indexes_the_array_everywhere_else_is_safe():
    (f,) = analyze(LOOP)
    assert (f.fix.index, f.fix.safe, f.fix.alternatives) == (("i",), True, ())
    assert "e.g. `sems.at[i]`." in f.message


def test_the_loop_variable_is_a_choice_when_another_use_indexes_differently():
    src = LOOP.replace("    lax.fori_loop(0, 2, body, 0)",
                       "    pltpu.make_async_copy(x_hbm, buf, sems.at[0]).start()\n"
                       "    lax.fori_loop(0, 2, body, 0)")
    (f,) = analyze(src)
    assert not f.fix.safe and _choices(f) == [("i",), ("0",), ("1",)]


def test_a_shape_one_array_is_safe_whatever_the_call_says():
    src = HEAD + """
def kernel(x_hbm, o_ref, buf, sems):
    slot = pl.program_id(0) % 2
    pltpu.make_async_copy(x_hbm.at[slot], buf.at[1 - slot], sems).start()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, grid=(2,),
                          scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), DMA((1,))])(x)
"""
    (f,) = analyze(src)
    assert (f.fix.index, f.fix.safe) == (("0",), True)
