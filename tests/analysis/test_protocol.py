"""The protocol rules (PAL301-PAL306) against the corpus in `tests/protocol/`, whose
verdicts JAX's TPU interpreter gives (`tests/oracle/test_protocol_oracle.py`): no finding
off a marked line, none on a correct module, every mark found; PAL302-PAL304 are errors
where the kernel's every path is known (counted at each grid step and loop index), and
warnings where starts and waits are only paired by semaphore."""

from __future__ import annotations

from pathlib import Path

import pytest
from pallas_lsp.analysis.engine import analyze_source

from .test_contract import expected

PROTOCOL = Path(__file__).resolve().parents[1] / "protocol"
MODULES = sorted(PROTOCOL.glob("pal*.py"))


def reported(path: Path) -> set[tuple[int, str]]:
    return {(f.span.line + 1, f.code) for f in analyze_source(path.read_text(), str(path))
            if f.code.startswith("PAL3")}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_protocol_findings_are_on_marked_lines(path):
    got = reported(path)
    assert got <= expected(path), f"findings JAX's interpreter does not confirm: {sorted(got - expected(path))}"


def test_every_marked_line_is_found():
    missed = [(path.name, mark) for path in MODULES for mark in expected(path) - reported(path)]
    assert not missed


def severities(name: str) -> list[tuple[int, str, str]]:
    path = PROTOCOL / name
    return [(f.span.line + 1, f.code, f.severity) for f in analyze_source(path.read_text(), str(path))
            if f.code in ("PAL302", "PAL303", "PAL304")]


@pytest.mark.parametrize("name, found", [
    # counted over the grid: the last step prefetches a block nobody waits for
    ("pal302_prefetch_last_step_bug.py", [(30, "PAL302", "error")]),
    # fori_loop unrolled: the last iteration's prefetch
    ("pal302_fori_pipeline_bug.py", [(29, "PAL302", "error")]),
    # the first grid step waits for a copy no earlier step started
    ("pal303_missing_prologue_bug.py", [(29, "PAL303", "error")]),
    # counts: 2 signalled, 1 waited; 4 signalled in a loop, 1 waited
    ("pal304_count_mismatch_bug.py", [(20, "PAL304", "error")]),
    ("pal304_loop_chunks_bug.py", [(21, "PAL304", "error")]),
    # a remote copy's send semaphore: other devices' counts are not followed, so only paired
    ("pal302_ring_shift_bug.py", [(25, "PAL302", "warning")]),
])
def test_severity_follows_certainty(name, found):
    assert severities(name) == found


def test_the_message_says_where_the_count_goes_wrong():
    path = PROTOCOL / "pal302_prefetch_last_step_bug.py"
    [f] = [f for f in analyze_source(path.read_text(), str(path)) if f.code == "PAL302"]
    assert "the copy started here in grid step (3,)" in f.message
    assert "element 0 of the array" in f.message


def test_the_wait_fix_is_a_choice_for_local_copies_only():
    from pallas_lsp.analysis.fixes import apply_edits, fixes_for, split_lines

    def wait_fixes(name: str):
        path = PROTOCOL / name
        text = path.read_text()
        f = next(f for f in analyze_source(text, str(path)) if f.code == "PAL302")
        return text, [x for x in fixes_for(f, split_lines(text)) if x.title.startswith("Wait for the copy")]

    text, fixes = wait_fixes("pal302_bias_unwaited_bug.py")
    assert [x.title for x in fixes] == ["Wait for the copy right after starting it (`b_copy.wait()`)"]
    assert not fixes[0].safe
    new = apply_edits(text, fixes[0].edits).split("\n")
    start = next(i for i, line in enumerate(new) if "b_copy.start()" in line)
    assert new[start].endswith("# expect: PAL302") and new[start + 1] == "    b_copy.wait()"
    assert wait_fixes("pal302_ring_shift_bug.py")[1] == []   # remote: wait_send or wait_recv, not a guess
