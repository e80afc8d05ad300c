"""protocol_mutants.py: the mutations it writes, what the analyzer makes of them, and how
they are scored, without JAX; with JAX installed, JAX's verdicts on the count families
(the full `--jax` run over every family is the benchmark's, not a test's)."""

import ast
import importlib.util
import sys
import tempfile
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCH))

import protocol_mutants as pm


def test_every_family_mutates_the_corpus_and_keeps_its_lines():
    mutants = pm.all_mutants()
    assert {m.family for m in mutants} == set(pm.FAMILIES)
    for m in mutants:
        original = m.source.read_text()
        assert m.text != original, m.what
        assert m.text.count("\n") == original.count("\n"), f"{m.source.name}:{m.line} {m.what}"
        ast.parse(m.text)


def test_a_dma_wait_deleted_runs_with_eager_dmas():
    waits = [m for m in pm.all_mutants() if m.family == "delete-wait"]
    assert any(m.eager for m in waits) and any(not m.eager for m in waits)   # .wait() / semaphore_wait
    assert all(m.eager == (m.what != "semaphore_wait deleted") for m in waits)


def test_a_source_shrinks_and_a_destination_grows():
    sizes = [m for m in pm.all_mutants() if m.family == "dma-size"]
    assert sizes and all(("// 2" in m.what) == m.what.startswith("source") for m in sizes)


def test_counts_change_by_one():
    counts = [m for m in pm.all_mutants() if m.family in ("signal-count", "wait-count")]
    assert {m.family for m in counts} == {"signal-count", "wait-count"}
    for m in counts:
        line = m.text.splitlines()[m.line - 1]
        call = "semaphore_signal(" if m.family == "signal-count" else "semaphore_wait("
        assert call in line and (line.rstrip().endswith(", 2)") or ") + 1)" in line), line
        assert not m.eager


def test_prefetch_guards_run_one_step_too_many_with_eager_dmas():
    guards = [m for m in pm.all_mutants() if m.family == "prefetch-guard"]
    assert guards and all(m.eager for m in guards)
    lines = {m.text.splitlines()[m.line - 1].strip() for m in guards}
    assert "@pl.when(step + 1 <= pl.num_programs(0))" in lines and "@pl.when(step < pl.num_programs(0))" in lines
    assert "@pl.when(i < N)" in lines and "@pl.when(i + 1 <= N)" in lines


def test_a_prologue_that_only_starts_copies_is_emptied():
    prologues = [m for m in pm.all_mutants() if m.family == "delete-prologue"]
    assert prologues and all(m.eager for m in prologues)
    for m in prologues:
        assert m.text.splitlines()[m.line - 1].strip() == "pass"
        assert m.text.splitlines()[m.line - 3].strip().startswith("@pl.when(")
    # a pl.when(... == 0) that also waits (a first-step table) is not a prologue
    assert not any(m.source.name == "pal302_first_step_table_ok.py" for m in prologues)


def test_count_families_are_flagged_with_errors():
    for m in pm.all_mutants():
        if m.family in ("signal-count", "prefetch-guard", "delete-prologue"):
            assert any(sev == "error" for _, _, sev in pm.findings(m)), f"{m.source.name}:{m.line} {m.what}"


def test_a_family_no_rule_covers_is_measured_but_not_held(capsys, monkeypatch):
    monkeypatch.setattr(pm, "UNCOVERED", {"wait-count": "no rule covers it"})
    none, full = pm.Score(mutants=4, rejected=4), pm.Score(mutants=4, rejected=4, flagged=4, errors=4)
    assert pm.report({"wait-count": none}, [], True, None) == 0
    assert "wait-count (not held to the goal): no rule covers it" in capsys.readouterr().out
    assert pm.report({"wait-count": full}, [], True, None) == 0
    assert "wait-count meets the goal now: take it out of UNCOVERED" in capsys.readouterr().out


def test_a_semaphore_wait_that_hangs_is_an_error():
    for m in pm.all_mutants():
        if m.family == "wait-count":
            assert (m.line, "PAL303", "error") in pm.findings(m), f"{m.source.name}:{m.line} {m.what}"


def _mutant(family: str) -> "pm.Mutant":
    return next(m for m in pm.all_mutants() if m.family == family)


def test_judge_counts_errors_warnings_and_false_ones():
    m = _mutant("signal-count")
    score, misses = pm.Score(), []
    pm.judge(m, [(m.line, "PAL304", "error")], {"status": "leftover"}, score, misses)
    pm.judge(m, [(1, "PAL304", "warning")], {"status": "leftover"}, score, misses)
    pm.judge(m, [], {"status": "hang"}, score, misses)
    pm.judge(m, [(m.line, "PAL304", "error")], {"status": "ok"}, score, misses)
    pm.judge(m, [(m.line, "PAL304", "warning")], {"status": "ok"}, score, misses)
    assert (score.mutants, score.rejected, score.flagged, score.errors, score.warnings) == (5, 3, 2, 1, 1)
    assert (score.accepted, score.false_errors, score.false_warnings) == (2, 1, 1)
    assert [x.split(":")[0].strip() for x in misses] == ["missed pal301_signal_dma_sem_ok.py", "FALSE ERROR",
                                                         "false warning"]


def test_strict_holds_each_family_to_the_goal(capsys):
    full = pm.Score(mutants=4, rejected=4, flagged=4, errors=4)
    none = pm.Score(mutants=4, rejected=4)
    assert pm.report({"signal-count": full, "wait-count": full}, [], True, None) == 0
    capsys.readouterr()
    assert pm.report({"signal-count": full, "wait-count": none}, [], True, None) == 1
    assert "below the goal: wait-count" in capsys.readouterr().out
    assert pm.report({"signal-count": full, "wait-count": none}, [], False, None) == 0
    wrong = pm.Score(mutants=1, accepted=1, false_errors=1)
    assert pm.report({"signal-count": full, "delete-wait": wrong}, [], True, None) == 1


def test_dma_sizes_and_kinds_are_flagged_where_expected():
    for m in pm.all_mutants():
        got = pm.findings(m)
        if m.family == "dma-size":
            assert any(line == m.line for line, _, _ in got), f"{m.source.name}:{m.line} {m.what}: {got}"
        elif m.family == "swap-kind":
            assert got, f"{m.source.name}:{m.line} {m.what}"


def test_the_unmutated_modules_have_no_protocol_finding():
    from pallas_lsp.analysis.engine import analyze_source

    for path in sorted(pm.PROTOCOL.glob("pal*_ok.py")):
        codes = {f.code for f in analyze_source(path.read_text(), str(path))}
        assert not codes & {c for family in pm.CODES.values() for c in family}, path.name


# What JAX 0.10.2's TPU interpreter does with each count family's mutants (observed).
JAX_SAYS = {"signal-count": ("leftover", None), "wait-count": ("hang", "semaphore_wait"),
            "prefetch-guard": ("error", None),   # the extra prefetch reads block N: out of bounds,
            # or, where the block index wraps (`pal302_while_pipeline_ok`), stays in flight
            "delete-prologue": ("hang", "dma_wait")}


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="JAX is not installed")
def test_jax_rejects_every_count_mutant_as_documented():
    mutants = [m for m in pm.all_mutants() if m.family in JAX_SAYS]
    with tempfile.TemporaryDirectory() as tmp:
        verdicts = pm.jax_verdicts(mutants, Path(tmp))
    for m in mutants:
        rec = verdicts[m.name]
        status, hang_in = JAX_SAYS[m.family]
        if m.family == "prefetch-guard" and "% (STEPS * TRIPS)" in m.source.read_text():
            status = "leftover"
        assert rec["status"] == status, (m.source.name, m.what, rec)
        assert hang_in is None or rec["hang_in"].endswith(":" + hang_in), rec
        if m.family == "prefetch-guard" and status == "error":
            assert rec["exc_type"] == "IndexError" and "Out-of-bounds read" in rec["message"], rec
