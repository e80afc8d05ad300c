"""Calls of other modules' functions remembered across the runs of a document
(`interp.summaries`): after an edit the analysis takes them from the table, and says
exactly what a fresh analysis of the same text says."""

import json

import pytest
from pallas_lsp.analysis import engine
from pallas_lsp.analysis.engine import ModuleAnalyzer
from pallas_lsp.analysis.interp import calls
from pallas_lsp.analysis.interp.summaries import NOT_REMEMBERED, Summaries
from pallas_lsp.analysis.workspace import Workspace

from .helpers import dedent

HELPERS = dedent('''
    import dataclasses

    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu


    @dataclasses.dataclass(frozen=True)
    class Tiling:
        rows: int
        cols: int


    class Counter:
        def __init__(self):
            self.n = 0


    def tiling(rows, cols):
        return Tiling(rows, cols)


    def scaled(x_ref, scale):
        acc = x_ref[...].astype(jnp.float32)
        for _ in range(3):
            acc = acc * scale
        return acc


    def step_index(n):
        return pl.program_id(0) % n


    def far_axis():
        return pl.program_id(2)


    def bump(counter):
        counter.n = counter.n + 1
        return counter.n


    def copy_in(src, dst, sem):
        pltpu.make_async_copy(src, dst, sem).start()
''')

KERNEL = dedent('''
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu

    from .helpers import Counter, bump, copy_in, far_axis, scaled, step_index, tiling


    def kernel(x_hbm, x_ref, o_ref, buf, sems):
        t = tiling(8, 128)
        head = x_ref[pl.ds(0, t.rows), :]
        t.rows = 16   # the object is this run's own: the next run's `tiling(8, 128)` is 8 rows
        slot = step_index(2)
        total = scaled(x_ref, 2.0)
        copy_in(x_hbm, buf.at[slot], sems)
        o_ref[...] = total.astype(o_ref.dtype)


    def other_kernel(x_ref, o_ref):
        counter = Counter()
        first = bump(counter)
        o_ref[...] = x_ref[...] * far_axis()


    def run(x):
        spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
        return pl.pallas_call(
            kernel, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32), grid=(4,),
            in_specs=[pl.BlockSpec(memory_space=pltpu.ANY), spec], out_specs=spec,
            scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,))])(x, x)


    def run_other(x):
        spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
        return pl.pallas_call(other_kernel, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
                              grid=(4,), in_specs=[spec], out_specs=spec)(x)
''')

# Characters typed into the kernels, one by one (each a text no analysis has seen).
EDITS = [("total = scaled(x_ref, 2.0)", "total = scaled(x_ref, 2.0 )"),
         ("slot = step_index(2)", "slot = step_index(2) "),
         ("first = bump(counter)", "first = bump(counter) "),
         ("o_ref[...] = total.astype(o_ref.dtype)", "o_ref[...] = total.astype(o_ref.dtype) ")]


def make_package(root, name="mykernels", helpers=("helpers", HELPERS), kernel=KERNEL):
    """A package of a helpers module and `kernel.py` (its path) that imports from it."""
    pkg = root / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / f"{helpers[0]}.py").write_text(helpers[1])
    path = pkg / "kernel.py"
    path.write_text(kernel)
    return str(path)


def said(analyzer, text):
    """Everything the analysis says of `text`: findings, value notes, parameter notes."""
    findings = analyzer.analyze(text)
    return json.dumps([[repr(f) for f in findings], [repr(v) for v in analyzer.value_notes()],
                       [repr(p) for p in analyzer.parameter_notes()]])


def typed(text):
    """The texts after each edit of EDITS, the earlier ones kept."""
    for old, new in EDITS:
        assert old in text
        text = text.replace(old, new)
        yield text


def test_calls_of_other_modules_are_remembered_after_an_edit(tmp_path):
    path = make_package(tmp_path)
    ws = Workspace([str(tmp_path)])
    analyzer = ModuleAnalyzer(path, workspace=ws)
    first = analyzer.analyze(KERNEL)
    assert analyzer.stats["calls_remembered"] == 0   # a first analysis runs every call
    assert [f.code for f in first] == ["PAL001"]
    remembered = 0
    for text in typed(KERNEL):
        assert said(analyzer, text) == said(ModuleAnalyzer(path, workspace=ws), text)
        remembered += analyzer.stats["calls_remembered"]
    assert remembered > 0


def test_only_calls_whose_effects_can_be_done_again_are_remembered(tmp_path, monkeypatch):
    """The DMA on the semaphore array (PAL001) and `bump`, which changes the counter it
    is given, are never taken from the table; `tiling`, `scaled`, `step_index` and
    `far_axis` (their grid axes noted again) are."""
    path = make_package(tmp_path)
    analyzer = ModuleAnalyzer(path, workspace=Workspace([str(tmp_path)]))
    taken, just_run = {}, set()
    original = Summaries.get

    def noting(self, key):
        kept = original(self, key)
        if kept is NOT_REMEMBERED:
            just_run.add(key[0].name)
        elif kept is not None:
            taken.setdefault(key[0].name, []).append(kept)
        return kept

    monkeypatch.setattr(Summaries, "get", noting)
    analyzer.analyze(KERNEL)
    for text in typed(KERNEL):
        assert [f.code for f in analyzer.analyze(text)] == ["PAL001"]
    assert set(taken) == {"tiling", "scaled", "step_index", "far_axis"}
    assert just_run == {"bump", "__init__"}   # known to change their object: run, not recorded again
    pallas = [i for i, d in enumerate(engine.DOMAINS) if type(d).__name__ == "PallasDomain"][0]
    assert all(s.gained[pallas] is not None and s.gained[pallas][0]   # axis uses
               for s in taken["step_index"] + taken["far_axis"])
    assert all(s.gained[pallas] is None for s in taken["scaled"] + taken["tiling"])


def test_a_change_of_the_other_module_forgets_what_was_remembered(tmp_path):
    path = make_package(tmp_path)
    ws = Workspace([str(tmp_path)])
    analyzer = ModuleAnalyzer(path, workspace=ws)
    analyzer.analyze(KERNEL)
    text = next(typed(KERNEL))
    analyzer.analyze(text)
    helpers = tmp_path / "mykernels" / "helpers.py"
    helpers.write_text(HELPERS.replace("pltpu.make_async_copy(src, dst, sem).start()",
                                       "pltpu.make_async_copy(src, dst, sem.at[0]).start()"))
    ws.invalidate(str(helpers))
    assert analyzer.analyze(text + "\n") == []
    assert analyzer.stats["calls_remembered"] == 0


@pytest.mark.parametrize("budget", [40, 90, 160, 400])
def test_where_steps_run_out_the_run_without_remembered_calls_decides(tmp_path, monkeypatch, budget):
    """With the steps for other modules' code cut short, every edit still says what a
    fresh analysis says (remembered calls count more steps than the memo lets a run of
    its own count: such a run is made again without them)."""
    monkeypatch.setattr(calls, "FOREIGN_STEP_BUDGET", budget)
    path = make_package(tmp_path)
    ws = Workspace([str(tmp_path)])
    analyzer = ModuleAnalyzer(path, workspace=ws)
    analyzer.analyze(KERNEL)
    for text in typed(KERNEL):
        assert said(analyzer, text) == said(ModuleAnalyzer(path, workspace=ws), text)


def test_a_fresh_analysis_keeps_no_table_between_documents(tmp_path):
    path = make_package(tmp_path)
    ws = Workspace([str(tmp_path)])
    ModuleAnalyzer(path, workspace=ws).analyze(KERNEL)
    other = ModuleAnalyzer(path, workspace=ws)
    other.analyze(next(typed(KERNEL)))
    assert other.stats["calls_remembered"] == 0
    assert engine.analyze_source(KERNEL, path, ws) == ModuleAnalyzer(path, workspace=ws).analyze(KERNEL)


NESTED_HELPERS = dedent('''
    from jax.experimental import pallas as pl


    def axis():
        return pl.program_id(0)


    def shifted(n):
        return axis() + n
''')

NESTED_KERNEL = dedent('''
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl

    from .nested import shifted


    def kernel(x_ref, o_ref):
        a = shifted(1)
        b = shifted(2)
        o_ref[...] = x_ref[...]


    def run(x):
        spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
        return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
                              grid=(4,), in_specs=[spec], out_specs=spec)(x)
''')


def test_a_call_the_memo_helped_past_what_it_did_is_not_remembered(tmp_path, monkeypatch):
    """`shifted(2)` takes `axis()` from the in-run memo, which then skips the grid axis
    `axis()` names: a run of `shifted(2)` on its own would name it, so it is not taken
    from the table (`shifted(1)`, which ran `axis()`, is)."""
    path = make_package(tmp_path, "nest", ("nested", NESTED_HELPERS), NESTED_KERNEL)
    ws = Workspace([str(tmp_path)])
    analyzer = ModuleAnalyzer(path, workspace=ws)
    taken = []
    original = Summaries.get

    def noting(self, key):
        kept = original(self, key)
        if kept is not None and kept is not NOT_REMEMBERED:
            taken.append((key[0].name, key[1]))
        return kept

    monkeypatch.setattr(Summaries, "get", noting)
    analyzer.analyze(NESTED_KERNEL)
    text = NESTED_KERNEL.replace("o_ref[...] = x_ref[...]", "o_ref[...] = (x_ref[...])")
    assert said(analyzer, text) == said(ModuleAnalyzer(path, workspace=ws), text)
    assert [name for name, _ in taken] == ["shifted"] and "1" in repr(taken[0][1])


COUNTED_HELPERS = dedent('''
    def leaf(n):
        m = n + 1
        m = m * 2
        return m - 1


    def twice(n):
        for _ in range(2):
            a = leaf(n)   # the second pass takes it from the in-run memo
        return a


    def grown(x_ref):
        acc = x_ref[...]
        acc = acc * 2.0
        acc = acc + 1.0
        return acc
''')

COUNTED_KERNEL = dedent('''
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl

    from .counted import grown, twice


    def kernel(x_ref, o_ref):
        t = twice(3)
        y = grown(x_ref)
        o_ref[...] = y


    def run(x):
        spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
        return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
                              grid=(4,), in_specs=[spec], out_specs=spec)(x)
''')


def test_every_budget_for_other_modules_gives_what_a_fresh_analysis_gives(tmp_path, monkeypatch):
    """`twice(3)` taken from the table counts the steps the memo saved its first run: with
    the steps for other modules' code cut anywhere, `grown`'s value (or its absence) is
    still what a fresh analysis finds."""
    path = make_package(tmp_path, "count", ("counted", COUNTED_HELPERS), COUNTED_KERNEL)
    text = COUNTED_KERNEL.replace("o_ref[...] = y", "o_ref[...] = y ")
    seen = set()
    for budget in range(1, 80):
        monkeypatch.setattr(calls, "FOREIGN_STEP_BUDGET", budget)
        ws = Workspace([str(tmp_path)])
        analyzer = ModuleAnalyzer(path, workspace=ws)
        analyzer.analyze(COUNTED_KERNEL)
        got = said(analyzer, text)
        assert got == said(ModuleAnalyzer(path, workspace=ws), text), budget
        seen.add(got)
    assert len(seen) > 1   # some budgets cut `grown` short, others do not


def test_an_entry_that_ran_out_of_steps_runs_once_after_an_edit_of_it(tmp_path, monkeypatch):
    """Steps for other modules' code ran out in `run`: the entry each edit of it makes runs
    once, without remembered calls (with them it would run out again and be made again),
    and says what a fresh analysis says."""
    monkeypatch.setattr(calls, "FOREIGN_STEP_BUDGET", 40)
    path = make_package(tmp_path)
    ws = Workspace([str(tmp_path)])
    spec = "in_specs=[pl.BlockSpec(memory_space=pltpu.ANY), spec]"
    texts = [KERNEL.replace(spec, spec.replace("spec]", "spec" + " " * n + "]")) for n in range(1, 4)]
    fresh = [said(ModuleAnalyzer(path, workspace=ws), text) for text in texts]
    runs = []
    run_block = ModuleAnalyzer._run_block

    def counted(block, state, domains, collect, arrays, summaries):
        ctx, interp, complete = run_block(block, state, domains, collect, arrays, summaries)
        runs.append((block.start, collect, ctx.cut))
        return ctx, interp, complete

    monkeypatch.setattr(ModuleAnalyzer, "_run_block", staticmethod(counted))
    analyzer = ModuleAnalyzer(path, workspace=ws)
    analyzer.analyze(KERNEL)
    for text, expected in zip(texts, fresh):
        runs.clear()
        assert said(analyzer, text) == expected
        assert runs == [(24, True, True)]   # `run`, once, out of steps
