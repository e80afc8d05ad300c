"""Jupyter notebooks: the code cells analysed together, in order, as one module.

A kernel is often written across cells (the semaphore declared in one, misused in
another), so the code cells are joined into one text and each cell's first line in that
text is remembered; findings are then placed back on the cell that holds them.
IPython syntax (`%magic`, `!shell`, `%%cell magic`) is blanked so it does not hide the rest
of the cell from the analysis; line numbers and columns are kept.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import unquote

from lsprotocol import types

from ..analysis.findings import Span
from .diagnostics import split_plain


@dataclass(frozen=True)
class Cell:
    uri: str
    version: int | None
    start: int            # first line of the cell in the joined text
    lines: tuple[str, ...]  # the cell's own lines (as the client has them)

    @property
    def end(self) -> int:  # one past the cell's last line
        return self.start + len(self.lines)


def _neutralise(lines: list[str]) -> list[str]:
    """Blank IPython-only syntax, keeping line count and the columns of everything else."""
    if lines and lines[0].lstrip().startswith("%%"):
        return [""] * len(lines)             # a cell magic: the cell is not Python
    out = []
    for line in lines:
        stripped = line.lstrip()
        if stripped[:1] in ("%", "!"):
            out.append(line[: len(line) - len(stripped)] + "#" + stripped[1:])
        else:
            out.append(line)
    return out


@dataclass(frozen=True)
class NotebookText:
    """The joined text of a notebook's code cells, and where each cell sits in it."""

    text: str
    cells: tuple[Cell, ...]

    def cell_at(self, line: int) -> Cell | None:
        starts = [c.start for c in self.cells]
        i = bisect.bisect_right(starts, line) - 1
        if i < 0:
            return None
        cell = self.cells[i]
        return cell if line < cell.end else None

    def locate(self, span: Span) -> tuple[str, Sequence[str], Span] | None:
        """(cell uri, cell lines, cell-relative span); None when the span spans cells."""
        cell = self.cell_at(span.line)
        if cell is None:
            return None
        if span.end_line >= cell.end:
            # An end at column 0 of the next cell's first line still belongs to this cell
            # (e.g. an edit replacing a whole last line); anything further does not.
            if not (span.end_line == cell.end and span.end_col == 0):
                return None
            return cell.uri, cell.lines, Span(span.line - cell.start, span.col,
                                              len(cell.lines) - 1, len(cell.lines[-1]))
        return cell.uri, cell.lines, span.shifted(-cell.start)


class CellDocument(Protocol):
    """What is read of a cell's document (a pygls `TextDocument`)."""

    @property
    def source(self) -> str: ...

    @property
    def version(self) -> int | None: ...


def join_cells(notebook: types.NotebookDocument,
               documents: Mapping[str, CellDocument]) -> NotebookText:
    """Join the code cells of `notebook`; `documents` maps cell URIs (unquoted, as pygls
    keeps them) to their documents.  Markdown cells and cells without a document are
    skipped."""
    cells = []
    parts: list[str] = []
    start = 0
    for nb_cell in notebook.cells:
        if nb_cell.kind != types.NotebookCellKind.Code:
            continue
        doc = documents.get(unquote(nb_cell.document))
        if doc is None or "python" not in (getattr(doc, "language_id", None) or "python"):
            continue      # not open, or a code cell in another language (e.g. SQL)
        lines = split_plain(doc.source)
        cells.append(Cell(nb_cell.document, doc.version, start, tuple(lines)))
        parts.extend(_neutralise(lines))
        start += len(lines)
    return NotebookText("\n".join(parts) + "\n" if parts else "", tuple(cells))


_LINE_REF = re.compile(r"\bline (\d+)\b")


def notebook_message(message: str, nb: NotebookText) -> str:
    """Rewrite "line N" (a line of the joined text) as "cell K, line M" for the reader."""

    def repl(m: re.Match) -> str:
        line = int(m.group(1)) - 1
        cell = nb.cell_at(line)
        if cell is None:
            return m.group(0)
        k = nb.cells.index(cell) + 1
        return f"cell {k}, line {line - cell.start + 1}"

    return _LINE_REF.sub(repl, message)
