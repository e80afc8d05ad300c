"""Quick fixes as text edits: exact text after applying each fix (findings built by hand)."""

from __future__ import annotations

import ast

import pytest
from pallas_lsp.analysis.findings import (
    Finding,
    FixData,
    Span,
    finding_from_data,
    finding_to_data,
)
from pallas_lsp.analysis.fixes import (
    TextEdit,
    apply_edits,
    auto_fix,
    fix_all_edits,
    fixes_for,
    guard_fix,
    index_fixes,
    indexed_text,
    noqa_fix,
    scalar_decl_fix,
    slice_names,
    split_lines,
    text_at,
)
from pallas_lsp.analysis.suppression import apply_noqa

DOUBLE_BUFFER = """\
def kernel(x_hbm, o_ref, buf, sems):
    for slot in range(2):
        cp = pltpu.make_async_copy(x_hbm.at[slot], buf.at[slot], sems)
        cp.start()
        cp.wait()
"""


def span_of(text: str, needle: str, occurrence: int = -1) -> Span:
    """The span of the n-th occurrence (default: the last) of `needle` (single line) in `text`."""
    if occurrence < 0:
        start = text.rindex(needle)
    else:
        start = -1
        for _ in range(occurrence + 1):
            start = text.index(needle, start + 1)
    line = text.count("\n", 0, start)
    col = start - (text.rfind("\n", 0, start) + 1)
    return Span(line, col, line, col + len(needle))


def make(text, needle, *, code="PAL001", index=("slot",), guard_line=None, guard_indent="",
         occurrence=-1, **fix_kw) -> Finding:
    span = span_of(text, needle, occurrence)
    fix = FixData(
        sem_text=needle,
        index=index,
        guard_line=span.line if guard_line is None else guard_line,
        guard_indent=guard_indent,
        guard_target=fix_kw.pop("guard_target", needle),
        **fix_kw,
    )
    severity = "warning" if code == "PAL003" else "error"
    return Finding(code, severity, "msg", span, (2,), (), fix)


def apply_fix(text, fix):
    return apply_edits(text, fix.edits)


# ---------------------------------------------------------------------------------------
# (a) index


def test_index_fix_uses_the_given_index():
    f = make(DOUBLE_BUFFER, "sems", guard_indent="        ")
    fix = auto_fix(f, split_lines(DOUBLE_BUFFER), unsafe=True)
    assert fix.title == "Index the semaphore: `sems.at[slot]`"
    assert fix.preferred and fix.kind == "quickfix" and fix.code == "PAL001"
    assert apply_fix(DOUBLE_BUFFER, fix) == DOUBLE_BUFFER.replace(
        "buf.at[slot], sems)", "buf.at[slot], sems.at[slot])"
    )


def test_index_fix_appends_missing_indices_to_an_existing_at():
    text = "def k(x, sems):\n    pltpu.async_copy(x.at[i], x.at[i], sems.at[i])\n"
    f = make(text, "sems.at[i]", index=("0",))
    assert apply_fix(text, auto_fix(f, split_lines(text), unsafe=True)) == text.replace(
        "sems.at[i])", "sems.at[i, 0])"
    )


def test_index_fix_chains_after_a_name_holding_a_slice():
    text = (
        "def k(x, buf, sems):\n"
        "    for c in range(4):\n"
        "        rows = pl.ds(c * 8, 8)\n"
        "        pltpu.async_copy(x.at[rows], buf.at[rows], sems.at[rows])\n"
    )
    f = make(text, "sems.at[rows]", index=("0",))
    assert apply_fix(text, auto_fix(f, split_lines(text), unsafe=True)) == text.replace(
        "sems.at[rows])", "sems.at[rows].at[0])"
    )
    # a name not bound to a slice is appended to
    text = text.replace("rows = pl.ds(c * 8, 8)", "rows = c")
    assert apply_fix(text, auto_fix(f, split_lines(text), unsafe=True)) == text.replace(
        "sems.at[rows])", "sems.at[rows, 0])"
    )


def test_slice_names():
    lines = split_lines(
        "rows = pl.ds(0, 8)\n  cols: Any = slice(1, 2)\nx = ds(1, 2)\ny = pl.ds\nz = f(pl.ds(1, 2))\n"
    )
    assert slice_names(lines) == {"rows", "cols", "x"}


def test_index_fix_on_a_two_dimensional_array_adds_both_indices():
    text = "def k(x, sems):\n    pl.semaphore_signal(sems)\n"
    f = make(text, "sems", code="PAL002", index=("0", "0"))
    assert apply_fix(text, auto_fix(f, split_lines(text), unsafe=True)) == text.replace(
        "(sems)", "(sems.at[0, 0])"
    )


@pytest.mark.parametrize(
    "base, index, expected",
    [
        ("sems", ("slot",), "sems.at[slot]"),
        ("sems.at[i]", ("0",), "sems.at[i, 0]"),
        ("sems.at[i, j]", ("k",), "sems.at[i, j, k]"),
        ("sems.at[i,]", ("0",), "sems.at[i, 0]"),
        # a slice / pl.ds / ... keeps its dimension: chain instead of appending
        ("sems.at[0:2]", ("0", "0"), "sems.at[0:2].at[0, 0]"),
        ("sems.at[pl.ds(i, 1)]", ("0",), "sems.at[pl.ds(i, 1)].at[0]"),
        ("sems.at[...]", ("0",), "sems.at[...].at[0]"),
        ("scratch[1]", ("slot",), "scratch[1].at[slot]"),
        ("refs.sems", ("0",), "refs.sems.at[0]"),
        ("pl.select_ref(a, b)", ("0",), "pl.select_ref(a, b).at[0]"),
        ("a if first else b", ("0",), "(a if first else b).at[0]"),
        ("sems.at[idx[0]]", ("0",), "sems.at[idx[0], 0]"),
    ],
)
def test_indexed_text(base, index, expected):
    assert indexed_text(base, index) == expected
    ast.parse(expected, mode="eval")


def test_index_fix_spanning_lines():
    text = (
        "def kernel(a, b, x, y, first):\n"
        "    pltpu.async_copy(x, y, pl.select_ref(\n"
        "        a, b))\n"
    )
    base = "pl.select_ref(\n        a, b)"
    start = text.index("pl.select_ref")
    f = Finding("PAL001", "error", "msg", Span(1, start - text.index("    pltpu"), 2, 13), (2,),
                (), FixData(base, ("0",), 1, "    ", base))
    assert text_at(split_lines(text), f.span) == base
    assert apply_fix(text, auto_fix(f, split_lines(text), unsafe=True)) == text.replace(
        "b))\n", "b).at[0])\n"
    )


def test_index_fix_refuses_stale_data():
    f = make(DOUBLE_BUFFER, "sems")
    changed = DOUBLE_BUFFER.replace("sems)", "sem2)")
    assert auto_fix(f, split_lines(changed), unsafe=True) is None
    assert auto_fix(f, split_lines(""), unsafe=True) is None


def test_no_index_fix_without_fix_data_or_index():
    f = make(DOUBLE_BUFFER, "sems")
    bare = Finding(f.code, f.severity, f.message, f.span)
    assert auto_fix(bare, split_lines(DOUBLE_BUFFER), unsafe=True) is None
    no_index = make(DOUBLE_BUFFER, "sems", index=())
    assert auto_fix(no_index, split_lines(DOUBLE_BUFFER), unsafe=True) is None
    # Without fix data only the noqa fix remains.
    assert [x.title for x in fixes_for(bare, split_lines(DOUBLE_BUFFER))] == [
        "Suppress PAL001 on this line (# noqa)"
    ]


def test_non_ascii_columns_are_code_points():
    text = 'def k(x, y, sems):\n    pltpu.async_copy(x["é→"], y, sems)  # größe: «ß»\n'
    f = make(text, "sems")
    assert f.span.col == 33  # code points, not UTF-8 bytes or UTF-16 units
    out = apply_fix(text, auto_fix(f, split_lines(text), unsafe=True))
    assert out == text.replace("y, sems)  #", "y, sems.at[slot])  #")
    out = apply_fix(text, noqa_fix(f, split_lines(text)))
    assert out == text.replace("«ß»\n", "«ß»  # noqa: PAL001\n")


def test_crlf_line_endings_are_kept():
    text = DOUBLE_BUFFER.replace("\n", "\r\n")
    f = make(text, "sems", guard_indent="        ")
    out = apply_fix(text, auto_fix(f, split_lines(text), unsafe=True))
    assert out == text.replace("buf.at[slot], sems)", "buf.at[slot], sems.at[slot])")
    guard = apply_fix(text, guard_fix(f, split_lines(text)))
    assert "\r\n        assert sems.shape == ()" in guard
    assert guard.count("\r\n") == text.count("\r\n")  # the guard's "\n" is the only bare one


# ---------------------------------------------------------------------------------------
# (b) assertion guard


def test_guard_fix_inserts_an_assert_above_the_statement():
    f = make(DOUBLE_BUFFER, "sems", guard_indent="        ")
    fix = guard_fix(f, split_lines(DOUBLE_BUFFER))
    out = apply_fix(DOUBLE_BUFFER, fix)
    assert out == (
        "def kernel(x_hbm, o_ref, buf, sems):\n"
        "    for slot in range(2):\n"
        '        assert sems.shape == (), f"sems must be one semaphore, got shape {sems.shape}"\n'
        "        cp = pltpu.make_async_copy(x_hbm.at[slot], buf.at[slot], sems)\n"
        "        cp.start()\n"
        "        cp.wait()\n"
    )
    assert not fix.preferred
    ast.parse(out)


def test_guard_fix_above_a_multiline_statement():
    text = (
        "def kernel(x, y, sems):\n"
        "    pltpu.make_async_copy(\n"
        "        x, y,\n"
        "        sems,\n"
        "    ).start()\n"
    )
    f = make(text, "sems", occurrence=1, guard_line=1, guard_indent="    ")
    out = apply_fix(text, guard_fix(f, split_lines(text)))
    assert out.splitlines()[1] == (
        '    assert sems.shape == (), f"sems must be one semaphore, got shape {sems.shape}"'
    )
    assert out.splitlines()[2:] == text.splitlines()[1:]
    ast.parse(out)


@pytest.mark.parametrize(
    "text",
    [
        "def k(sems, first):\n    if first:\n        pass\n    else: pl.semaphore_signal(sems)\n",
        "def k(sems):\n    try:\n        pass\n    finally: pl.semaphore_signal(sems)\n",
        "def k(sems):\n    x = 1 + \\\n    pl.semaphore_signal(sems)\n",
    ],
)
def test_no_guard_where_a_line_cannot_go(text):
    lines = split_lines(text)
    f = make(text, "sems", code="PAL002", guard_line=len(lines) - 1, guard_indent="    ")
    assert guard_fix(f, lines) is None


@pytest.mark.parametrize(
    "target, expected",
    [
        ('scratch["sem"]',
         """assert scratch["sem"].shape == (), f'scratch["sem"] must be one semaphore, got shape {scratch["sem"].shape}'"""),
        ("refs[{0: 1}[0]]",
         """assert refs[{0: 1}[0]].shape == (), f"refs[{{0: 1}}[0]] must be one semaphore, got shape {refs[{0: 1}[0]].shape}\""""),
        ("""d["a"]['b']""",
         """assert d["a"]['b'].shape == (), 'd["a"][\\'b\\'] must be one semaphore (shape ())'"""),
    ],
)
def test_guard_text_stays_valid_python(target, expected):
    text = f"def kernel(d, refs, scratch):\n    pl.semaphore_signal({target})\n"
    f = make(text, target, code="PAL002", guard_indent="    ")
    out = apply_fix(text, guard_fix(f, split_lines(text)))
    assert out.splitlines()[1] == "    " + expected
    ast.parse(out)


# ---------------------------------------------------------------------------------------
# (c) single semaphore declaration


def test_scalar_decl_fix_replaces_the_declaration():
    text = (
        "def kernel(x_hbm, buf, sem):\n"
        "    pltpu.async_copy(x_hbm, buf, sem)\n"
        "\n"
        "out = pl.pallas_call(\n"
        "    kernel,\n"
        "    scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA((1,))],\n"
        ")(x)\n"
    )
    decl = span_of(text, "pltpu.SemaphoreType.DMA((1,))")
    f = make(text, "sem)", index=("0",), scalar_decl=decl,
             scalar_decl_text="pltpu.SemaphoreType.DMA")
    fix = scalar_decl_fix(f, split_lines(text))
    assert fix.title == "Declare a single semaphore instead of a (1,) array"
    assert apply_fix(text, fix) == text.replace(
        "pltpu.SemaphoreType.DMA((1,))", "pltpu.SemaphoreType.DMA"
    )


def test_no_scalar_decl_fix_without_a_declaration():
    f = make(DOUBLE_BUFFER, "sems")
    assert scalar_decl_fix(f, split_lines(DOUBLE_BUFFER)) is None


# ---------------------------------------------------------------------------------------
# (d) noqa


@pytest.mark.parametrize(
    "line, expected",
    [
        ("    pl.semaphore_signal(sems)\n", "    pl.semaphore_signal(sems)  # noqa: PAL002\n"),
        ("    pl.semaphore_signal(sems)   \n", "    pl.semaphore_signal(sems)  # noqa: PAL002\n"),
        ("    pl.semaphore_signal(sems)  # wake the peer\n",
         "    pl.semaphore_signal(sems)  # wake the peer  # noqa: PAL002\n"),
        ("    pl.semaphore_signal(sems)  # noqa: PAL003\n",
         "    pl.semaphore_signal(sems)  # noqa: PAL003, PAL002\n"),
        ("    pl.semaphore_signal(sems)  # noqa:PAL001 (slow path)\n",
         "    pl.semaphore_signal(sems)  # noqa:PAL001, PAL002 (slow path)\n"),
        ("    pl.semaphore_signal(sems)", "    pl.semaphore_signal(sems)  # noqa: PAL002"),
    ],
)
def test_noqa_fix(line, expected):
    text = "def kernel(sems):\n" + line
    f = make(text, "sems", code="PAL002", occurrence=1)
    out = apply_fix(text, noqa_fix(f, split_lines(text)))
    assert out == "def kernel(sems):\n" + expected
    # and the result really suppresses the finding
    assert apply_noqa([f], split_lines(out)) == []


def test_noqa_fix_not_offered_when_already_suppressed_or_after_a_continuation():
    text = "def kernel(sems):\n    pl.semaphore_signal(sems)  # noqa\n"
    f = make(text, "sems", code="PAL002", occurrence=1)
    assert noqa_fix(f, split_lines(text)) is None
    text = "def kernel(sems):\n    x = pl.semaphore_signal(sems) + \\\n        1\n"
    f = make(text, "sems", code="PAL002", occurrence=1)
    assert noqa_fix(f, split_lines(text)) is None


# ---------------------------------------------------------------------------------------
# all fixes, fix-all, round trip


def test_fixes_for_order_and_preferred():
    decl_text = DOUBLE_BUFFER + "S = [pltpu.SemaphoreType.DMA((1,))]\n"
    f = make(decl_text, "sems", guard_indent="        ",
             scalar_decl=span_of(decl_text, "pltpu.SemaphoreType.DMA((1,))"),
             scalar_decl_text="pltpu.SemaphoreType.DMA")
    fixes = fixes_for(f, split_lines(decl_text))
    assert [x.title for x in fixes] == [
        "Index the semaphore: `sems.at[slot]`",
        "Assert that `sems` is a single semaphore",
        "Declare a single semaphore instead of a (1,) array",
        "Suppress PAL001 on this line (# noqa)",
    ]
    assert [x.preferred for x in fixes] == [True, False, False, False]


def test_an_uncertain_index_is_offered_as_choices_none_preferred_nor_safe():
    f = make(DOUBLE_BUFFER, "sems", guard_indent="        ", safe=False,
             alternatives=(("1 - slot",), ("0",)))
    fixes = fixes_for(f, split_lines(DOUBLE_BUFFER))
    assert [x.title for x in fixes] == [
        "Index the semaphore (choice): `sems.at[slot]`",
        "Index the semaphore (choice): `sems.at[1 - slot]`",
        "Index the semaphore (choice): `sems.at[0]`",
        "Assert that `sems` is a single semaphore",
        "Suppress PAL001 on this line (# noqa)",
    ]
    assert not any(x.preferred for x in fixes)
    assert [x.safe for x in fixes[:3]] == [False, False, False]
    assert auto_fix(f, split_lines(DOUBLE_BUFFER), unsafe=True) == fixes[0]
    assert apply_fix(DOUBLE_BUFFER, fixes[1]) == DOUBLE_BUFFER.replace(
        "buf.at[slot], sems)", "buf.at[slot], sems.at[1 - slot])")


def test_a_certain_index_is_one_safe_preferred_fix():
    f = make(DOUBLE_BUFFER, "sems", guard_indent="        ")
    (fix,) = index_fixes(f, split_lines(DOUBLE_BUFFER))
    assert (fix.safe, fix.preferred, fix.title) == (True, True, "Index the semaphore: `sems.at[slot]`")


def test_fix_all_applies_only_safe_index_fixes_unless_unsafe():
    text = "def k(x, buf, sems, done):\n    pltpu.async_copy(x, buf, sems)\n    pl.semaphore_signal(done)\n"
    safe = make(text, "sems", index=("0",))
    choice = make(text, "done", code="PAL002", index=("i",), safe=False, alternatives=(("0",),))
    lines = split_lines(text)
    assert apply_edits(text, fix_all_edits([safe, choice], lines)) == text.replace(
        "buf, sems)", "buf, sems.at[0])")
    assert apply_edits(text, fix_all_edits([safe, choice], lines, unsafe=True)) == text.replace(
        "buf, sems)", "buf, sems.at[0])").replace("(done)", "(done.at[i])")


def test_fixes_survive_the_json_round_trip():
    lines = split_lines(DOUBLE_BUFFER)
    for f in (make(DOUBLE_BUFFER, "sems", guard_indent="        "),
              make(DOUBLE_BUFFER, "sems", safe=False, alternatives=(("1 - slot",), ("0",)))):
        again = finding_from_data(finding_to_data(f))
        assert again == f and fixes_for(again, lines) == fixes_for(f, lines)


def test_fix_all_edits_fixes_every_finding_once():
    text = (
        "def kernel(x, buf, sems, done):\n"
        "    pltpu.async_copy(x, buf, sems)\n"
        "    pl.semaphore_signal(done)\n"
        "    pl.semaphore_wait(done)\n"
        "    pltpu.make_async_copy(x, buf, sems).wait()\n"
    )
    a = make(text, "sems", index=("0",), occurrence=1)
    a_again = make(text, "sems", code="PAL003", index=("1",), occurrence=1)  # same span
    b = make(text, "done", code="PAL002", index=("0",), occurrence=1)
    c = make(text, "done", code="PAL002", index=("0",), occurrence=2)
    d = make(text, "sems", code="PAL003", index=("0",), occurrence=2)
    no_fix = Finding("PAL002", "error", "msg", span_of(text, "x, buf", 1))
    edits = fix_all_edits([d, c, a, a_again, b, no_fix], split_lines(text))
    assert [e.span.line for e in edits] == [1, 2, 3, 4]
    assert apply_edits(text, edits) == (
        "def kernel(x, buf, sems, done):\n"
        "    pltpu.async_copy(x, buf, sems.at[0])\n"
        "    pl.semaphore_signal(done.at[0])\n"
        "    pl.semaphore_wait(done.at[0])\n"
        "    pltpu.make_async_copy(x, buf, sems.at[0]).wait()\n"
    )


def test_fix_all_drops_overlapping_edits():
    text = "pltpu.async_copy(x, y, refs[sems])\n"
    outer = make(text, "refs[sems]", index=("0",))
    inner = make(text, "sems", index=("0",))
    edits = fix_all_edits([inner, outer], split_lines(text))
    assert len(edits) == 1
    assert apply_edits(text, edits) == "pltpu.async_copy(x, y, refs[sems].at[0])\n"


# ---------------------------------------------------------------------------------------
# apply_edits / split_lines


def test_apply_edits_basics():
    text = "abc\ndef\n"
    assert apply_edits(text, []) == text
    assert apply_edits(text, [TextEdit(Span(1, 1, 1, 2), "X")]) == "abc\ndXf\n"
    # multi-line replacement
    assert apply_edits(text, [TextEdit(Span(0, 2, 1, 1), "-")]) == "ab-ef\n"
    # a column past the line's end means its end; a line past the text means the end
    assert apply_edits(text, [TextEdit(Span(0, 99, 0, 99), "!")]) == "abc!\ndef\n"
    assert apply_edits(text, [TextEdit(Span(7, 0, 7, 0), "end")]) == "abc\ndef\nend"
    # insertions at one position keep their order; positions refer to the original text
    assert apply_edits(text, [TextEdit(Span(1, 0, 1, 0), "1"), TextEdit(Span(1, 0, 1, 0), "2"),
                              TextEdit(Span(0, 0, 0, 3), "xyz")]) == "xyz\n12def\n"


@pytest.mark.parametrize(
    "edits",
    [
        [TextEdit(Span(0, 0, 0, 2), "a"), TextEdit(Span(0, 1, 0, 3), "b")],
        [TextEdit(Span(0, 2, 0, 1), "a")],
        [TextEdit(Span(-1, 0, 0, 0), "a")],
    ],
)
def test_apply_edits_rejects_bad_edits(edits):
    with pytest.raises(ValueError):
        apply_edits("abc\n", edits)


def test_split_lines_is_lsp_style():
    assert split_lines("a\nb\r\nc\rd") == ["a\n", "b\r\n", "c\r", "d"]
    assert split_lines("a\x0cb\n") == ["a\x0cb\n"]  # form feed is not a line break
    assert split_lines("") == []
    assert split_lines("x\n") == ["x\n"]


WRITEBACK = '''\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def writeback_kernel(new_ref, cache_hbm, cache_out, buf, sem):
    buf[...] = new_ref[...] * 2.0
    copy = pltpu.make_async_copy(buf, cache_out.at[1], sem)
    copy.start()
    pl.semaphore_wait(sem, 1)


def writeback(new, cache):
    return pl.pallas_call(
        writeback_kernel,
        out_shape=jax.ShapeDtypeStruct(cache.shape, cache.dtype),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM), pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), {decl}],
        input_output_aliases={{1: 0}},
    )(new, cache)
'''


def _choices(text: str, code: str) -> list:
    """The fixes offered for the first `code` finding, `# noqa` aside."""
    from pallas_lsp.analysis.engine import analyze_source

    found = [f for f in analyze_source(text) if f.code == code]
    return [f for f in fixes_for(found[0], split_lines(text)) if not f.title.startswith("Suppress")]


def test_a_dma_semaphore_a_copy_signals_is_waited_by_the_descriptor_not_redeclared():
    # Redeclaring `sem` REGULAR would pass the lowering, but the copy would then signal a
    # REGULAR semaphore (PAL302 on its start): the choice is the descriptor's wait.
    text = WRITEBACK.format(decl="pltpu.SemaphoreType.DMA")
    (choice,) = _choices(text, "PAL301")
    assert choice.title == "Wait with the copy's descriptor: `copy.wait()`" and not choice.safe
    from pallas_lsp.analysis.engine import analyze_source

    (finding,) = [f for f in analyze_source(text) if f.code == "PAL301"]
    assert finding.message.endswith("a copy here signals this one, so wait with that copy's descriptor.")
    fixed = apply_edits(text, choice.edits)
    assert "    copy.start()\n    copy.wait()\n" in fixed
    from pallas_lsp.analysis.engine import analyze_source

    assert analyze_source(fixed) == []


def test_a_dma_semaphore_only_signalled_and_waited_by_hand_is_redeclared_regular():
    text = WRITEBACK.format(decl="pltpu.SemaphoreType.DMA").replace(
        "    copy.start()\n", "    pl.semaphore_signal(sem, 1)\n")
    (choice,) = _choices(text, "PAL301")
    assert "REGULAR" in choice.title
    from pallas_lsp.analysis.engine import analyze_source

    assert analyze_source(apply_edits(text, choice.edits)) == []   # the signal's finding goes too
