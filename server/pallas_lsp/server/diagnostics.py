"""Findings -> LSP diagnostics, in the client's position encoding.

Columns in findings are code points; clients count UTF-16 code units by default.  The
conversion uses pygls' `PositionCodec`, with a fast path for ASCII lines (the common case,
where every encoding agrees).  Converted diagnostics are cached per finding and per text of
the lines they touch, so an edit elsewhere re-uses them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence

from lsprotocol import types
from pygls.uris import from_fs_path
from pygls.workspace.position_codec import PositionCodec, ServerTextPosition

from ..analysis.findings import Finding, Span, finding_to_data
from ..analysis.rules import RULES
from .capabilities import ClientFeatures

SOURCE = "pallas-lsp"
SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}
_BREAK = re.compile(r"\r\n|\r|\n")


def split_plain(text: str) -> list[str]:
    """The lines of `text` without their endings, split like LSP (`\\n`, `\\r\\n`, `\\r`).

    A text ending with a line break has a last, empty line (where LSP can place a cursor).
    """
    return text.split("\n") if "\r" not in text else _BREAK.split(text)


class PositionConverter:
    """Code-point columns <-> the client's units, one line at a time."""

    def __init__(self, codec: PositionCodec):
        self.codec = codec
        self.identity = codec.encoding == types.PositionEncodingKind.Utf32

    def to_client(self, lines: Sequence[str], line: int, col: int) -> types.Position:
        """A (line, code-point column) as a client position, clamped into the document."""
        if not lines or line < 0:
            return types.Position(0, 0)
        if line >= len(lines):
            line, col = len(lines) - 1, len(lines[-1])
        text = lines[line]
        col = max(0, min(col, len(text)))
        if self.identity or text.isascii():
            return types.Position(line, col)
        return self.codec.position_to_client_units(lines, ServerTextPosition(line, col))

    def span_to_range(self, lines: Sequence[str], span: Span) -> types.Range:
        return types.Range(
            self.to_client(lines, span.line, span.col),
            self.to_client(lines, span.end_line, span.end_col),
        )

    def to_server(self, lines: Sequence[str], pos: types.Position) -> tuple[int, int]:
        """A client position as (line, code-point column), clamped into the document."""
        if not lines:
            return 0, 0
        line = max(0, min(pos.line, len(lines) - 1))
        if pos.line >= len(lines):
            return line, len(lines[line])
        return line, self.column_to_server(lines[line], pos.character)

    def column_to_server(self, text: str, character: int) -> int:
        """A client column on the line `text` as a code-point column (clamped to the line)."""
        if self.identity or text.isascii():
            return max(0, min(character, len(text)))
        units = 0
        for i, ch in enumerate(text):
            if units >= character:
                return i
            units += self.codec.impl.code_units_for_char(ch)
        return len(text)


# Where a span of the analysed text is shown: (uri, lines of that document, local span).
# Text documents map to themselves (lines None when the text is ASCII); notebooks map to
# the cell holding the span.
Placed = tuple[str, Sequence[str] | None, Span]
Locator = Callable[[Span], Placed | None]


def _place(line: int, path: str | None) -> str:
    return f"{os.path.basename(path)}:{line + 1}" if path else f"line {line + 1}"


class DiagnosticFactory:
    """Builds `Diagnostic`s for one document, re-using those whose inputs did not change.

    Each comes with its JSON-ready dict (`wire`), made here, on the analysis thread.
    """

    def __init__(self, features: ClientFeatures, converter: PositionConverter, unstructure):
        self.features = features
        self.converter = converter
        self.unstructure = unstructure
        self._cache: dict[object, tuple[types.Diagnostic, dict]] = {}

    @staticmethod
    def _key(finding: Finding, lines: Sequence[str] | None):
        # The client range depends only on the lines the spans touch, and only when a line
        # is not ASCII; everything else about the diagnostic depends on the finding alone.
        if lines is None:
            return finding
        touched = []
        for span in (finding.span, *(r.span for r in finding.related if r.path is None)):
            for n in (span.line, span.end_line):
                if 0 <= n < len(lines) and not lines[n].isascii():
                    touched.append((n, lines[n]))
        return finding, tuple(touched)

    def build_all(self, findings: Sequence[Finding], uri: str, text: str,
                  doc_path: str | None) -> list[tuple[types.Diagnostic, dict]]:
        """(diagnostic, wire dict) per finding of a text document, cached between runs.

        ASCII text (the common case) needs no line table at all: columns are the same in
        every encoding.
        """
        lines = None if text.isascii() else split_plain(text)
        old = self._cache
        new: dict[object, tuple[types.Diagnostic, dict]] = {}
        out = []

        def locate(s: Span) -> Placed:
            return uri, lines, s

        for f in findings:
            key = self._key(f, lines)
            entry = old.get(key) or new.get(key)
            if entry is None:
                diag = self.build_placed(f, locate, locate(f.span), doc_path)
                entry = (diag, self.unstructure(diag))
            new[key] = entry
            out.append(entry)
        self._cache = new
        return out

    def span_to_range(self, lines: Sequence[str] | None, span: Span) -> types.Range:
        if lines is None:   # ASCII text: code points are client units
            return types.Range(types.Position(span.line, span.col),
                               types.Position(span.end_line, span.end_col))
        return self.converter.span_to_range(lines, span)

    def build(self, f: Finding, locate: Locator, doc_path: str | None,
              message: str | None = None) -> types.Diagnostic | None:
        """One diagnostic; None when its span cannot be placed (e.g. across notebook cells)."""
        placed = locate(f.span)
        if placed is None:
            return None
        return self.build_placed(f, locate, placed, doc_path, message)

    def build_placed(self, f: Finding, locate: Locator, placed: Placed, doc_path: str | None,
                     message: str | None = None) -> types.Diagnostic:
        """The diagnostic of `f`, whose span `locate` placed at `placed`."""
        _, lines, span = placed
        rule = RULES.get(f.code)
        message = message if message is not None else f.message
        related = None
        if f.related:
            infos = []
            for r in f.related:
                same_doc = r.path is None or (doc_path and os.path.abspath(r.path) == doc_path)
                where = locate(r.span) if same_doc else None
                if same_doc and where is not None:
                    r_uri, r_lines, r_span = where
                    rng = self.span_to_range(r_lines, r_span)
                elif r.path:
                    # Another file: not open here; its columns are taken as they are.
                    r_uri = from_fs_path(r.path) or r.path
                    rng = self.span_to_range(None, r.span)
                else:
                    continue
                infos.append(types.DiagnosticRelatedInformation(
                    types.Location(r_uri, rng), r.message))
                if not self.features.related_information:
                    place = _place(rng.start.line, r.path if not same_doc else None)
                    if place not in message:
                        message = f"{message}\n{r.message} ({place})"
            if self.features.related_information:
                related = infos or None
        return types.Diagnostic(
            range=self.span_to_range(lines, span),
            message=message,
            severity=SEVERITY.get(f.severity, types.DiagnosticSeverity.Warning),
            code=f.code,
            code_description=(types.CodeDescription(href=rule.doc_url)
                              if rule and rule.doc_url and self.features.code_description else None),
            source=SOURCE,
            related_information=related,
            data=finding_to_data(f),
        )
