"""The protocol rules (PAL301, PAL305, PAL306; PAL302-PAL304 as preview rules) against the
corpus in `tests/protocol/`, whose verdicts JAX's TPU interpreter gives
(`tests/oracle/test_protocol_oracle.py`): no finding off a marked line, no finding on a
correct module; what is found is counted (the count and loop-carried cases of
PAL302-PAL304 are beyond a path-insensitive ledger)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pallas_lsp.analysis.engine import analyze_source

from .test_contract import expected

PROTOCOL = Path(__file__).resolve().parents[1] / "protocol"
MODULES = sorted(PROTOCOL.glob("pal*.py"))


def reported(path: Path) -> set[tuple[int, str]]:
    return {(f.span.line + 1, f.code) for f in analyze_source(path.read_text(), str(path), preview=True)
            if f.code.startswith("PAL3")}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_protocol_findings_are_on_marked_lines(path):
    got = reported(path)
    assert got <= expected(path), f"findings JAX's interpreter does not confirm: {sorted(got - expected(path))}"


def test_what_the_ledger_finds():
    found = {code: [0, 0] for code in ("PAL301", "PAL302", "PAL303", "PAL304", "PAL305", "PAL306")}
    for path in MODULES:
        got = reported(path)
        for mark in expected(path):
            if mark[1] in found:
                found[mark[1]][0] += 1
                found[mark[1]][1] += mark in got
    assert found["PAL301"] == [4, 4]                 # every kind error
    assert found["PAL305"] == [3, 3]                 # every DMA between different shapes or dtypes
    assert found["PAL306"] == [3, 3]                 # every revisited output
    assert sum(hit for _, hit in found.values()) >= 17, found


def test_preview_rules_are_off_by_default():
    path = PROTOCOL / "pal302_bias_unwaited_bug.py"
    assert not {f.code for f in analyze_source(path.read_text(), str(path))} & {"PAL302", "PAL303", "PAL304"}
    assert "PAL302" in {f.code for f in analyze_source(path.read_text(), str(path), preview=True)}


def test_the_wait_fix_is_a_choice_for_local_copies_only():
    from pallas_lsp.analysis.fixes import apply_edits, fixes_for, split_lines

    def wait_fixes(name: str):
        path = PROTOCOL / name
        text = path.read_text()
        f = next(f for f in analyze_source(text, str(path), preview=True) if f.code == "PAL302")
        return text, [x for x in fixes_for(f, split_lines(text)) if x.title.startswith("Wait for the copy")]

    text, fixes = wait_fixes("pal302_bias_unwaited_bug.py")
    assert [x.title for x in fixes] == ["Wait for the copy right after starting it (`b_copy.wait()`)"]
    assert not fixes[0].safe
    new = apply_edits(text, fixes[0].edits).split("\n")
    start = next(i for i, line in enumerate(new) if "b_copy.start()" in line)
    assert new[start].endswith("# expect: PAL302") and new[start + 1] == "    b_copy.wait()"
    assert wait_fixes("pal302_ring_shift_bug.py")[1] == []   # remote: wait_send or wait_recv, not a guess
