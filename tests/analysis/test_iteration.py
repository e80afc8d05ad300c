"""Issue 12: semaphores followed through Python iteration: comprehensions evaluated per
item (list, generator, set, dict), generator functions (`yield`, `yield from`),
iterators (`iter` + `next`), `zip` / `enumerate` / `map(lambda ...)` over views, and
`dataclasses.replace` / `NamedTuple._replace`.

Every construct comes as a pair: the broken kernel (JAX raises `Cannot signal on a
non-()-shaped semaphore: S` when tracing it; the finding is expected at that line with
shape S) and its correct twin (JAX traces it; no finding)."""

from .helpers import analyze, found, line_of

HEAD = """
import dataclasses
import functools
import typing
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

DMA = pltpu.SemaphoreType.DMA
OUT = jax.ShapeDtypeStruct((8, 128), jnp.float32)
K_ROW, V_ROW = 0, 1


def copy(src, dst, sem):
    cp = pltpu.make_async_copy(src, dst, sem)
    cp.start()
    cp.wait()
"""


def _pair(body: str, scratch: str = "[DMA((2, 3))]") -> str:
    return HEAD + body + f"""

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes={scratch})(x)
"""


def _one(src: str, needle: str, shape: tuple) -> None:
    assert found(src) == [(line_of(src, needle), "PAL001", shape)]


# ---------------------------------------------------------------- list comprehensions

LISTCOMP = """
def kernel(x_hbm, o_hbm, sems):
    k_sems, v_sems = [sems.at[r] for r in (K_ROW, V_ROW)]
    copy(x_hbm, o_hbm, k_sems.at[0])
    copy(x_hbm, o_hbm, {v})  # the value copy
"""


def test_list_comprehension_of_views_unpacked_into_names():
    _one(_pair(LISTCOMP.format(v="v_sems")), "# the value copy", (3,))


def test_list_comprehension_of_views_unpacked_into_names_correct():
    assert found(_pair(LISTCOMP.format(v="v_sems.at[2]"))) == []


def test_list_comprehension_keeps_each_item_with_a_static_condition():
    """Per item: the rows that pass `if r != 1` and a whole array where the condition
    keeps it; the item that the condition drops is not there."""
    body = """
def kernel(x_hbm, o_hbm, sems, one):
    first, last = [sems.at[r] if r < 2 else one for r in range(3) if r != 1]
    copy(x_hbm, o_hbm, last)
    copy(x_hbm, o_hbm, {first})  # the first copy
"""
    scratch = "[DMA((3, 2)), DMA]"
    _one(_pair(body.format(first="first"), scratch), "# the first copy", (2,))
    assert found(_pair(body.format(first="first.at[1]"), scratch)) == []


# ---------------------------------------------------------------- generator functions

GENERATOR = """
def _slots(sems, n):
    for k in range(n):
        yield k, sems.at[{index}]


def kernel(x_hbm, o_hbm, sems):
    for k, sem in _slots(sems, 2):
        copy(x_hbm, o_hbm, sem)  # each slot
"""


def test_generator_helper_yielding_rows():
    _one(_pair(GENERATOR.format(index="k")), "# each slot", (3,))


def test_generator_helper_yielding_rows_correct():
    assert found(_pair(GENERATOR.format(index="k, k"))) == []


PAIR_GENERATOR = """
def _pair(sems):
    yield sems.at[0]
    yield sems


def kernel(x_hbm, o_hbm, sems):
    one, whole = _pair(sems)
    copy(x_hbm, o_hbm, one)
    copy(x_hbm, o_hbm, {whole})  # the second yield
"""


def test_generator_yields_in_order():
    """Straight-line yields are a tuple: the first is one semaphore, the second the array."""
    _one(_pair(PAIR_GENERATOR.format(whole="whole"), "[DMA((2,))]"), "# the second yield", (2,))


def test_generator_yields_in_order_correct():
    assert found(_pair(PAIR_GENERATOR.format(whole="whole.at[1]"), "[DMA((2,))]")) == []


BRANCHY_GENERATOR = """
def _views(sems, flag):
    if flag:
        yield sems.at[0]
    else:
        yield sems.at[1]
    yield sems.at[{last}]


def kernel(x_hbm, o_hbm, sems, *, flag=True):
    for sem in _views(sems, flag):
        copy(x_hbm, o_hbm, sem)  # every view


def run(x):
    return pl.pallas_call(functools.partial(kernel, flag=True), out_shape=OUT,
                          scratch_shapes=[DMA({shape})])(x)
"""


def test_generator_with_branches_yields_the_join():
    _one(HEAD + BRANCHY_GENERATOR.format(last="1", shape="(2, 3)"), "# every view", (3,))


def test_generator_with_branches_yields_the_join_correct():
    assert found(HEAD + BRANCHY_GENERATOR.format(last="1", shape="(2,)")) == []


def test_generator_with_path_dependent_rank_is_silent():
    """One yield is a row, the other a single semaphore: the loop variable is unknown."""
    src = HEAD + """
def _views(sems, flag):
    if flag:
        yield sems.at[0, 0]
    else:
        yield sems.at[1]


def kernel(x_hbm, o_hbm, sems, *, flag=True):
    for sem in _views(sems, flag):
        copy(x_hbm, o_hbm, sem)


def run(x):
    return pl.pallas_call(functools.partial(kernel, flag=x.shape[0] > 1), out_shape=OUT,
                          scratch_shapes=[DMA((2, 3))])(x)
"""
    assert found(src) == []


LOOPING_GENERATOR = """
def _views(sems, n):
    for k in range(n):
        yield sems.at[{index}]


def kernel(x_hbm, o_hbm, sems, *, n=2):
    for sem in _views(sems, n):
        copy(x_hbm, o_hbm, sem)  # every view


def run(x):
    return pl.pallas_call(functools.partial(kernel, n=x.shape[0] // 4), out_shape=OUT,
                          scratch_shapes=[DMA((2, 3))])(x)
"""


def test_generator_looping_an_unknown_number_of_times():
    """`range(n)` with `n` unknown: some number of rows."""
    _one(HEAD + LOOPING_GENERATOR.format(index="k"), "# every view", (3,))


def test_generator_looping_an_unknown_number_of_times_correct():
    assert found(HEAD + LOOPING_GENERATOR.format(index="k, 0")) == []


MANY_YIELDS = """
def _many(sems):
    for i in range(4):
        for j in range(5):
            yield i + j, sems.at[{index}]


def kernel(x_hbm, o_hbm, sems):
    for _, sem in _many(sems):
        copy(x_hbm, o_hbm, sem)  # every view
"""


def test_generator_yielding_more_than_the_unroll_limit_is_summarised():
    """20 items: more than are kept one by one; the loop sees their join."""
    _one(_pair(MANY_YIELDS.format(index="(i + j) % 2")), "# every view", (3,))


def test_generator_yielding_more_than_the_unroll_limit_is_summarised_correct():
    assert found(_pair(MANY_YIELDS.format(index="(i + j) % 2, j % 3"))) == []


YIELD_FROM = """
def _rows(sems):
    yield from (sems.at[r] for r in range(2))


def _all(sems):
    yield from _rows(sems)
    yield sems.at[{last}]


def kernel(x_hbm, o_hbm, sems):
    a, b, c = _all(sems)
    copy(x_hbm, o_hbm, c.at[0])
    copy(x_hbm, o_hbm, {b})  # the second row
"""


def test_yield_from_a_generator_and_a_generator_expression():
    _one(_pair(YIELD_FROM.format(last="0", b="b")), "# the second row", (3,))


def test_yield_from_a_generator_and_a_generator_expression_correct():
    assert found(_pair(YIELD_FROM.format(last="0", b="b.at[2]"))) == []


# ---------------------------------------------------------------- other comprehensions

SETCOMP = """
def kernel(x_hbm, o_hbm, sems):
    for r in sorted({{r % 2 for r in range(4)}}):
        copy(x_hbm, o_hbm, sems.at[r])  # per row
"""


def test_set_comprehension_of_indices():
    _one(_pair(SETCOMP.format(), "[DMA((2, 3))]"), "# per row", (3,))


def test_set_comprehension_of_indices_correct():
    assert found(_pair(SETCOMP.format(), "[DMA((2,))]")) == []


DICTCOMP = """
def kernel(x_hbm, o_hbm, sems):
    views = {{name: sems.at[i] for i, name in enumerate(("k", "v"))}}
    copy(x_hbm, o_hbm, views["k"].at[0])
    copy(x_hbm, o_hbm, {v})  # the value row
"""


def test_dict_comprehension_of_views():
    _one(_pair(DICTCOMP.format(v='views["v"]')), "# the value row", (3,))


def test_dict_comprehension_of_views_correct():
    assert found(_pair(DICTCOMP.format(v='views["v"].at[1]'))) == []


# ---------------------------------------------------------------- iterators

NEXT_GENEXP = """
def kernel(x_hbm, o_hbm, *scratch_refs):
    it = iter(scratch_refs)
    a_sems, b_sems, cp_sem = (next(it) for _ in range(3))
    copy(x_hbm, o_hbm, cp_sem)
    copy(x_hbm, o_hbm, b_sems.at[1])
    copy(x_hbm, o_hbm, {a})  # the first array
"""


def test_next_in_a_generator_expression_unpacked():
    _one(_pair(NEXT_GENEXP.format(a="a_sems"), "[DMA((2,)), DMA((4,)), DMA]"), "# the first array", (2,))


def test_next_in_a_generator_expression_unpacked_correct():
    assert found(_pair(NEXT_GENEXP.format(a="a_sems.at[0]"), "[DMA((2,)), DMA((4,)), DMA]")) == []


NEXT_SEQUENCE = """
def kernel(x_hbm, o_hbm, *scratch_refs):
    first = next(iter(scratch_refs))
    it = iter(scratch_refs)
    in_sems = next(it)
    out_sem = next(it)
    copy(x_hbm, o_hbm, out_sem)
    copy(x_hbm, o_hbm, first.at[0])
    copy(x_hbm, o_hbm, {in_sems})  # the input semaphores
"""


def test_next_calls_in_sequence():
    _one(_pair(NEXT_SEQUENCE.format(in_sems="in_sems"), "[DMA((2,)), DMA]"), "# the input semaphores", (2,))


def test_next_calls_in_sequence_correct():
    assert found(_pair(NEXT_SEQUENCE.format(in_sems="in_sems.at[1]"), "[DMA((2,)), DMA]")) == []


def test_next_after_an_iterator_went_through_a_helper_is_silent():
    """The helper may have advanced the iterator: the next item is not known."""
    body = """
def _skip(it):
    next(it)


def kernel(x_hbm, o_hbm, *scratch_refs):
    it = iter(scratch_refs)
    _skip(it)
    copy(x_hbm, o_hbm, next(it))
"""
    assert found(_pair(body, "[DMA((2,)), DMA]")) == []



def test_next_after_a_generator_went_through_a_helper_is_silent():
    """Generators (functions and expressions) are iterators too: a helper may advance them."""
    body = """
def _skip(it):
    next(it)


def _gen(sems, sem):
    yield sems
    yield sem


def kernel(x_hbm, o_hbm, sems, sem):
    views = (s for s in (sems, sem))
    _skip(views)
    copy(x_hbm, o_hbm, next(views))
    gen = _gen(sems, sem)
    _skip(gen)
    copy(x_hbm, o_hbm, next(gen))
"""
    assert found(_pair(body, "[DMA((2,)), DMA]")) == []


def test_next_on_a_generator():
    body = """
def _gen(sems, sem):
    yield sem
    yield sems.at[1]


def kernel(x_hbm, o_hbm, sems, sem):
    gen = _gen(sems, sem)
    copy(x_hbm, o_hbm, next(gen))
    copy(x_hbm, o_hbm, {second})  # the second item
"""
    _one(_pair(body.format(second="next(gen)"), "[DMA((2, 3)), DMA]"), "# the second item", (3,))
    assert found(_pair(body.format(second="next(gen).at[0]"), "[DMA((2, 3)), DMA]")) == []

def test_next_in_one_branch_is_silent_after_the_merge():
    body = """
def kernel(x_hbm, o_hbm, *scratch_refs, skip=True):
    it = iter(scratch_refs)
    if skip:
        next(it)
    copy(x_hbm, o_hbm, next(it))


def run(x):
    return pl.pallas_call(functools.partial(kernel, skip=x.shape[0] > 1), out_shape=OUT,
                          scratch_shapes=[DMA((2,)), DMA])(x)
"""
    assert found(HEAD + body) == []


def test_next_advanced_in_a_closure():
    body = """
def kernel(x_hbm, o_hbm, *scratch_refs):
    it = iter(scratch_refs)

    def take():
        return next(it)

    single, pair = take(), take()
    copy(x_hbm, o_hbm, single)
    copy(x_hbm, o_hbm, {pair})  # the pair
"""
    _one(_pair(body.format(pair="pair"), "[DMA, DMA((2,))]"), "# the pair", (2,))
    assert found(_pair(body.format(pair="pair.at[0]"), "[DMA, DMA((2,))]")) == []


def test_zip_of_one_iterator_with_itself_pairs_neighbours_and_is_silent():
    """`zip(it, it)` pairs items 0-1, 2-3, ...: not what zipping two tuples would give."""
    body = """
def kernel(x_hbm, o_hbm, *scratch_refs):
    it = iter(scratch_refs)
    for sems, sem in zip(it, it):
        copy(x_hbm, o_hbm, sem)
        copy(x_hbm, o_hbm, sems.at[0])
    pairs = iter(scratch_refs)
    for sems, sem in map(lambda a, b: (a, b), pairs, pairs):
        copy(x_hbm, o_hbm, sem)
"""
    assert found(_pair(body, "[DMA((2,)), DMA, DMA((2,)), DMA]")) == []


# ---------------------------------------------------------------- zip, enumerate, map

ZIP_ENUMERATE = """
def kernel(x_hbm, o_hbm, sems):
    srcs = (x_hbm, x_hbm)
    for i, (src, sem) in enumerate(zip(srcs, [sems.at[r] for r in range(2)])):
        copy(src, o_hbm, {sem})  # per source
"""


def test_zip_and_enumerate_over_a_comprehension_of_views():
    _one(_pair(ZIP_ENUMERATE.format(sem="sem")), "# per source", (3,))


def test_zip_and_enumerate_over_a_comprehension_of_views_correct():
    assert found(_pair(ZIP_ENUMERATE.format(sem="sem.at[i]"))) == []


MAP_LAMBDA = """
def kernel(x_hbm, o_hbm, sems):
    k_sems, v_sems = map(lambda r: sems.at[r], (K_ROW, V_ROW))
    copy(x_hbm, o_hbm, k_sems.at[0])
    for sem in list(map(lambda r: sems.at[r, 0], range(2))):
        copy(x_hbm, o_hbm, sem)
    copy(x_hbm, o_hbm, {v})  # the value semaphores
"""


def test_map_lambda_over_rows():
    _one(_pair(MAP_LAMBDA.format(v="v_sems")), "# the value semaphores", (3,))


def test_map_lambda_over_rows_correct():
    assert found(_pair(MAP_LAMBDA.format(v="v_sems.at[0]"))) == []


# ---------------------------------------------------------------- replacing fields

REPLACE = """
@dataclasses.dataclass(frozen=True)
class Sems:
    load: typing.Any
    store: typing.Any


def kernel(x_hbm, o_hbm, load_sems, store_sem):
    s = Sems(load_sems.at[0], store_sem)
    s = dataclasses.replace(s, load={load})
    copy(x_hbm, o_hbm, s.store)
    copy(x_hbm, o_hbm, s.load)  # the load
"""


def test_dataclasses_replace():
    _one(_pair(REPLACE.format(load="load_sems"), "[DMA((2,)), DMA]"), "# the load", (2,))


def test_dataclasses_replace_correct():
    assert found(_pair(REPLACE.format(load="load_sems.at[1]"), "[DMA((2,)), DMA]")) == []


NAMEDTUPLE_REPLACE = """
class Sems(typing.NamedTuple):
    load: typing.Any
    store: typing.Any


def kernel(x_hbm, o_hbm, load_sems, store_sem):
    s = Sems(load_sems, store_sem)
    s = s._replace(load={load})
    copy(x_hbm, o_hbm, s.store)
    copy(x_hbm, o_hbm, s.load)  # the load
"""


def test_namedtuple_replace():
    _one(_pair(NAMEDTUPLE_REPLACE.format(load="load_sems.at[pl.ds(0, 2)]"), "[DMA((4,)), DMA]"),
         "# the load", (2,))


def test_namedtuple_replace_correct():
    assert found(_pair(NAMEDTUPLE_REPLACE.format(load="load_sems.at[3]"), "[DMA((4,)), DMA]")) == []



# ---------------------------------------------------------------- pytrees and dict views

TREE_MAP = """
def kernel(x_hbm, o_hbm, sems):
    slots = (sems.at[0], {second})
    jax.tree.map(lambda sem: copy(x_hbm, o_hbm, sem), slots)  # each leaf
"""


def test_tree_map_calls_the_function_on_each_leaf():
    _one(_pair(TREE_MAP.format(second="sems.at[1]"), "[DMA((2, 3))]"), "# each leaf", (3,))
    assert found(_pair(TREE_MAP.format(second="sems.at[1, 0]").replace("sems.at[0]", "sems.at[0, 2]"))) == []


def test_tree_util_tree_map_lines_up_several_trees():
    body = """
def kernel(x_hbm, o_hbm, sems):
    srcs, dsts = {"k": x_hbm, "v": x_hbm}, {"k": o_hbm, "v": o_hbm}
    slots = {"k": sems.at[0, 1], "v": {v}}
    descs = jax.tree_util.tree_map(pltpu.make_async_copy, srcs, dsts, slots)  # each copy
    for desc in descs.values():
        desc.start()
"""
    src = _pair(body.replace("{v}", "sems.at[1]"))
    _one(src, "# each copy", (3,))   # where the DMA is made: no argument there to index
    f = analyze(src)[0]
    assert "the semaphore `jax.tree_util.tree_map(" in f.message and f.fix is None
    assert found(_pair(body.replace("{v}", "sems.at[1, 1]"))) == []


def test_dict_views_in_order():
    body = """
def kernel(x_hbm, o_hbm, sems):
    rows = {"k": sems.at[0], "v": sems.at[1]}
    for name, row in rows.items():
        copy(x_hbm, o_hbm, {row})  # by item
"""
    _one(_pair(body.replace("{row}", "row")), "# by item", (3,))
    assert found(_pair(body.replace("{row}", "row.at[2]"))) == []
    assert found(_pair(body.replace("rows.items()", "zip(rows.keys(), rows.values())").replace("{row}", "row.at[2]"))) == []


# ---------------------------------------------------------------- optional scratch entries

OPTIONAL = """
def kernel(x_hbm, o_hbm, sems):
    if sems is not None:
        copy(x_hbm, o_hbm, {sem})  # the optional copy


def run_optional(x, double):
    scratch = [DMA((2, 3))] if double else [None]
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=scratch)(x)
"""


def test_a_semaphore_array_or_none_is_checked_where_it_is_used():
    """`[DMA((2, 3))] if double else [None]`: JAX traces one configuration; where the
    kernel uses the entry as a semaphore, it is the array."""
    _one(HEAD + OPTIONAL.format(sem="sems.at[1]"), "# the optional copy", (3,))
    assert found(HEAD + OPTIONAL.format(sem="sems.at[1, 2]")) == []


# ---------------------------------------------------------------- lists of descriptors

DESCRIPTOR_LIST = """
def kernel(x_hbm, o_hbm, sems, *, blocked):
    def block_transfers(slot):
        copies = []
        for dst in (0, 1):
            copies.append(pltpu.make_async_copy(x_hbm, o_hbm, sems.at[slot, len(copies)]))
        copies.append(pltpu.make_async_copy(x_hbm, o_hbm, {last}))  # the last block
        return copies

    def transfers(slot):
        if blocked:
            return block_transfers(slot)
        return [pltpu.make_async_copy(x_hbm, o_hbm, {one})]  # the one copy

    for desc in transfers(1):
        desc.start()
        desc.wait()


def run(x, blocked={blocked}):
    kernel_ = functools.partial(kernel, blocked=blocked)
    return pl.pallas_call(kernel_, out_shape=OUT, scratch_shapes=[DMA((2, 3))])(x)
"""


def test_a_list_built_in_an_unrolled_loop_is_the_last_items_list():
    """`copies.append(...)` in a `for` over a tuple, then once more: after the loop the
    list holds every item (the state of the last pass, not a join of the passes)."""
    _one(HEAD + DESCRIPTOR_LIST.format(last="sems", one="sems.at[1, 0]", blocked=True), "# the last block", (2, 3))
    assert found(HEAD + DESCRIPTOR_LIST.format(last="sems.at[1, 2]", one="sems.at[1, 0]", blocked=True)) == []


def test_a_descriptor_built_with_an_array_on_one_path_is_flagged_where_started():
    """`transfers` returns three descriptors on one path, one on the other: the one built
    with the whole array is an error wherever its path starts it (JAX, tracing
    `blocked=False`, raises there)."""
    _one(HEAD + DESCRIPTOR_LIST.format(last="sems.at[1, 2]", one="sems", blocked=False), "# the one copy", (2, 3))


def test_a_loop_that_may_break_still_joins_its_passes():
    """JAX leaves the loop at the first pass, with a single semaphore: the last pass's
    state is not the state after the loop."""
    body = """
def kernel(x_hbm, o_hbm, sems):
    for row in (0, 1):
        picked = sems.at[row, 0]
        if row == 0:
            break
        picked = sems.at[row]
    copy(x_hbm, o_hbm, picked)  # after the loop
"""
    assert found(_pair(body)) == []


# ---------------------------------------------------------------- itertools over views

ITERTOOLS_CASES = {
    # construct: (kernel body with {bad} for the argument under test, broken, correct, shape)
    "chain": ("""
def kernel(x_hbm, o_hbm, sems, one):
    for sem in itertools.chain([sems.at[K_ROW]], (sems.at[r] for r in (V_ROW,))):
        copy(x_hbm, o_hbm, {bad})  # the chained copy
""", "sem", "sem.at[2]", (3,)),
    "chain.from_iterable": ("""
def kernel(x_hbm, o_hbm, sems, one):
    rows = itertools.chain.from_iterable([[sems.at[0]], [sems.at[1]]])
    first, second = rows
    copy(x_hbm, o_hbm, {bad})  # the second row
""", "second", "second.at[0]", (3,)),
    "product": ("""
def kernel(x_hbm, o_hbm, sems, one):
    for r, c in itertools.product((K_ROW, V_ROW), range(3)):
        copy(x_hbm, o_hbm, {bad})  # each element
""", "sems.at[r]", "sems.at[r, c]", (3,)),
    "islice": ("""
def kernel(x_hbm, o_hbm, sems, one):
    (last,) = itertools.islice([one, one, sems.at[1]], 2, None)
    copy(x_hbm, o_hbm, {bad})  # the sliced one
""", "last", "last.at[2]", (3,)),
    "repeat": ("""
def kernel(x_hbm, o_hbm, sems, one):
    a, b = itertools.repeat(sems.at[1], 2)
    copy(x_hbm, o_hbm, {bad})  # a repeated row
""", "b", "b.at[0]", (3,)),
    "pairwise": ("""
def kernel(x_hbm, o_hbm, sems, one):
    for prev, cur in itertools.pairwise([sems.at[0, 0], sems.at[1]]):
        copy(x_hbm, o_hbm, {bad})  # the current one
""", "cur", "cur.at[1]", (3,)),
    "zip_longest": ("""
def kernel(x_hbm, o_hbm, sems, one):
    for k, sem in itertools.zip_longest((0, 1), [sems.at[0]], fillvalue=one):
        copy(x_hbm, o_hbm, {bad})  # row or filler
""", "sem", "one", None),
    "starmap": ("""
def kernel(x_hbm, o_hbm, sems, one):
    descs = list(itertools.starmap(lambda r, c: pltpu.make_async_copy(x_hbm, o_hbm, {bad}), [(0, 1), (1, 2)]))  # the mapped copy
    for d in descs:
        d.start()
        d.wait()
""", "sems.at[r]", "sems.at[r, c]", (3,)),
}


def _itertools_kernel(construct: str, arg: str) -> str:
    return _pair("import itertools\n" + ITERTOOLS_CASES[construct][0].format(bad=arg), "[DMA((2, 3)), DMA]")


def test_itertools_over_views_broken_and_correct():
    """Over tuples of known items each construct gives the items Python would: the row
    passed whole is flagged with its shape (JAX: `(3,)`), the single semaphore is not."""
    for construct, (body, broken, correct, shape) in ITERTOOLS_CASES.items():
        assert found(_itertools_kernel(construct, correct)) == [], construct
        if shape is None:
            continue
        needle = body.split("# ")[1].split("\n")[0]
        src = _itertools_kernel(construct, broken)
        assert found(src) == [(line_of(src, "# " + needle), "PAL001", shape)], construct


def test_itertools_mixing_rows_and_single_semaphores():
    """`chain` of a single semaphore and rows, `zip_longest` whose filler is a single
    semaphore: the loop variable is a row on some passes, one semaphore on others.  Over
    known items the passes are unrolled: the row's pass is flagged (JAX raises there)."""
    body = """
import itertools
def kernel(x_hbm, o_hbm, sems, one):
    for sem in itertools.chain([one], (sems.at[r] for r in (K_ROW, V_ROW))):
        copy(x_hbm, o_hbm, sem)  # the chained copy
"""
    src = _pair(body, "[DMA((2, 3)), DMA]")
    assert found(src) == [(line_of(src, "# the chained copy"), "PAL001", (3,))]
    src = _itertools_kernel("zip_longest", "sem")
    assert found(src) == [(line_of(src, "# row or filler"), "PAL001", (3,))]
