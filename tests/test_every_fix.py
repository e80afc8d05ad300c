"""Fixes leave no finding behind: every safe fix, applied to the corpus one at a time, removes
its finding and adds none of another rule; `check --fix --unsafe-fixes` applies a choice only
where it does the same (a choice that trades one error for another is no fix). Every other
fix offered on the corpus, choices included, adds no finding either (a redeclared semaphore
whose DMA now signals a REGULAR semaphore, a kept "parallel" axis an output ignores, ...);
of the index choices (a guess at what the author meant: a wrong index may well make a wait
hang, which the rules then say), the first, the one `--unsafe-fixes` takes."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pallas_lsp.analysis.engine import analyze_source
from pallas_lsp.__main__ import main
from pallas_lsp.analysis.findings import Finding
from pallas_lsp.analysis.fixes import Fix, apply_edits, fixes_for, split_lines

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ["examples", "tests/corpus", "tests/protocol", "tests/contract", "tests/body"]
FILES = sorted(p for folder in FOLDERS for p in (ROOT / folder).glob("*.py"))
# `# noqa` hides a finding; it fixes nothing, and is checked elsewhere.
NOT_A_FIX = "Suppress"
INDEX_CHOICE = "Index the semaphore (choice)"


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


def _keys(text: str, findings: list[Finding]) -> Counter:
    """Each finding as its rule and the text of its line (lines move when a fix adds one)."""
    lines = split_lines(text)
    return Counter((f.code, lines[f.span.line].strip() if f.span.line < len(lines) else "") for f in findings)


def _offered(path: Path) -> list[tuple[Finding, Fix]]:
    text = path.read_text()
    return [(f, fix) for f in analyze_source(text, str(path)) for fix in fixes_for(f, split_lines(text))
            if not fix.title.startswith(NOT_A_FIX)]


def _left_behind(path: Path, fix: Fix) -> list[str]:
    """The findings the fixed text has that the original had not."""
    text = path.read_text()
    fixed = apply_edits(text, fix.edits)
    new = _keys(fixed, analyze_source(fixed, str(path))) - _keys(text, analyze_source(text, str(path)))
    return [f"{code} on `{line}`" for code, line in new]


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_fix_leaves_a_finding_behind(path):
    offered = _offered(path)
    for finding, fix in offered:
        guesses = [x for f, x in offered if f is finding and x.title.startswith(INDEX_CHOICE)]
        if fix.title.startswith(INDEX_CHOICE) and fix is not guesses[0]:
            continue
        left = _left_behind(path, fix)
        assert not left, f"{finding.code} at line {finding.span.line + 1}, fix {fix.title!r} leaves {left}"


def test_the_corpus_offers_fixes_of_every_kind():
    """The test above is not vacuous: the corpus offers safe fixes, choices, index choices
    and the choices it made honest (a redeclared kind, a shortened dimension_semantics)."""
    titles = [fix.title for path in FILES for _, fix in _offered(path)]
    offered = [fix for path in FILES for _, fix in _offered(path)]
    assert any(f.safe for f in offered) and any(not f.safe for f in offered)
    for start in (INDEX_CHOICE, "Keep the first", "Declare it as"):   # a copy's `.wait()`: test_fixes.py
        assert any(t.startswith(start) for t in titles), start
