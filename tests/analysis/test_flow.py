"""Item 4: how semaphores flow (closures, pl.when, loops, helpers, tuples, `.at[...]`)."""

import pytest

from .helpers import analyze, found, line_of, text_at

HEAD = """
import functools
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

DMA = pltpu.SemaphoreType.DMA
OUT = jax.ShapeDtypeStruct((8, 128), jnp.float32)
"""

# A kernel whose semaphore `sem` is DMA((4, 3)); {use} is the semaphore argument.
AT_TEMPLATE = HEAD + """
def kernel(x_hbm, o_ref, sem):
    i = pl.program_id(0)
    j = pl.program_id(1)
    idx = (1, 2)
    cp = pltpu.make_async_copy(x_hbm, o_ref, {use})
    cp.start()
    cp.wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, grid=(4, 3),
                          scratch_shapes=[DMA((4, 3))])(x)
"""

# (index expression, shape JAX reports, or None when JAX accepts it)
AT_CASES = [
    ("sem", (4, 3)),
    ("sem.at[i]", (3,)),
    ("sem.at[0]", (3,)),
    ("sem.at[1, 2]", None),
    ("sem.at[i, j]", None),
    ("sem.at[i, 2]", None),
    ("sem.at[idx]", None),
    ("sem.at[i].at[j]", None),
    ("sem.at[i].at[1]", None),
    ("sem.at[:, 1]", (4,)),
    ("sem.at[:, j]", (4,)),
    ("sem.at[..., 0]", (4,)),
    ("sem.at[i, ...]", (3,)),
    ("sem.at[...]", (4, 3)),
    ("sem.at[0:2]", (2, 3)),
    ("sem.at[pl.ds(0, 2)]", (2, 3)),
    ("sem.at[pl.ds(1, 1), 2]", (1,)),
    ("sem.at[0].at[pl.ds(0, 1)]", (1,)),
    ("sem.at[pl.ds(i, 1)].at[0]", (3,)),
    ("sem.at[pl.ds(i, 1)].at[0, j]", None),
    ("sem.at[pl.dslice(0, 2), 1]", (2,)),
]


@pytest.mark.parametrize("use,shape", AT_CASES, ids=[c[0] for c in AT_CASES])
def test_at_indexing_rule(use, shape):
    src = "\n" + AT_TEMPLATE.format(use=use)
    if shape is None:
        assert found(src) == []
    else:
        line = line_of(src, "make_async_copy(")
        assert found(src) == [(line, "PAL001", shape)]


def test_at_indexing_in_a_variable_then_chained():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems):
    row = sems.at[pl.program_id(0)]
    half = sems.at[pl.ds(0, 2)]
    pltpu.async_copy(x_hbm, o_ref, row.at[1]).wait()
    pltpu.async_copy(x_hbm, o_ref, half.at[0, 1]).wait()
    pltpu.async_copy(x_hbm, o_ref, row).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, grid=(4,), scratch_shapes=[DMA((4, 2))])(x)
"""
    assert found(src) == [(line_of(src, "o_ref, row).wait()"), "PAL001", (2,))]


def test_closure_captures_kernel_semaphore():
    src = HEAD + """
def kernel(x_hbm, o_ref, buf, sems):
    def start(slot):
        pltpu.make_async_copy(x_hbm, buf, sems.at[slot]).start()

    def wait_all():
        pltpu.make_async_copy(x_hbm, buf, sems).start()

    start(0)
    wait_all()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT,
                          scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "buf, sems).start()"), "PAL001", (2,))]


def test_closure_called_through_a_lookup_we_cannot_follow_is_still_checked():
    """`handlers[mode]()` calls `start` (for mode "start"); the call itself is not
    followed, but the closure's own DMA is still checked."""
    src = HEAD + """
def kernel(x_hbm, o_ref, sems, *, mode):
    def start():
        pltpu.async_copy(x_hbm, o_ref, sems).wait()

    handlers = {"start": start}
    handlers[mode]()

def run(x, mode="start"):
    return pl.pallas_call(functools.partial(kernel, mode=mode), out_shape=OUT,
                          scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "(x_hbm, o_ref, sems).wait"), "PAL001", (2,))]


def test_pl_when_body():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems, done):
    @pl.when(pl.program_id(0) == 0)
    def _():
        pltpu.async_copy(x_hbm, o_ref, sems.at[0]).wait()
        pl.semaphore_signal(done)

    @pl.when(pl.program_id(0) > 0)
    def _():
        pl.semaphore_wait(sems)

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, grid=(2,),
                          scratch_shapes=[DMA((2,)), pltpu.SemaphoreType.REGULAR])(x)
"""
    assert found(src) == [(line_of(src, "semaphore_wait(sems)"), "PAL002", (2,))]


def test_fori_loop_body_and_carry():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems):
    def body(i, carry):
        slot = i % 2
        pltpu.async_copy(x_hbm, o_ref, sems.at[slot]).wait()
        return carry

    lax.fori_loop(0, 8, body, 0)

    def bad_body(i, sem_arg):
        pltpu.async_copy(x_hbm, o_ref, sem_arg).wait()
        return sem_arg

    jax.lax.fori_loop(0, 8, bad_body, sems)

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "o_ref, sem_arg)"), "PAL001", (2,))]


def test_pl_loop_decorator():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems):
    @pl.loop(0, 4)
    def _(i):
        pltpu.async_copy(x_hbm, o_ref, sems.at[i % 2]).wait()
        pltpu.async_copy(x_hbm, o_ref, sems).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "(x_hbm, o_ref, sems).wait"), "PAL001", (2,))]


def test_helper_is_flagged_at_the_call_site():
    src = HEAD + """
def copy_in(src, dst, sem):
    cp = pltpu.make_async_copy(src, dst, sem)
    cp.start()
    return cp

def kernel(x_hbm, o_ref, sems):
    copy_in(x_hbm, o_ref, sems.at[0]).wait()
    copy_in(x_hbm, o_ref, sems).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    call_line = line_of(src, "copy_in(x_hbm, o_ref, sems)")
    (f,) = analyze(src)
    assert (f.span.line + 1, f.code, f.shape) == (call_line, "PAL001", (2,))
    assert text_at(src, f.span) == "sems"
    assert "passed to `copy_in`, which starts a DMA with it at line" in f.message
    use_line = line_of(src, "make_async_copy(src, dst, sem)")
    assert f"at line {use_line}" in f.message
    messages = {r.message: r.span.line + 1 for r in f.related}
    assert messages["`copy_in` uses the semaphore here"] == use_line
    assert messages["the semaphore array is declared here"] == line_of(src, "DMA((2,))])")
    assert f.fix.guard_line + 1 == call_line
    assert f.fix.index == ("0",)


def test_helper_called_only_with_scalars_is_clean():
    src = HEAD + """
def copy_in(src, dst, sem):
    pltpu.make_async_copy(src, dst, sem).start()

def kernel(x_hbm, o_ref, sems, one):
    copy_in(x_hbm, o_ref, sems.at[1])
    copy_in(x_hbm, o_ref, one)

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,)), DMA])(x)
"""
    assert found(src) == []


def test_helper_chain_reports_the_outermost_call():
    src = HEAD + """
def inner(src, dst, sem):
    pltpu.async_copy(src, dst, sem).wait()

def outer(src, dst, sems):
    inner(src, dst, sems)

def kernel(x_hbm, o_ref, sems):
    outer(x_hbm, o_ref, sems)

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "outer(x_hbm, o_ref, sems)"), "PAL001", (2,))]
    # The call on the way that passes the whole array on is a related location.
    (f,) = analyze(src)
    assert [(r.span.line + 1, r.message) for r in f.related][-1] == (
        line_of(src, "inner(src, dst, sems)"), "the whole array is passed on to `inner` here")


def test_helper_chain_whose_inner_call_indexes_is_clean():
    src = HEAD + """
def inner(src, dst, sem):
    pltpu.async_copy(src, dst, sem).wait()

def outer(src, dst, sems):
    inner(src, dst, sems.at[1])

def kernel(x_hbm, o_ref, sems):
    outer(x_hbm, o_ref, sems)

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == []


def test_helper_indexes_what_it_receives():
    src = HEAD + """
def copy_slot(src, dst, sems, slot):
    pltpu.async_copy(src, dst, sems.at[slot]).wait()

def kernel(x_hbm, o_ref, sems2d):
    copy_slot(x_hbm, o_ref, sems2d.at[0], 1)
    copy_slot(x_hbm, o_ref, sems2d, 1)

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2, 2))])(x)
"""
    assert found(src) == [(line_of(src, "o_ref, sems2d, 1)"), "PAL001", (2,))]


def test_tuple_packing_and_unpacking():
    src = HEAD + """
def kernel(x_hbm, o_ref, send, recv):
    pair = (send, recv)
    a, b = pair
    s, *rest = [send.at[0], recv]
    pltpu.async_copy(x_hbm, o_ref, a.at[1]).wait()
    pltpu.async_copy(x_hbm, o_ref, s).wait()
    pltpu.async_copy(x_hbm, o_ref, rest[0]).wait()
    pltpu.async_copy(x_hbm, o_ref, pair[1]).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,)), DMA((3,))])(x)
"""
    assert found(src) == [
        (line_of(src, "o_ref, rest[0])"), "PAL001", (3,)),
        (line_of(src, "o_ref, pair[1])"), "PAL001", (3,)),
    ]


def test_select_ref_of_two_views_is_scalar():
    src = HEAD + """
def kernel(x_hbm, o_ref, sem, other):
    i = pl.program_id(0)
    pltpu.async_copy(x_hbm, o_ref, pl.select_ref(i % 2, sem.at[0], sem.at[1])).wait()
    pltpu.async_copy(x_hbm, o_ref, pl.select_ref(i % 2, sem, other)).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, grid=(2,),
                          scratch_shapes=[DMA((2,)), DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "(i % 2, sem, other)"), "PAL001", (2,))]


def test_branch_join_scalar_on_one_path_is_silent():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems, one, *, use_first):
    if use_first:
        s = one
    else:
        s = sems
    pltpu.async_copy(x_hbm, o_ref, s).wait()

def run(x, use_first=True):
    return pl.pallas_call(functools.partial(kernel, use_first=use_first), out_shape=OUT, scratch_shapes=[DMA((2,)), DMA])(x)
"""
    assert found(src) == []


def test_branch_join_non_scalar_on_every_path_is_flagged():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems, more, *, use_first):
    if use_first:
        s = sems
    else:
        s = more
    pltpu.async_copy(x_hbm, o_ref, s).wait()

def run(x, use_first=False):
    return pl.pallas_call(functools.partial(kernel, use_first=use_first), out_shape=OUT, scratch_shapes=[DMA((2,)), DMA((4,))])(x)
"""
    (f,) = analyze(src)
    assert (f.span.line + 1, f.code) == (line_of(src, "o_ref, s)"), "PAL001")


def test_static_python_condition_is_followed():
    """A branch on a module constant is decided statically, like Python at trace time."""
    src = HEAD + """
USE_BANKS = False

def kernel(x_hbm, o_ref, sems):
    sem = sems if USE_BANKS else sems.at[0]
    pltpu.async_copy(x_hbm, o_ref, sem).wait()
    if USE_BANKS:
        pl.semaphore_wait(sems)

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == []


def test_reassignment_replaces_the_value():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems):
    sem = sems
    sem = sem.at[pl.program_id(0) % 2]
    pltpu.async_copy(x_hbm, o_ref, sem).wait()
    sem = sems
    pltpu.async_copy(x_hbm, o_ref, sem).wait()  # whole again

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, grid=(2,), scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "# whole again"), "PAL001", (2,))]


def test_nonlocal_rebinding_in_a_closure_is_followed_or_forgotten():
    """`pick()` rebinds `cur` to one semaphore before the DMA: JAX accepts this."""
    src = HEAD + """
def kernel(x_hbm, o_ref, sems, one):
    cur = sems

    def pick():
        nonlocal cur
        cur = sems.at[1]

    pick()
    pltpu.async_copy(x_hbm, o_ref, cur).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,)), DMA])(x)
"""
    assert found(src) == []


def test_closure_sees_the_value_at_call_time():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems):
    def start():
        pltpu.async_copy(x_hbm, o_ref, s).wait()

    s = sems.at[0]
    start()
    s = sems
    start()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "o_ref, s).wait()"), "PAL001", (2,))]


@pytest.mark.parametrize("index", [
    "divmod(pl.program_id(0), 2)",
    "jnp.unravel_index(pl.program_id(0), (2, 2))",
    "slot_index(pl.program_id(0))",
])
def test_index_that_may_be_a_tuple_is_not_counted_as_one_index(index):
    """`sems.at[t]` with a tuple `t` indexes every dimension; a value we cannot see may
    be such a tuple, so a 2-D array indexed with it is not certainly non-scalar."""
    src = HEAD + f"""
from mylib import slot_index

def kernel(x_hbm, o_ref, sems):
    idx = {index}
    pltpu.async_copy(x_hbm, o_ref, sems.at[idx]).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, grid=(4,), scratch_shapes=[DMA((2, 2))])(x)
"""
    assert found(src) == []


def test_scalar_index_expressions_still_drop_one_dimension():
    src = HEAD + """
def kernel(idx_ref, x_hbm, o_ref, sems):
    slot = pl.program_id(0) % 2
    pltpu.async_copy(x_hbm, o_ref, sems.at[slot]).wait()
    pltpu.async_copy(x_hbm, o_ref, sems.at[idx_ref[0]]).wait()
    pltpu.async_copy(x_hbm, o_ref, sems.at[jnp.int32(1)]).wait()

def run(idx, x):
    return pl.pallas_call(kernel, out_shape=OUT, grid_spec=pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1, grid=(4,), scratch_shapes=[DMA((2, 3))]))(idx, x)
"""
    assert found(src) == [
        (line_of(src, "sems.at[slot]"), "PAL001", (3,)),
        (line_of(src, "sems.at[idx_ref[0]]"), "PAL001", (3,)),
        (line_of(src, "sems.at[jnp.int32(1)]"), "PAL001", (3,)),
    ]


def test_python_range_loop_is_unrolled_like_tracing_does():
    """`for i in range(3)` runs three times when JAX traces: the third item is the array."""
    src = HEAD + """
def kernel(x_hbm, o_ref, a, b, c):
    sems = [a, b, c]
    for i in range(3):
        pltpu.async_copy(x_hbm, o_ref, sems[i]).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA, DMA, DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "o_ref, sems[i])"), "PAL001", (2,))]
    assert found(src.replace("sems = [a, b, c]", "sems = [a, b, c.at[1]]")) == []


def test_value_changed_by_an_earlier_iteration():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems):
    s = sems.at[0]
    for i in range(2):
        pltpu.async_copy(x_hbm, o_ref, s).wait()
        s = sems

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "o_ref, s).wait()"), "PAL001", (2,))]


@pytest.mark.parametrize("cond", [
    "len(sems.shape) == 0",
    "sems.shape == ()",
    "sems.ndim == 0",
    "not sems.shape",
])
def test_branch_on_the_semaphore_shape_is_decided_statically(cond):
    """Polymorphic code that checks the shape takes the array branch when traced."""
    src = HEAD + f"""
def kernel(x_hbm, o_ref, sems):
    if {cond}:
        pltpu.async_copy(x_hbm, o_ref, sems).wait()
    else:
        pltpu.async_copy(x_hbm, o_ref, sems.at[0]).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == []


@pytest.mark.parametrize("cond", ["NSLOTS == 1", "NSLOTS < 2", "MODE is None", "MODE != None", "'x' in AXES"])
def test_branch_on_module_constants_compared_is_decided_statically(cond):
    """JAX never traces the dead branch, so its whole-array wait is never an error."""
    src = HEAD + f"""
NSLOTS = 1
MODE = None
AXES = ("x", "y")

def kernel(x_hbm, o_ref, sems):
    if {cond}:
        pltpu.async_copy(x_hbm, o_ref, sems.at[0]).wait()
    else:
        pl.semaphore_wait(sems)

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    if cond == "MODE != None":
        assert found(src) == [(line_of(src, "semaphore_wait(sems)"), "PAL002", (2,))]
    else:
        assert found(src) == []


def test_optional_argument_checked_against_none():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems, *, extra_sems=None):
    pltpu.async_copy(x_hbm, o_ref, sems.at[0]).wait()
    if extra_sems is not None:
        pl.semaphore_wait(sems)

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == []


def test_pl_when_with_a_static_false_condition_never_runs_its_body():
    """`pl.when(False)` is `if False: f()` in JAX: the body is never traced."""
    src = HEAD + """
NUM_CORES = 1

def kernel(x_hbm, o_ref, sems):
    @pl.when(NUM_CORES > 1)
    def _():
        pl.semaphore_signal(sems)

    @pl.when(NUM_CORES == 1)
    def _():
        pl.semaphore_wait(sems)

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[pltpu.SemaphoreType.REGULAR((2,))])(x)
"""
    assert found(src) == [(line_of(src, "semaphore_wait(sems)"), "PAL002", (2,))]


def test_helper_that_also_indexes_the_array_is_flagged_inside():
    """The helper expects the whole array (it indexes it itself); the bug is the one use
    that forgets the index. Flagging the call site would suggest `sems.at[0]` there,
    which breaks the helper's other use (`.at[slot]` on a single semaphore)."""
    src = HEAD + """
def copy_pages(src, dst, sems, slot):
    pltpu.async_copy(src.at[0], dst.at[0], sems.at[slot]).wait()
    pltpu.async_copy(src.at[1], dst.at[1], sems).wait()

def kernel(x_hbm, o_ref, sems):
    copy_pages(x_hbm, o_ref, sems, 0)

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    (f,) = analyze(src)
    assert (f.span.line + 1, f.code, f.shape) == (line_of(src, "dst.at[1], sems)"), "PAL001", (2,))
    assert text_at(src, f.span) == "sems"


def test_kernel_also_called_as_a_helper_by_another_kernel_is_flagged_inside():
    """JAX's paged attention: the inline kernel calls the blocked kernel with its own refs.
    The blocked kernel receives the array straight from scratch when used alone, so its
    whole-array use is the bug; the inline kernel's call passes what the callee expects."""
    src = HEAD + """
def blocked_kernel(x_hbm, o_ref, sems):
    pltpu.async_copy(x_hbm, o_ref, sems).wait()

def inline_kernel(x_hbm, o_ref, sems):
    def body(i, carry):
        blocked_kernel(x_hbm, o_ref, sems)
        return carry
    jax.lax.fori_loop(0, 4, body, 0)

def run(x, inline):
    kernel = inline_kernel if inline else blocked_kernel
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "o_ref, sems).wait()"), "PAL001", (2,))]


@pytest.mark.parametrize("params", ["x, inline_seq_dim", "x, *, inline_seq_dim=True", "x, inline_seq_dim=True"])
def test_paged_attention_shape_reports_once_at_the_descriptor(params):
    """JAX's paged attention in small: the blocked kernel builds a descriptor object with
    the (wrongly) whole array; the inline kernel calls the blocked kernel; `run` picks
    one by a flag that callers may set either way (an uncalled entry point: its keyword
    defaults are not known to be used). One bug, one finding: at the descriptor."""
    src = HEAD + f"""
class Copy:
    def __init__(self, src, dst, sem):
        self._src, self._dst, self._sem = src, dst, sem

    def start(self):
        pltpu.make_async_copy(self._src, self._dst, self._sem).start()


def blocked_kernel(x_hbm, o_ref, sems):
    Copy(x_hbm, o_ref, sems).start()


def inline_kernel(x_hbm, o_ref, sems):
    def body(i, carry):
        blocked_kernel(x_hbm, o_ref, sems)
        return carry
    jax.lax.fori_loop(0, 4, body, 0)


def run({params}):
    kernel = inline_kernel if inline_seq_dim else blocked_kernel
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "Copy(x_hbm, o_ref, sems)"), "PAL001", (2,))]


def test_keyword_defaults_apply_when_the_kernel_is_invoked():
    """`pallas_call` does not pass `whole`, so its default (False) is what JAX traces."""
    src = HEAD + """
def kernel(x_hbm, o_ref, sems, *, whole=False, nslots=2):
    if whole:
        pl.semaphore_wait(sems)
    pl.semaphore_wait(sems.at[nslots - 1])

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[pltpu.SemaphoreType.REGULAR((2,))])(x)
"""
    assert found(src) == []
    called_whole = src.replace("pl.pallas_call(kernel,", "pl.pallas_call(functools.partial(kernel, whole=True),")
    assert found(called_whole) == [(line_of(src, "semaphore_wait(sems)"), "PAL002", (2,))]


@pytest.mark.parametrize("left, right", [("(2,)", "[2]"), ("(2,)", "(2,)"), ("(2,)", "(3,)"), ("range(2)", "(0, 1)"),
                                         ("range(2)", "range(0, 2)"), ("list(range(2))", "[0, 1]"),
                                         ("range(4)[1:3]", "range(1, 3)"), ("range(4)[1:3]", "(1, 2)")])
def test_sequences_compare_as_in_python(left, right):
    """`(2,) == [2]` and `range(2) == (0, 1)` are False in Python: JAX traces the branch
    with the whole-array DMA (`Cannot signal on a non-()-shaped semaphore: (2,)` under
    interpret=True), and only that one."""
    src = HEAD + f"""
def kernel(x_hbm, o_ref, sems):
    if {left} == {right}:
        pltpu.async_copy(x_hbm, o_ref, sems.at[0]).wait()
    else:
        pltpu.async_copy(x_hbm, o_ref, sems).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    reported = eval(left) != eval(right)   # Python's answer
    expected = [(line_of(src, "o_ref, sems).wait()"), "PAL001", (2,))] if reported else []
    assert found(src) == expected


@pytest.mark.parametrize("flag", ["True", "1.0", "1"])
def test_membership_is_python_equality(flag):
    """`x in (1, 2)` compares as Python does (`True == 1 == 1.0`): the path JAX traces
    is the one followed, so the whole-array DMA on the other path is never reported."""
    src = HEAD + f"""
def kernel(x_hbm, o_ref, sems):
    mode = {flag}
    if mode in (1, 2):
        pltpu.async_copy(x_hbm, o_ref, sems.at[0]).wait()
    else:
        pltpu.async_copy(x_hbm, o_ref, sems).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == []


# Python's `break` / `continue` in loops JAX runs while tracing (unrolled here): each
# kernel's verdict is JAX's (interpret=True).
BREAK_KERNELS = {
    # a certain `break`: the later items never run, and the `for`'s `else` does not either
    "break-stops-the-items": ("""
    for slot in (0, 1):
        if slot == 0:
            pltpu.async_copy(x_hbm, o_ref, sems.at[slot]).wait()
            break
        pltpu.async_copy(x_hbm, o_ref, sems).wait()
""", False),
    "break-skips-else": ("""
    for slot in (0, 1):
        pltpu.async_copy(x_hbm, o_ref, sems.at[slot]).wait()
        break
    else:
        pltpu.async_copy(x_hbm, o_ref, sems).wait()
""", False),
    "no-break-runs-else": ("""
    for slot in (0, 1):
        pltpu.async_copy(x_hbm, o_ref, sems.at[slot]).wait()
    else:
        pltpu.async_copy(x_hbm, o_ref, sems).wait()
""", True),
    # a `continue` goes on with the next round (a `while` loop included)
    "while-continue-goes-on": ("""
    i = 0
    while i < 3:
        i += 1
        if i == 1:
            continue
        if i == 3:
            pltpu.async_copy(x_hbm, o_ref, sems).wait()
""", True),
    # the state at a `continue` reaches the rounds after it
    "continue-keeps-its-state": ("""
    target = sems.at[0]
    for slot in (0, 1):
        target = sems
        if slot == 1:
            continue
        target = sems.at[slot]
    pltpu.async_copy(x_hbm, o_ref, target).wait()
""", True),
    "return-ends-the-loop": ("""
    for slot in (0, 1):
        pltpu.async_copy(x_hbm, o_ref, sems.at[slot]).wait()
        return
    pltpu.async_copy(x_hbm, o_ref, sems).wait()
""", False),
}


@pytest.mark.parametrize("name", sorted(BREAK_KERNELS))
def test_break_and_continue_as_python_runs_them(name):
    body, reported = BREAK_KERNELS[name]
    src = HEAD + "\ndef kernel(x_hbm, o_ref, sems):" + body + """
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    expected = [(line_of(src, "o_ref, sems).wait()" if "target" not in body else "o_ref, target)"), "PAL001", (2,))]
    assert found(src) == (expected if reported else [])


def test_a_helper_given_a_tuple_then_a_list_runs_for_each():
    """A top-level helper called again from the same place with equal items in a list
    instead of a tuple gives Python's answer for each (not the first one's, remembered)."""
    src = HEAD + """
def is_list_of_two(shape):
    return shape == [2]

def kernel(x_hbm, o_ref, sems):
    for shape in ([2], (2,)):
        if is_list_of_two(shape):
            pltpu.async_copy(x_hbm, o_ref, sems.at[0]).wait()
        else:
            pltpu.async_copy(x_hbm, o_ref, sems).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "o_ref, sems).wait()"), "PAL001", (2,))]


LIST_METHOD_KERNELS = {
    # the list after sort / pop / reverse / remove / clear is Python's
    "sort-pop": ("slots = [1, 0]\n    slots.sort()\n    first = slots.pop(0)", False),
    "reverse-pop": ("slots = [1, 0]\n    slots.reverse()\n    first = slots.pop()", True),
    "pop-last": ("slots = [1, 0]\n    first = slots.pop()", False),
    "remove": ("slots = [0, 1, 0]\n    slots.remove(0)\n    first = slots[1]", False),
    "clear-append": ("slots = [1, 1]\n    slots.clear()\n    slots.append(0)\n    first = slots[0]", False),
}


def _judged_by_first(steps: str, reported: bool, definitions: str = "") -> None:
    """A kernel that copies on `sems.at[first]` when `steps` leave `first == 0`, else on
    the whole array (JAX: `Cannot signal on a non-()-shaped semaphore: (2,)`, under
    interpret=True): flagged there exactly when `reported`."""
    src = HEAD + f"""
{definitions}
def kernel(x_hbm, o_ref, sems):
    {steps}
    if first == 0:
        pltpu.async_copy(x_hbm, o_ref, sems.at[first]).wait()
    else:
        pltpu.async_copy(x_hbm, o_ref, sems).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    expected = [(line_of(src, "o_ref, sems).wait()"), "PAL001", (2,))] if reported else []
    assert found(src) == expected


@pytest.mark.parametrize("name", sorted(LIST_METHOD_KERNELS))
def test_list_methods_as_python_runs_them(name):
    _judged_by_first(*LIST_METHOD_KERNELS[name])


def test_a_loop_of_unknown_length_runs_until_what_it_reads_settles():
    """`prev` is None only in the first round: the branch on `prev is not None` runs in the
    rounds after it (JAX traces it at i == 1 and raises on the whole-array DMA there)."""
    src = HEAD + """
def kernel(x_hbm, o_ref, sems):
    prev = None
    for i in range(round(2.4)):
        if prev is not None:
            pltpu.async_copy(x_hbm, o_ref, sems).wait()
        prev = i

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert [(line, code) for line, code, _ in found(src)] == [(line_of(src, "o_ref, sems).wait()"), "PAL001")]


# Python shares a list or dict between every name, field and caller that holds it: a
# change through one is seen through all.  (definitions, steps giving `first`, whether
# JAX rejects the kernel: `first != 0` copies on the whole array)
SHARED_CONTAINER_KERNELS = {
    "helper-append": ("def grow(xs):\n    xs.append(0)\n", "slots = [1]\n    grow(slots)\n    first = slots[-1]",
                      False),
    "helper-rebinds-its-own": ("def grow(xs):\n    xs = xs + [1]\n    xs.append(1)\n",
                               "slots = [0]\n    grow(slots)\n    first = slots[-1]", False),
    "alias-append": ("", "slots = [0]\n    more = slots\n    more.append(1)\n    first = slots[-1]", True),
    "alias-iadd": ("", "slots = [1]\n    more = slots\n    more += [0]\n    first = slots[-1]", False),
    "alias-rebound": ("", "slots = [0]\n    more = slots\n    more = more + [1]\n    first = slots[-1]", False),
    "item-write": ("", "slots = [0, 0]\n    slots[1] = 1\n    first = slots[1]", True),
    "item-write-alias": ("", "slots = [1, 1]\n    view = slots\n    view[0] = 0\n    first = slots[0]", False),
    "list-del": ("", "slots = [1, 0]\n    del slots[0]\n    first = slots[0]", False),
    "dict-write": ("", "opts = {'slot': 0}\n    opts['slot'] = 1\n    first = opts['slot']", True),
    "dict-del": ("", "opts = {'slot': 0, 'other': 1}\n    del opts['slot']\n    first = opts.get('slot', 1)",
                 True),
    "object-field": ("class Plan:\n    def __init__(self):\n        self.slots = [0]\n",
                     "plan = Plan()\n    slots = plan.slots\n    slots.append(1)\n    first = plan.slots[-1]", True),
    "loop-over-a-growing-list": ("", "slots = [1]\n    seen = 0\n    for s in slots:\n        seen += 1\n"
                                 "        if len(slots) < 3:\n            slots += [1]\n    first = 1 if seen == 3 else 0",
                                 True),
    "enumerate-over-a-growing-list": ("", "slots = [1]\n    seen = 0\n    for k, s in enumerate(slots):\n"
                                      "        seen += 1\n        if len(slots) < 3:\n            slots += [1]\n"
                                      "    first = 1 if seen == 3 else 0", True),
    "dict-update": ("", "opts = {'slot': 0}\n    opts.update(slot=1)\n    first = opts['slot']", True),
    "dict-update-in-a-helper": ("def tune(options):\n    options.update({'slot': 0})\n",
                                "opts = {'slot': 1}\n    tune(opts)\n    first = opts['slot']", False),
    "dict-setdefault": ("", "opts = {}\n    opts.setdefault('slot', 1)\n    first = opts['slot']", True),
    "dict-pop": ("", "opts = {'slot': 1}\n    first = opts.pop('slot', 0) - 1", False),
    "dict-get": ("", "opts = {'slot': 1}\n    first = opts.get('slot', 0)", True),
    "dict-display-unpacking": ("", "opts = {**{'slot': 1}, 'slot': 0}\n    first = opts['slot']", False),
    "dict-display-unpacked-last": ("", "base = {'slot': 1}\n    opts = {'slot': 0, **base}\n    first = opts['slot']",
                                   True),
    "object-method-named-pop": ("class Queue:\n    def pop(self):\n        return 1\n",
                                "queue = Queue()\n    first = queue.pop()", True),
}


@pytest.mark.parametrize("name", sorted(SHARED_CONTAINER_KERNELS))
def test_lists_and_dicts_are_shared_as_python_shares_them(name):
    """Before lists and dicts were shared, 12 of the first 18 were judged wrong (7 false
    errors, 5 missed); before `{**d, k: v}` was read, the first dict-display one gave a
    false error; before `enumerate` followed the list it goes over, its error was missed."""
    definitions, steps, reported = SHARED_CONTAINER_KERNELS[name]
    _judged_by_first(steps, reported, definitions)


def _whole_array_copy_is_an_error_given_wide(steps: str, one_slot: str) -> None:
    """A kernel given a flag `wide` the code does not know, that runs `steps`, then copies
    on `sems.at[0]` where `one_slot` holds, else on the whole array (JAX, given `wide`,
    reaches the whole-array copy and raises): that copy is flagged as an error."""
    src = HEAD + f"""
def kernel(x_hbm, o_ref, sems, *, wide):
    {steps}
    if {one_slot}:
        pltpu.async_copy(x_hbm, o_ref, sems.at[0]).wait()
    else:
        pltpu.async_copy(x_hbm, o_ref, sems).wait()

def run(x, wide):
    return pl.pallas_call(functools.partial(kernel, wide=wide), out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert [(f.span.line + 1, f.code, f.severity) for f in analyze(src)] == [
        (line_of(src, "o_ref, sems).wait()"), "PAL001", "error")]


def test_a_list_joined_where_paths_meet_shares_the_change_made_through_it():
    """`more` is `slots` on one path only: appending through it may change `slots`, so
    its last item is not known and the whole-array copy is reached (JAX, given `wide`,
    appends to `slots` and raises there; `slots` was read as [0] and the copy never ran)."""
    _whole_array_copy_is_an_error_given_wide(
        "slots = [0]\n    if wide:\n        more = slots\n    else:\n        more = [5]\n    more.append(1)",
        "slots[-1] == 0")


# A function called again with the same arguments is not run again (`interp.calls`): an
# object whose fields changed since, or a call that changed something outside it, must
# still run it.
REPEATED_CALL_KERNELS = {
    "object-changed-between-calls": (
        "class Plan:\n    def __init__(self):\n        self.slot = 0\n"
        "def slot_of(plan):\n    return plan.slot\n",
        "plan = Plan()\n    seen = []\n    for i in range(2):\n        seen.append(slot_of(plan))\n"
        "        plan.slot = 1\n    first = seen[1]", True),
    "helper-changes-the-object": (
        "class Plan:\n    def __init__(self):\n        self.slot = 0\n"
        "def bump(plan):\n    plan.slot = plan.slot + 1\n    return 0\n",
        "plan = Plan()\n    for i in range(2):\n        bump(plan)\n    first = plan.slot - 2", False),
    "helper-calls-a-closure-writing-nonlocal": (
        "def call(fn):\n    fn()\n    return 0\n",
        "count = 0\n    def bump():\n        nonlocal count\n        count += 1\n"
        "    for i in range(2):\n        call(bump)\n    first = count - 2", False),
}


@pytest.mark.parametrize("name", sorted(REPEATED_CALL_KERNELS))
def test_a_repeated_call_runs_again_when_what_it_reads_or_changes_moved(name):
    """The memo gave the first call's answer again: a missed error and two false ones."""
    definitions, steps, reported = REPEATED_CALL_KERNELS[name]
    _judged_by_first(steps, reported, definitions)


def test_a_list_joined_where_paths_meet_still_shares_after_one_of_them_changed():
    """`more` may be `slots`; after `slots` grows, popping through `more` may still shrink
    it (JAX, given `wide`, pops the 1 just appended and raises on the whole-array copy;
    the relation was lost with the append, and `slots[-1]` read as 1)."""
    _whole_array_copy_is_an_error_given_wide(
        "slots = [0]\n    other = [5]\n    if wide:\n        more = slots\n    else:\n        more = other\n"
        "    slots.append(1)\n    more.pop()", "slots[-1] == 1")


# `a or b` / `a and b` give an operand, not a bool (`block = block or 128`).
BOOL_OPERAND_KERNELS = {
    "or-gives-the-operand": ("", "n = 2 or 0\n    first = n - 2", False),
    "and-gives-the-operand": ("", "n = 1 and 3\n    first = n - 3", False),
    "or-gives-the-list": ("", "slots = [] or [1]\n    first = slots[0]", True),
    "or-default-argument": ("def pick(slot=None):\n    return slot or 1\n", "first = pick()", True),
}




# Python's order and scopes: `enumerate`'s start, `:=` in a comprehension (it binds in the
# function), a chained comparison stops at its first false link, an f-string's parts run.
PYTHON_FORM_KERNELS = {
    "enumerate-from-its-start": ("", "first = [i for i, x in enumerate((5,), 1)][0]", True),
    "walrus-in-a-comprehension": ("", "n = 1\n    pairs = [(n := x) for x in (0,)]\n    first = n", False),
    "chained-comparison-stops": ("", "n = 0\n    ok = 1 < 0 < (n := 1)\n    first = n", False),
    "f-string-parts-run": ("", "xs = [0, 1]\n    text = f'{xs.pop()}'\n    first = len(xs) - 1", False),
}


# A change made where the code does not decide whether it runs (a helper's branch, an
# operand of `and`, a side of `a if c else b`, a closure's branch writing `nonlocal`) may
# not happen: here it would make the copy safe, and JAX, given the (8, 128) input, skips it.
UNKNOWN_CONDITION_KERNELS = {
    "helper-branch": ("def shrink(xs, wide):\n    if wide:\n        xs.pop()\n    return 0\n",
                      "slots = [0, 1]\n    shrink(slots, x_hbm.shape[0] > 8)\n    first = len(slots) - 1", True),
    "side-of-a-conditional": ("", "slots = [0, 1]\n    slots.pop() if x_hbm.shape[0] > 8 else None\n"
                                  "    first = len(slots) - 1", True),
    "operand-of-and": ("", "slots = [0, 1]\n    x_hbm.shape[0] > 8 and slots.pop()\n    first = len(slots) - 1", True),
    "nonlocal-in-a-branch": ("", "n = 1\n    def drop():\n        nonlocal n\n        if x_hbm.shape[0] > 8:\n"
                                 "            n = 0\n    drop()\n    first = n", True),
    # a condition JAX traces (`lax.cond`): the body is traced once whatever it is, its
    # changes made
    "pl-when-traced-condition": ("", "slots = [0, 1]\n    @pl.when(o_ref[0, 0] > 0)\n    def _():\n"
                                     "        slots.pop()\n    first = len(slots) - 1", False),
    "pl-when-traced-condition-field": ("class Box:\n    def __init__(self):\n        self.n = 1\n",
                                       "box = Box()\n    @pl.when(o_ref[0, 0] > 0)\n    def _():\n"
                                       "        box.n = 0\n    first = box.n", False),
}


@pytest.mark.parametrize("name", sorted(UNKNOWN_CONDITION_KERNELS))
def test_a_change_that_may_not_happen_is_not_taken_as_made(name):
    """Each was taken as made for certain: four missed errors; and a field written in a
    body JAX traces was taken as maybe: a false error."""
    definitions, steps, reported = UNKNOWN_CONDITION_KERNELS[name]
    _judged_by_first(steps, reported, definitions)


# A top-level function given a closure, called again from the same line with the closure
# reading other values (a loop): the calls are not alike.
_PICK = "def pick(fn):\n    return fn()\n"
CLOSURE_ARGUMENT_KERNELS = {
    "closure": (_PICK, "k = 5\n    def now():\n        return k\n    for k in (0, 1):\n"
                       "        first = pick(now)", True),
    "closure-false-error": (_PICK, "k = 5\n    def now():\n        return k\n    for k in (1, 0):\n"
                                   "        first = pick(now)", False),
    "partial-of-a-closure": (_PICK, "k = 5\n    def now(a):\n        return k * a\n"
                                    "    later = functools.partial(now, 1)\n    for k in (0, 1):\n"
                                    "        first = pick(later)", True),
    "closure-in-an-object": ("class Holder:\n    def __init__(self, fn):\n        self.fn = fn\n\n"
                             "def call(holder):\n    return holder.fn()\n",
                             "k = 5\n    def now():\n        return k\n    holder = Holder(now)\n"
                             "    for k in (0, 1):\n        first = call(holder)", True),
}


@pytest.mark.parametrize("name", sorted(CLOSURE_ARGUMENT_KERNELS))
def test_calls_given_a_closure_are_not_taken_for_each_other(name):
    """Each call of `pick` from the loop was taken from the first one (the same function
    object given): three missed errors and a false one."""
    definitions, steps, reported = CLOSURE_ARGUMENT_KERNELS[name]
    _judged_by_first(steps, reported, definitions)


# A list that may be held by a name bound in a loop of unknown length (JAX runs it once:
# `names` keeps its item), changed through that name or through its own.
_MAYBE_ALIASED = ("slots = [0, 1]\n    names = {'a': 1}\n    if x_hbm.shape[0] > 8:\n        names = {}\n"
                  "    for _ in names.items():\n        alias = slots\n    alias += [2]\n")
MAYBE_ALIASED_KERNELS = {
    "grown-through-the-name-bound-in-the-loop": ("", _MAYBE_ALIASED + "    first = len(slots) - 2", True),
    "changed-through-its-own-name-after": ("", _MAYBE_ALIASED + "    slots[-1] = 7\n    first = alias[-1] - 2",
                                           True),
}


@pytest.mark.parametrize("name", sorted(MAYBE_ALIASED_KERNELS))
def test_a_list_a_name_may_hold_after_a_loop_is_changed_through_it(name):
    """Each was a missed error (`first` taken for 0): `alias`, bound only in the loop, was
    not taken as maybe `slots` (its growth left `slots` as it was), and what `alias += [2]`
    made was not taken as maybe changed through `slots`."""
    definitions, steps, reported = MAYBE_ALIASED_KERNELS[name]
    _judged_by_first(steps, reported, definitions)


@pytest.mark.parametrize("name", sorted({**BOOL_OPERAND_KERNELS, **PYTHON_FORM_KERNELS}))
def test_operands_and_forms_as_python_runs_them(name):
    """Each was read otherwise: `2 or 0` as True (then `True - 2` is -1: two false
    errors); the forms, one missed error (the count from 0) and three false ones."""
    definitions, steps, reported = {**BOOL_OPERAND_KERNELS, **PYTHON_FORM_KERNELS}[name]
    _judged_by_first(steps, reported, definitions)
