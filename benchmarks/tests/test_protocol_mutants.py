"""protocol_mutants.py without JAX: the mutations it writes, and what the analyzer makes of
them (the `--jax` run asks JAX's TPU interpreter for each verdict; not here)."""

import ast
import sys
from pathlib import Path

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
