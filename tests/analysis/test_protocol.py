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
