"""Shared helpers for the analysis unit tests.

Snippets are written as indented triple-quoted strings; `dedent` strips the common
indentation and the first newline, so line 1 of a result is the first line of the
snippet as written in the test.
"""

from __future__ import annotations

import textwrap

from pallas_lsp.analysis.engine import analyze_source

# The imports almost every snippet starts with (3 lines).
IMPORTS = """\
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
"""


def dedent(src: str) -> str:
    src = textwrap.dedent(src)
    return src.removeprefix("\n")


# The protocol rules that judge a whole kernel's starts and waits: most snippets start
# DMAs they never wait (they are about something else), so these are asked for.
PROTOCOL_COUNTS = ("PAL302", "PAL303", "PAL304")


def analyze(src: str, path: str | None = None, protocol: bool = False):
    """The findings (full `Finding` objects) for a dedented snippet; PAL302-PAL304 only
    with `protocol`."""
    return [f for f in analyze_source(dedent(src), path) if protocol or f.code not in PROTOCOL_COUNTS]


def found(src: str, path: str | None = None) -> list[tuple[int, str, tuple]]:
    """[(line, code, shape)] for a snippet; `line` is 1-based, as in an editor."""
    return [(f.span.line + 1, f.code, tuple(f.shape)) for f in analyze(src, path)]


def line_of(src: str, needle: str) -> int:
    """1-based line of the only line of the dedented snippet that contains `needle`."""
    lines = [i + 1 for i, text in enumerate(dedent(src).split("\n")) if needle in text]
    assert len(lines) == 1, f"{needle!r} is on lines {lines}"
    return lines[0]


def text_at(src: str, span) -> str:
    """The snippet text covered by a (single-line) `Span`."""
    lines = dedent(src).split("\n")
    assert span.line == span.end_line
    return lines[span.line][span.col:span.end_col]
