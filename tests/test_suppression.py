"""`# noqa` suppression (pure functions; findings built by hand)."""

from __future__ import annotations

import pytest
from pallas_lsp.analysis.findings import Finding, Span
from pallas_lsp.analysis.suppression import apply_noqa, comment_start, parse_noqa


def finding(code: str, line: int, col: int = 4) -> Finding:
    return Finding(code, "error", f"{code} message", Span(line, col, line, col + 4))


SOURCE = """\
def kernel(x_hbm, o_ref, buf, sems):
    pltpu.async_copy(x_hbm, buf, sems)  # noqa
    pltpu.async_copy(x_hbm, buf, sems)  # noqa: PAL001
    pl.semaphore_signal(sems)  # noqa: PAL001
    pl.semaphore_signal(sems)  # NOQA:pal002,PAL003
    pl.semaphore_signal(sems)
    pl.semaphore_signal(sems)  # see "# noqa" docs
    x = "# noqa"; pl.semaphore_signal(sems)
    pl.semaphore_signal(sems)  # flaky  # noqa: PAL002 explained later
    pl.semaphore_wait(sems)  # noqa:
"""
LINES = SOURCE.splitlines(keepends=True)


@pytest.mark.parametrize(
    "code, line, suppressed",
    [
        ("PAL001", 1, True),    # bare noqa: every code
        ("PAL003", 1, True),
        ("PAL001", 2, True),    # listed code
        ("PAL002", 2, False),   # code not listed
        ("PAL002", 3, False),
        ("PAL002", 4, True),    # case-insensitive, no space, comma list
        ("PAL003", 4, True),
        ("PAL001", 4, False),
        ("PAL002", 5, False),   # no comment
        ("PAL002", 6, True),    # a directive quoted inside a comment still counts (flake8 too)
        ("PAL002", 7, False),   # one inside a string literal does not
        ("PAL002", 8, True),    # directive after another comment, text after the codes
        ("PAL001", 8, False),
        ("PAL002", 9, True),    # a colon without codes acts as a bare directive
    ],
)
def test_apply_noqa(code, line, suppressed):
    f = finding(code, line)
    assert apply_noqa([f], LINES) == ([] if suppressed else [f])


def test_apply_noqa_keeps_order_and_unrelated_findings():
    fs = [finding("PAL002", 5), finding("PAL001", 2), finding("PAL002", 3), finding("PAL002", 2)]
    assert apply_noqa(fs, LINES) == [fs[0], fs[2], fs[3]]


def test_lines_without_endings_and_out_of_range_lines():
    lines = [line.rstrip("\n") for line in LINES]
    assert apply_noqa([finding("PAL001", 2)], lines) == []
    far = finding("PAL001", 999)
    assert apply_noqa([far], lines) == [far]


def test_multiline_statement_uses_the_finding_line():
    src = "pltpu.make_async_copy(\n    src,\n    dst,\n    sems,  # noqa: PAL001\n).start()\n"
    on_sem = finding("PAL001", 3)
    on_start = finding("PAL001", 4, 2)
    assert apply_noqa([on_sem, on_start], src.splitlines()) == [on_start]


def test_parse_noqa_positions():
    line = "foo(sems)  # noqa: PAL001, PAL003"
    d = parse_noqa(line)
    assert d.codes == {"PAL001", "PAL003"}
    assert line[d.start:d.end] == "# noqa: PAL001, PAL003"
    assert parse_noqa("foo(sems)") is None
    assert parse_noqa("foo('#noqa')") is None
    assert parse_noqa("x = 1  # noqa").codes is None


@pytest.mark.parametrize(
    "line, expected",
    [
        ("x = 1", None),
        ("x = 1  # c", 7),
        ("s = '#'  # c", 9),
        ('s = "a\\"#"  # c', 12),
        ("s = '''#'''  # c", 13),
        ("s = '#", None),  # unterminated string: no comment
    ],
)
def test_comment_start(line, expected):
    assert comment_start(line) == expected
