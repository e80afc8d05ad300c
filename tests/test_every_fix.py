"""Fixes applied without the author choosing leave no finding behind: every safe fix, applied
to the corpus one at a time, removes its finding and adds none of another rule; `check --fix
--unsafe-fixes` applies a choice only where it does the same (a choice that trades one error
for another is no fix).  The editor lists every choice: the author picks."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pallas_lsp.analysis.engine import analyze_source
from pallas_lsp.__main__ import main
from pallas_lsp.analysis.fixes import apply_edits, fixes_for, split_lines

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ["examples", "tests/corpus", "tests/protocol", "tests/contract", "tests/body"]
FILES = sorted(p for folder in FOLDERS for p in (ROOT / folder).glob("*.py"))
# `# noqa` hides a finding; it fixes nothing, and is checked elsewhere.
NOT_A_FIX = "Suppress"


def _codes(text: str, path: Path) -> Counter:
    return Counter(f.code for f in analyze_source(text, str(path)))


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_safe_fix_leaves_no_other_finding(path):
    text = path.read_text()
    lines = split_lines(text)
    before = _codes(text, path)
    left = []
    for finding in analyze_source(text, str(path)):
        for fix in fixes_for(finding, lines):
            if not fix.safe or fix.title.startswith(NOT_A_FIX):
                continue
            after = _codes(apply_edits(text, fix.edits), path)
            added = after - before
            if added or after[finding.code] >= before[finding.code]:
                left.append(f"line {finding.span.line + 1} {finding.code}: {fix.title!r} -> "
                            f"{dict(added) or 'the finding stays'}")
    assert not left, "\n".join(left)


@pytest.mark.parametrize("path", [p for p in FILES if p.name.endswith("_bug.py") or p.parent.name == "examples"],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_check_fix_with_unsafe_fixes_leaves_no_new_finding(path, tmp_path):
    """`pallas-lsp check --fix --unsafe-fixes` applies choices too: only those that fix."""
    copy = tmp_path / path.name
    copy.write_text(path.read_text())
    before = _codes(copy.read_text(), copy)
    main(["check", "--fix", "--unsafe-fixes", "-q", str(copy)])
    after = _codes(copy.read_text(), copy)
    assert not (after - before), f"the fixes left {dict(after - before)} behind"
    assert sum(after.values()) <= sum(before.values())
