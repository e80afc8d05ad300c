"""`ModuleAnalyzer.analyze` after a sequence of edits must equal a fresh `analyze_source`
of the same text (findings compared whole: code, message, spans, related, fix data)."""

import random
import re
from pathlib import Path

import pytest
from pallas_lsp.analysis.engine import (
    STAR_IMPORT,
    Cancelled,
    ModuleAnalyzer,
    analyze_source,
    block_names,
    creator_closure,
)

from .helpers import dedent

MODULE = dedent('''
    """A double-buffered copy kernel with a helper and a closure."""
    import functools

    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu

    NSLOTS = 2
    SEMS = pltpu.SemaphoreType.DMA((NSLOTS,))


    def start_copy(src, dst, sem):
        cp = pltpu.make_async_copy(src, dst, sem)
        cp.start()
        return cp


    def kernel(x_hbm, o_ref, buf, sems, flags):
        slot = pl.program_id(0) % NSLOTS

        @pl.when(slot == 0)
        def _():
            pl.semaphore_signal(flags)

        cp = start_copy(x_hbm, buf.at[slot], sems)
        cp.wait()
        o_ref[...] = buf[slot]


    def run(x):
        return pl.pallas_call(
            kernel,
            out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
            grid=(4,),
            scratch_shapes=[
                pltpu.VMEM((NSLOTS, 8, 128), jnp.float32),
                SEMS,
                pltpu.SemaphoreType.REGULAR((3,)),
            ],
        )(x)
''')


def check_sequence(texts):
    """Feed every text to one analyzer; each result must equal a fresh analysis, and the
    names it keeps as possible creators (updated incrementally) must equal a fresh
    computation of them."""
    analyzer = ModuleAnalyzer()
    for i, text in enumerate(texts):
        got = analyzer.analyze(text)
        want = analyze_source(text)
        assert got == want, f"edit {i} differs:\n{text}"
        blocks = analyzer._block_list.blocks
        assert analyzer._creators == creator_closure(blocks, analyzer.package, analyzer._broad)
        assert analyzer._broad == any(STAR_IMPORT in block_names(b) for b in blocks)
    return got


def test_baseline_has_findings():
    fs = analyze_source(MODULE)
    assert [(f.span.line + 1, f.code) for f in fs] == [(24, "PAL002"), (26, "PAL001")]


def test_insert_and_delete_lines_above_a_finding():
    lines = MODULE.split("\n")
    inserted = "\n".join(lines[:12] + ["", "# a comment", "X = 1", ""] + lines[12:])
    final = check_sequence([MODULE, inserted, MODULE])
    assert [(f.span.line + 1, f.code) for f in final] == [(24, "PAL002"), (26, "PAL001")]
    moved = ModuleAnalyzer()
    moved.analyze(MODULE)
    assert [f.span.line + 1 for f in moved.analyze(inserted)] == [28, 30]
    assert [r.span.line + 1 for r in moved.analyze(inserted)[1].related] == [10, 18]


def test_edit_the_declaration_block():
    fixed = MODULE.replace("SEMS = pltpu.SemaphoreType.DMA((NSLOTS,))", "SEMS = pltpu.SemaphoreType.DMA")
    final = check_sequence([MODULE, fixed, MODULE, fixed])
    assert [f.code for f in final] == ["PAL002"]


def test_edit_a_module_constant_used_by_the_declaration():
    one = MODULE.replace("NSLOTS = 2", "NSLOTS = 3")
    final = check_sequence([MODULE, one])
    assert [f.shape for f in final] == [(3,), (3,)]


def test_edit_the_kernel_block():
    fixed = MODULE.replace("buf.at[slot], sems)", "buf.at[slot], sems.at[slot])")
    fixed2 = fixed.replace("signal(flags)", "signal(flags.at[0])")
    final = check_sequence([MODULE, fixed, fixed2, fixed, MODULE])
    assert [f.code for f in final] == ["PAL002", "PAL001"]
    # Fixed shapes: now the counts are judged, and the flag signalled at steps 0 and 2 is never waited.
    assert [(f.code, f.severity) for f in check_sequence([MODULE, fixed2])] == [("PAL304", "error")]


def test_edit_the_helper_block():
    indexed = MODULE.replace("make_async_copy(src, dst, sem)", "make_async_copy(src, dst, sem.at[0])")
    final = check_sequence([MODULE, indexed])
    assert [f.code for f in final] == ["PAL002"]


def test_break_then_fix_syntax():
    broken = MODULE.replace("cp = start_copy(x_hbm, buf.at[slot], sems)", "cp = start_copy(x_hbm, buf.at[slot], sems")
    half = MODULE.replace("def start_copy(src, dst, sem):", "def start_copy(src, dst, sem")
    final = check_sequence([MODULE, broken, half, MODULE])
    assert [f.code for f in final] == ["PAL002", "PAL001"]


def test_rename_and_shadow_a_helper():
    shadow = MODULE.replace("\n\ndef run(x):", "\n\ndef start_copy(src, dst, sem):\n    return None\n\n\ndef run(x):")
    final = check_sequence([MODULE, shadow, MODULE])
    assert [f.code for f in final] == ["PAL002", "PAL001"]


def test_typing_a_line_character_by_character():
    line = "    pltpu.async_copy(x_hbm, buf, sems).wait()\n"
    at = MODULE.index("    o_ref[...] = buf[slot]")
    texts = [MODULE[:at] + line[:k] + MODULE[at:] for k in range(len(line) + 1)]
    final = check_sequence(texts)
    assert [f.code for f in final] == ["PAL002", "PAL001", "PAL001"]


def test_decorator_added_and_removed():
    deco = MODULE.replace("\ndef kernel(", "\n@functools.partial(jax.named_call, name='k')\ndef kernel(")
    check_sequence([MODULE, deco, MODULE])


def test_docstring_opened_and_closed_across_blocks():
    opened = MODULE.replace("NSLOTS = 2\n", 'NSLOTS = 2\n"""\n')
    closed = opened.replace("\n\ndef run(x):", '\n"""\n\ndef run(x):')
    check_sequence([MODULE, opened, closed, opened, MODULE])


EDITS = [
    lambda ls, i: ls[:i] + [""] + ls[i:],                      # insert a blank line
    lambda ls, i: ls[:i] + ls[i + 1:],                         # delete a line
    lambda ls, i: ls[:i] + [ls[i]] + ls[i:],                   # duplicate a line
    lambda ls, i: ls[:i] + [ls[i][:-1]] + ls[i + 1:],          # drop the last character
    lambda ls, i: ls[:i] + ["    " + ls[i]] + ls[i + 1:],      # indent
    lambda ls, i: ls[:i] + [ls[i].replace("sems", "sems.at[0]")] + ls[i + 1:],
    lambda ls, i: ls[:i] + [ls[i].replace("DMA", "DMA((2,))")] + ls[i + 1:],
]


@pytest.mark.parametrize("seed", range(6))
def test_random_edit_sequences(seed):
    rng = random.Random(seed)
    lines = MODULE.split("\n")
    texts = [MODULE]
    for _ in range(25):
        i = rng.randrange(len(lines))
        lines = rng.choice(EDITS)(lines, i)
        texts.append("\n".join(lines))
        if rng.random() < 0.2:
            lines = MODULE.split("\n")
            texts.append(MODULE)
    check_sequence(texts)


CORPUS = sorted(
    p for p in (Path(__file__).resolve().parents[1] / "corpus").glob("*.py"))
AT_INDEX = re.compile(r"\.at\[[^\[\]]*\]")


def corpus_edit(lines, rng):
    """One random edit of the kinds people make while typing (or an index removed)."""
    i = rng.randrange(len(lines))
    kind = rng.randrange(7)
    if kind == 0:
        return lines[:i] + [""] + lines[i:]
    if kind == 1:
        return lines[:i] + lines[i + 1:]
    if kind == 2:
        return lines[:i] + [lines[i]] + lines[i:]
    if kind == 3:
        return lines[:i] + [lines[i][:-1]] + lines[i + 1:]
    if kind == 4:
        hits = [(j, m) for j, text in enumerate(lines) for m in AT_INDEX.finditer(text)]
        if hits:
            j, m = rng.choice(hits)
            return lines[:j] + [lines[j][:m.start()] + lines[j][m.end():]] + lines[j + 1:]
        return lines
    if kind == 5:
        return lines[:i] + ['"""'] + lines[i:]
    return lines[:i] + ["x = ("] + lines[i:]


def test_corpus_modules_under_random_edits():
    assert len(CORPUS) >= 30
    for path in CORPUS:
        rng = random.Random(path.name)
        original = path.read_text(encoding="utf-8").split("\n")
        lines = list(original)
        texts = []
        for _ in range(8):
            lines = corpus_edit(lines, rng)
            texts.append("\n".join(lines))
            if rng.random() < 0.15:
                lines = list(original)
        check_sequence(texts)


def test_noqa_added_and_removed():
    line = "    cp = start_copy(x_hbm, buf.at[slot], sems)"
    with_noqa = MODULE.replace(line, line + "  # noqa: PAL001")
    final = check_sequence([MODULE, with_noqa, MODULE, with_noqa])
    assert [f.code for f in final] == ["PAL002"]
    assert [f.code for f in check_sequence([with_noqa, MODULE])] == ["PAL002", "PAL001"]


def test_switching_between_unrelated_documents():
    other = dedent('''
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        def kernel(x_hbm, o_ref, flags):
            pl.semaphore_wait(flags)

        def run(x):
            return pl.pallas_call(kernel, out_shape=x,
                                  scratch_shapes=[pltpu.SemaphoreType.REGULAR((4,))])(x)
    ''')
    final = check_sequence([MODULE, other, "", MODULE, other])
    assert [(f.span.line + 1, f.code, f.shape) for f in final] == [(5, "PAL002", (4,))]


class StopAfter:
    """A `cancelled` callback that says stop after `n` questions (one per entry run)."""

    def __init__(self, n):
        self.n = n
        self.asked = 0

    def __call__(self):
        self.asked += 1
        return self.asked > self.n


@pytest.mark.parametrize("seed", range(4))
def test_cancelled_runs_leave_a_consistent_analyzer(seed):
    """Runs cut short at random points (then more edits) end like a fresh analysis."""
    rng = random.Random(seed)
    analyzer = ModuleAnalyzer()
    for path in CORPUS[seed::4]:
        lines = path.read_text(encoding="utf-8").split("\n")
        for _ in range(6):
            lines = corpus_edit(lines, rng)
            text = "\n".join(lines)
            stop = StopAfter(rng.randrange(4))
            try:
                analyzer.analyze(text, stop)
            except Cancelled:
                assert stop.asked == stop.n + 1
        final = "\n".join(lines)
        assert analyzer.analyze(final) == analyze_source(final), path.name


def test_a_cancelled_run_keeps_what_it_finished():
    """The run after a cancelled one only runs the entries the first did not finish."""
    analyzer = ModuleAnalyzer()
    with pytest.raises(Cancelled):
        analyzer.analyze(MODULE, StopAfter(2))
    analyzer.analyze(MODULE)
    fresh = ModuleAnalyzer()
    fresh.analyze(MODULE)
    assert 0 < analyzer.stats["entries_run"] < fresh.stats["entries_run"]
    assert analyzer.analyze(MODULE) == analyze_source(MODULE)


LONG_ENTRY = dedent('''
    import functools
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu


    def kernel(x_hbm, o_ref, buf, sems):
        for step in range(8):
            for part in range(8):
                copy = pltpu.make_async_copy(x_hbm.at[step], buf.at[part], sems)
                copy.start()
                copy.wait()


    def run(x):
        return pl.pallas_call(
            kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
            in_specs=[pl.BlockSpec(memory_space=pltpu.ANY)],
            scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
        )(x)
''')


def test_a_long_entry_is_cancelled_inside_and_runs_again_whole():
    """Cancellation is asked every few thousand steps inside an entry too: a run stops
    there (nothing of the entry is kept) and the next run gives the fresh findings."""
    analyzer = ModuleAnalyzer()
    stop = StopAfter(1)
    with pytest.raises(Cancelled):
        analyzer.analyze(LONG_ENTRY, stop)
    assert stop.asked == 2 and analyzer.stats["entries_run"] == 0
    expected = analyze_source(LONG_ENTRY)
    assert [f.code for f in expected] == ["PAL001"]
    assert analyzer.analyze(LONG_ENTRY) == expected


def test_cancel_is_not_asked_when_nothing_needs_running():
    analyzer = ModuleAnalyzer()
    analyzer.analyze(MODULE)
    stop = StopAfter(0)
    assert analyzer.analyze(MODULE, stop) == analyze_source(MODULE)
    assert stop.asked == 0


def test_a_change_seen_only_by_a_cancelled_run_still_invalidates():
    """The declaration changes in a run cancelled before any entry; the next run (after
    an unrelated edit) must still drop the findings that depended on it."""
    scalar = MODULE.replace("SEMS = pltpu.SemaphoreType.DMA((NSLOTS,))", "SEMS = pltpu.SemaphoreType.DMA(())")
    later = scalar.replace("NSLOTS = 2\n", "NSLOTS = 2\nUNRELATED = 1\n")
    analyzer = ModuleAnalyzer()
    assert [f.code for f in analyzer.analyze(MODULE)] == ["PAL002", "PAL001"]
    with pytest.raises(Cancelled):
        analyzer.analyze(scalar, StopAfter(0))
    got = analyzer.analyze(later)
    assert got == analyze_source(later)
    assert [f.code for f in got] == ["PAL002"]


ALIASED = dedent('''
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu

    ST = None
    scoped = None


    def kernel(x_hbm, o_ref):
        def body(buf, sems):
            pltpu.make_async_copy(x_hbm, buf, sems).start()

        scoped(body, pltpu.VMEM((8, 128), jnp.float32), ST.DMA((2,)))
''')


def test_a_function_becomes_an_entry_when_a_name_it_uses_becomes_an_alias():
    """`kernel` mentions no semaphore API itself, only `ST` and `scoped`: it is analysed
    on its own only while one of them is bound to such an API, which an edit elsewhere
    (not in `kernel`) changes, both ways."""
    aliased = ALIASED.replace("ST = None", "ST = pltpu.SemaphoreType").replace(
        "scoped = None", "scoped = pl.run_scoped")
    final = check_sequence([ALIASED, aliased, ALIASED, aliased])
    assert [(f.code, f.span.line + 1) for f in final] == [("PAL001", 11)]
    assert check_sequence([aliased, ALIASED]) == []


def test_creators_kept_alive_only_by_each_other_are_dropped():
    """`p` made semaphores and `q` calls it; once `p` calls `q` instead, neither makes
    any: the names must leave the set of possible creators (checked in check_sequence)."""
    before = dedent('''
        from jax.experimental.pallas import tpu as pltpu


        def p():
            return pltpu.SemaphoreType.DMA((2,))


        def q():
            return p()
    ''')
    check_sequence([before, before.replace("return pltpu.SemaphoreType.DMA((2,))", "return q()"), before])


def test_a_function_that_leaves_the_creator_closure_drops_what_its_run_showed():
    """An import from outside JAX (typed by mistake) brings `Precision`, and `body` that
    names it, into the creator closure: `body` runs as an entry of its own, with the values
    of its run. The import typed back leaves `body` to its callers again (its run read
    nothing the import binds: the name is an annotation), and its values go with it, as in
    a fresh analysis."""
    text = dedent('''
        import jax.numpy as jnp
        from jax.experimental import pallas as pl
        from jax import lax as ops

        Precision = ops.Precision


        def body(n: Precision):
            return pl.program_id(0) + jnp.int32(n)
    ''')
    analyzer = ModuleAnalyzer()
    for version in (text, text.replace("from jax import", "from jaxx import"), text):
        analyzer.analyze(version)
        fresh = ModuleAnalyzer()
        fresh.analyze(version)
        assert analyzer.value_notes() == fresh.value_notes(), version
    assert analyzer.value_notes() == []


def test_a_kernel_whose_body_does_not_parse_keeps_its_parameters_across_edits():
    """A def whose body does not parse is a function of unknown body with its header's
    parameters, whether an earlier run already tried to parse it or not: an edit of the
    wrapper that calls it gives what a fresh analysis gives."""
    broken = MODULE.replace("o_ref[...] = buf[slot]", "o_ref[...] = buf[slot")
    edited = broken.replace("grid=(4,)", "grid=(8,)")
    analyzer = ModuleAnalyzer()
    for text in (broken, edited):
        fresh = ModuleAnalyzer()
        assert analyzer.analyze(text) == fresh.analyze(text)
        assert analyzer.parameter_notes() == fresh.parameter_notes()
    assert [n.name for n in analyzer.parameter_notes()] == ["x_hbm", "o_ref", "buf", "sems", "flags"]
