"""`# noqa` suppression, ruff/flake8 syntax.

- `# noqa` (any case) anywhere in a line's comment suppresses every finding on that line;
- `# noqa: PAL001, PAL002` (codes separated by commas and/or spaces, any case) suppresses only
  those codes;
- `# noqa:` followed by no valid code is treated like a bare `# noqa` (as flake8 does).

A finding is suppressed by a directive on the line where its span starts.  Only the lines
that carry findings are looked at, so this is cheap on big files.  Pure functions: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from typing import Protocol

from .findings import Finding
from .records import record


class Lines(Protocol):
    """The document's lines, indexed from 0 (a list, or a view over blocks)."""

    def __len__(self) -> int: ...

    def __getitem__(self, index: int, /) -> str: ...


_NOQA = re.compile(
    r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?",
    re.IGNORECASE,
)
_CODE = re.compile(r"[A-Za-z]+[0-9]+")


@record
class NoqaDirective:
    """A `# noqa` comment found in one line.

    `codes` is None for a blanket `# noqa`, else the upper-cased codes it lists.
    `start`/`end` are the columns of the directive text in the line (`end` is where the
    code list stops), so a fix can extend the list in place.
    """

    codes: frozenset[str] | None
    start: int
    end: int

    def suppresses(self, code: str) -> bool:
        return self.codes is None or code.upper() in self.codes


def comment_start(line: str) -> int | None:
    """Column of the `#` that starts the comment of one physical line, or None.

    Skips `#` inside string literals that open and close on this line (single, double and
    triple quotes, with backslash escapes).  A line that is the middle of a multi-line string
    is not recognised as such; findings never point into string literals, so that is fine.
    """
    i, n = 0, len(line)
    quote = None  # the quote sequence of the string we are in
    while i < n:
        ch = line[i]
        if quote is None:
            if ch == "#":
                return i
            if ch in "'\"":
                quote = line[i:i + 3] if line[i:i + 3] in ("'''", '"""') else ch
                i += len(quote)
                continue
        else:
            if ch == "\\":
                i += 2
                continue
            if line.startswith(quote, i):
                i += len(quote)
                quote = None
                continue
        i += 1
    return None


def parse_noqa(line: str) -> NoqaDirective | None:
    """The `# noqa` directive of a physical line (without its line ending), or None."""
    if "noqa" not in line.lower():  # fast path for the usual line
        return None
    start = comment_start(line)
    if start is None:
        return None
    m = _NOQA.search(line, start)
    if m is None:
        return None
    codes = m.group("codes")
    if codes is None:
        return NoqaDirective(None, m.start(), m.end())
    return NoqaDirective(frozenset(c.upper() for c in _CODE.findall(codes)), m.start(), m.end())


def _line_text(lines: Lines, index: int) -> str:
    if 0 <= index < len(lines):
        return lines[index].rstrip("\r\n")
    return ""


def apply_noqa(findings: Iterable[Finding], source_lines: Lines) -> list[Finding]:
    """Drop the findings suppressed by a `# noqa` on the line where their span starts.

    `source_lines` are the document's lines, with or without their line endings.
    The order of the remaining findings is kept.
    """
    directives: dict[int, NoqaDirective | None] = {}
    kept = []
    for f in findings:
        line = f.span.line
        if line not in directives:
            directives[line] = parse_noqa(_line_text(source_lines, line))
        directive = directives[line]
        if directive is None or not directive.suppresses(f.code):
            kept.append(f)
    return kept
