"""Jupyter notebooks for `pallas-lsp check`: the code cells joined into one module.

A kernel is often written across cells (the semaphore declared in one, misused in
another), so the code cells are analysed together, in order.  IPython syntax (`%magic`,
`!shell`, `?help`, `obj?`, a `%%cell magic`) becomes `pass` at the same indentation, so
line numbers and the columns of everything else are kept.  Findings are then placed back
in their cell: `NotebookSource.locate`.  Fixed code goes back into the cells with `NotebookSource.with_code`.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass

from ..analysis.findings import Span

_HELP = re.compile(r"\s*[\w.]+\?{1,2}\s*$")   # `obj?`, `np.sum??`
_LINE_REF = re.compile(r"\bline (\d+)\b")


class NotebookError(ValueError):
    """A file that is not a readable notebook; the message says why."""


@dataclass(frozen=True)
class NotebookSource:
    """The joined code of a notebook: `text`, and the first line in it of each code cell."""

    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]      # one past each cell's last line
    document: dict             # the notebook's JSON
    cells: tuple[dict, ...]    # its code cells, in `document`

    def with_code(self, text: str) -> str | None:
        """The notebook's JSON with its code cells taken from `text` (the joined code,
        changed in place); None when `text` no longer has the cells' lines."""
        lines = text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")
        if len(lines) != len(self.text.split("\n")) - 1:
            return None
        old = self.text.split("\n")
        for cell, start, end in zip(self.cells, self.starts, self.ends):
            if lines[start:end] == old[start:end]:
                continue
            original = _source_lines(cell)
            # IPython lines (blanked in `text`) stay as they were
            new = [o if o != b else n for o, b, n in zip(original, old[start:end], lines[start:end])]
            _set_source(cell, new, _source_text(cell).endswith("\n"))
        return json.dumps(self.document, indent=1, ensure_ascii=False) + "\n"

    def cell_of(self, line: int) -> int | None:
        """The 0-based index of the code cell holding line `line` of `text`."""
        i = bisect.bisect_right(self.starts, line) - 1
        return i if i >= 0 and line < self.ends[i] else None

    def locate(self, span: Span) -> tuple[int, Span] | None:
        """(1-based cell number, span relative to the cell); None when the span is in no
        cell or runs into the next one."""
        i = self.cell_of(span.line)
        if i is None or span.end_line >= self.ends[i]:
            return None
        return i + 1, span.shifted(-self.starts[i])

    def message(self, text: str) -> str:
        """`text` with each "line N" (of the joined code) as "cell K, line M"."""

        def repl(m: re.Match) -> str:
            line = int(m.group(1)) - 1
            i = self.cell_of(line)
            if i is None:
                return m.group(0)
            return f"cell {i + 1}, line {line - self.starts[i] + 1}"

        return _LINE_REF.sub(repl, text)


def _python_line(line: str) -> str:
    stripped = line.lstrip()
    if stripped[:1] in ("%", "!", "?") or _HELP.match(line):
        return line[: len(line) - len(stripped)] + "pass"
    return line


def _source_text(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _source_lines(cell: dict) -> list[str]:
    lines = _source_text(cell).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _set_source(cell: dict, lines: list[str], final_newline: bool) -> None:
    text = "\n".join(lines) + ("\n" if final_newline else "")
    if isinstance(cell.get("source"), list):
        cell["source"] = [line + "\n" for line in text.split("\n")[:-1]] + (
            [text.rsplit("\n", 1)[-1]] if not final_newline else [])
    else:
        cell["source"] = text


def _cell_lines(cell: dict) -> list[str]:
    lines = _source_lines(cell)
    if lines and lines[0].lstrip().startswith("%%"):  # a cell magic: not Python
        return ["pass"] * len(lines)
    return [_python_line(line) for line in lines]


def _language(nb: dict) -> str:
    meta = nb.get("metadata") or {}
    info = meta.get("language_info") or meta.get("kernelspec") or {}
    return str(info.get("name") or info.get("language") or "python").lower()


def read_notebook(text: str) -> NotebookSource | None:
    """The code of a notebook's JSON text; None for a notebook in another language than
    Python.  Raises NotebookError when the text is not a notebook."""
    try:
        nb = json.loads(text)
    except json.JSONDecodeError as e:
        raise NotebookError(f"not a valid notebook (invalid JSON: {e.msg}, line {e.lineno})") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise NotebookError("not a valid notebook (no `cells` list)")
    if "python" not in _language(nb):
        return None
    parts: list[str] = []
    starts, ends, cells = [], [], []
    for cell in nb["cells"]:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        lines = _cell_lines(cell)
        starts.append(len(parts))
        parts += lines
        ends.append(len(parts))
        cells.append(cell)
    text = "".join(line + "\n" for line in parts)
    return NotebookSource(text, tuple(starts), tuple(ends), nb, tuple(cells))
