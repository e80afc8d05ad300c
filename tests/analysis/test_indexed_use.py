"""Issue 12: semaphore arrays known by their use.  The kernel takes its refs from one
iterator and a flag the code does not give (`jnp.dtype(x.dtype).itemsize`) decides how
many come first, so what `next(it)` gives is unknown; a name indexed elsewhere as a
semaphore (`sems.at[0]` to a DMA, directly, through a helper that takes one semaphore,
or handed whole to a helper that indexes it) is an array all the same, and using it
whole is the error JAX raises.

Broken cases come with their correct twin (JAX traces `run(x)` with a float32 `x`: the
flag is off); the precision cases are correct code the inference must not flag: a name
indexed on one branch of a configuration condition and used whole on the other, a
name bound twice, a helper that indexes its parameter only when given an index."""

import textwrap

from .helpers import analyze, found, line_of

HEAD = """
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

DMA = pltpu.SemaphoreType.DMA
OUT = jax.ShapeDtypeStruct((8, 128), jnp.float32)


def copy(src, dst, sem):
    cp = pltpu.make_async_copy(src, dst, sem)
    cp.start()
    cp.wait()


def slot_copy(src, dst, sems, slot):
    copy(src, dst, sems.at[slot])


def run(x):
    narrow = jnp.dtype(x.dtype).itemsize < 4   # not in the code: where the refs sit is unknown

    def kernel(*refs):
        it = iter(refs)
        x_hbm, o_hbm = next(it), next(it)
        extra = next(it) if narrow else None
        sems, grid_sems = next(it), next(it)
"""

TAIL = """
    scratch = [pltpu.VMEM((8, 128), jnp.float32)] * int(narrow) + {scratch}
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=scratch)(x)
"""

SCRATCH = "[DMA((2,)), DMA((2, 3))]"


def _kernel(body: str, scratch: str = SCRATCH) -> str:
    return HEAD + textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8) + "\n" + TAIL.format(scratch=scratch)


def _one(src: str, needle: str, shape: tuple) -> None:
    assert found(src) == [(line_of(src, needle), "PAL001", shape)]


DIRECT = """
pltpu.async_copy(x_hbm, o_hbm, sems.at[0]).wait()
pltpu.async_copy(x_hbm, o_hbm, {arg}).wait()  # the second copy
"""


def test_a_name_indexed_at_a_dma_is_an_array_used_whole():
    src = _kernel(DIRECT.format(arg="sems"))
    _one(src, "# the second copy", ("?",))
    f = next(f for f in analyze(src) if f.code == "PAL001")
    assert "`sems` is a semaphore array of shape (?,) (indexed as one at line" in f.message
    assert f.message.startswith("Cannot signal on a non-()-shaped semaphore: (?,)")
    assert [r.message for r in f.related] == ["indexed as a semaphore array here"]
    assert f.related[0].span.line + 1 == line_of(src, "sems.at[0]).wait()")


def test_a_name_indexed_at_a_dma_is_an_array_used_whole_correct():
    assert found(_kernel(DIRECT.format(arg="sems.at[1]"))) == []


def test_the_index_fix_is_a_choice():
    """The array is not declared where the analysis can see it: which index is right is
    the author's call, never applied by *Fix all*."""
    f = next(f for f in analyze(_kernel(DIRECT.format(arg="sems"))) if f.code == "PAL001")
    assert f.fix is not None and not f.fix.safe
    assert ("0",) in (f.fix.index, *f.fix.alternatives)


THROUGH_HELPER = """
copy(x_hbm, o_hbm, sems.at[0])
copy(x_hbm, o_hbm, {arg})  # the helper call
"""


def test_a_view_given_to_a_helper_that_takes_one_semaphore():
    _one(_kernel(THROUGH_HELPER.format(arg="sems")), "# the helper call", ("?",))
    assert found(_kernel(THROUGH_HELPER.format(arg="sems.at[1]"))) == []


HANDED_WHOLE = """
slot_copy(x_hbm, o_hbm, sems, 0)
copy(x_hbm, o_hbm, {arg})  # after the slot copy
"""


def test_a_name_handed_whole_to_a_helper_that_indexes_it():
    src = _kernel(HANDED_WHOLE.format(arg="sems"))
    _one(src, "# after the slot copy", ("?",))
    f = next(f for f in analyze(src) if f.code == "PAL001")
    assert "(indexed as one at line {}: `sems.at[slot]`)".format(line_of(src, "copy(src, dst, sems.at[slot])")) \
        in f.message
    assert found(_kernel(HANDED_WHOLE.format(arg="sems.at[1]"))) == []


RANK_TWO = """
copy(x_hbm, o_hbm, grid_sems.at[1, 2])
copy(x_hbm, o_hbm, {arg})  # the whole grid
"""


def test_the_rank_is_the_number_of_indices():
    """`grid_sems.at[1, 2]` is one semaphore: `grid_sems` has rank 2 (JAX: `(2, 3)`)."""
    _one(_kernel(RANK_TWO.format(arg="grid_sems")), "# the whole grid", ("?", "?"))
    assert found(_kernel(RANK_TWO.format(arg="grid_sems.at[1, 0]"))) == []


def test_views_of_two_ranks_are_no_evidence():
    """`grid_sems.at[1]` beside `grid_sems.at[1, 2]`: one of them is wrong, but which
    one depends on a declaration the code does not show (JAX raises at the row on a
    `(2, 3)` array, at the pair on a `(2,)` one): silent."""
    assert found(_kernel(RANK_TWO.format(arg="grid_sems.at[1]"))) == []


OPTIONAL = """
tail_sems = None
if not narrow:
    tail_sems = next(it)
if not narrow:
    copy(x_hbm, o_hbm, tail_sems.at[0])
    copy(x_hbm, o_hbm, {arg})  # the tail copy
"""


def test_a_name_that_is_none_on_another_path():
    """Bound once to a ref (`None` otherwise, where it is not used)."""
    scratch = "[DMA((2,)), DMA((2, 3))] + [DMA((2,))] * int(not narrow)"
    _one(_kernel(OPTIONAL.format(arg="tail_sems"), scratch), "# the tail copy", ("?",))
    assert found(_kernel(OPTIONAL.format(arg="tail_sems.at[1]"), scratch)) == []


# ---------------------------------------------------------------- correct code left alone

def test_indexed_on_one_branch_of_a_configuration_and_whole_on_the_other():
    """The configuration declares an array where it indexes and one semaphore where it
    does not: both branches are right."""
    body = """
    if narrow:
        copy(x_hbm, o_hbm, sems.at[0])
    else:
        copy(x_hbm, o_hbm, sems)
    copy(x_hbm, o_hbm, sems.at[0] if narrow else sems)
    """
    assert found(_kernel(body, "[DMA((2,)) if narrow else DMA, DMA((2, 3))]")) == []


def test_a_name_bound_twice_is_not_judged_by_its_views():
    body = """
    s = sems
    copy(x_hbm, o_hbm, s.at[0])
    s = s.at[1]
    copy(x_hbm, o_hbm, s)
    """
    assert found(_kernel(body)) == []


def test_a_helper_that_indexes_only_when_given_an_index():
    body = """
    def maybe_index(sem, i=None):
        copy(x_hbm, o_hbm, sem if i is None else sem.at[i])

    maybe_index(sems, 0)
    maybe_index(grid_sems.at[0, 0])
    """
    assert found(_kernel(body)) == []


def test_views_of_buffers_say_nothing_about_semaphores():
    """`x_hbm.at[...]` is a DMA's source, not a semaphore: `x_hbm` used whole elsewhere is
    a buffer."""
    body = """
    copy(x_hbm.at[pl.ds(0, 8)], o_hbm, sems.at[0])
    copy(x_hbm, o_hbm, sems.at[1])
    """
    assert found(_kernel(body)) == []


def test_a_known_declaration_keeps_its_shape():
    """Where the kernel's refs are known the declared shape is reported, not `(?,)`."""
    src = HEAD.replace("        extra = next(it) if narrow else None\n", "") + textwrap.indent(
        DIRECT.format(arg="sems").strip("\n"), " " * 8) + """
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,)), DMA((2, 3))])(x)
"""
    _one(src, "# the second copy", (2,))


ALIASED = """
recv_sem = {recv}
send_sem = sems.at[1]
copy(x_hbm, o_hbm, recv_sem)  # the receive copy
copy(o_hbm, x_hbm, send_sem)
"""


def test_views_and_the_whole_array_given_names_first():
    """`send_sem = sems.at[1]` names a view that goes to a DMA: `sems` is an array, and
    `recv_sem = sems` (the index forgotten) is the whole of it."""
    src = _kernel(ALIASED.format(recv="sems"))
    _one(src, "# the receive copy", ("?",))
    assert found(_kernel(ALIASED.format(recv="sems.at[0]"))) == []
