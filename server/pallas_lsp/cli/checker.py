"""Checking one file for `pallas-lsp check` (runs in the worker processes).

Each file is read and decoded (a file that cannot be is reported as E902), a notebook's
code cells joined, parsed (a syntax error is reported as E999), prefiltered by a cheap byte
search, analysed and, with `--fix` or `--diff`, fixed.
"""

from __future__ import annotations

import ast
import difflib
import io
import os
import re
import tokenize
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from . import formats
from ..analysis.choices import ChoiceCheck
from ..analysis.engine import analyze_source
from ..analysis.findings import Finding, Span
from ..analysis.fixes import Fix, apply_edits, auto_fix, fix_all_edits, split_lines
from ..analysis.parse import split_blocks
from ..analysis.rules import FILE_ERRORS, selected
from ..analysis.workspace import Workspace
from .discover import display, is_notebook
from ..memory import GrowthWatch, frozen_after
from .notebook_source import NotebookError, NotebookSource, read_notebook

# A file that mentions none of these cannot hold a checked call on a Pallas semaphore
# (every declaration and every checked API spells one of them), so it is not analysed.
_CANDIDATE = re.compile(
    rb"pallas|semaphore|async_copy|async_remote_copy|core_barrier", re.IGNORECASE
)
_FIX_PASSES = 3
IO_ERROR, SYNTAX_ERROR = FILE_ERRORS


@dataclass(frozen=True)
class Task:
    """One file to check.  `data` holds the source when it came from stdin (`path` is then
    the name to report it under)."""

    path: str
    select: tuple[str, ...] | None
    ignore: tuple[str, ...]
    fix: bool = False                 # write the fixes
    diff: bool = False                # compute the fixes as a diff, write nothing
    unsafe_fixes: bool = False        # apply the fixes not marked safe too
    data: bytes | None = None
    roots: tuple[str, ...] = ()       # folders other modules of the project are found in
    interpreter: str | None = None    # the project's Python, for installed libraries


@dataclass
class FileResult:
    """What checking one file gave: findings (with the fix `--fix` would apply; E902 when
    the file could not be read), an error message when the analysis failed, the codes of
    the fixes applied (with `--diff`: that would be), the diff, and a note for stderr (not
    a failure)."""

    path: str
    items: list[formats.Reported] = field(default_factory=list)
    error: str | None = None
    applied: list[str] = field(default_factory=list)
    diff: str = ""
    note: str | None = None
    checked: bool = True


@dataclass(frozen=True)
class Source:
    """A file's code as analysed (a notebook's joined code cells), the file's text and
    encoding."""

    text: str
    raw: str
    encoding: str
    notebook: NotebookSource | None = None

    def file_text(self, text: str) -> str | None:
        """The file's new text for the code `text` (None: it cannot be written back)."""
        return text if self.notebook is None else self.notebook.with_code(text)


@dataclass(frozen=True)
class FileError:
    """Why a file could not be read, decoded or written (an E902 finding), and where in it
    when known."""

    message: str
    span: Span = Span(0, 0, 0, 0)

    def finding(self) -> Finding:
        return Finding(IO_ERROR, "error", self.message, self.span)


@dataclass(frozen=True)
class Decoded:
    text: str
    encoding: str


def read_bytes(path: str) -> bytes | FileError:
    """A file's bytes, or why there are none."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as e:
        return FileError(f"cannot read: {e.strerror or e}")


def decode_source(data: bytes) -> Decoded | FileError:
    """The decoded source, or why there is none.

    Honours a PEP 263 coding cookie and a UTF-8 BOM; refuses binary files (NUL bytes).
    """
    if b"\0" in data:
        return FileError("binary file (contains NUL bytes), not checked")
    cookie_problem: str | None = None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as e:  # a bad coding cookie, or bad UTF-8 in the first two lines
        encoding, cookie_problem = "utf-8", e.msg
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as e:
        name = "UTF-8" if encoding.startswith("utf-8") else encoding
        return FileError(f"not valid {name} (byte {e.start}: {e.reason}), not checked",
                         _byte_span(data, e.start, encoding))
    if cookie_problem is not None:
        return FileError(f"cannot decode: {cookie_problem}, not checked")
    return Decoded(text, encoding)


def _byte_span(data: bytes, offset: int, encoding: str) -> Span:
    """The position of the byte at `offset` (its column counts the characters before it)."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    col = len(data[line_start:offset].decode(encoding, errors="replace"))
    line = data.count(b"\n", 0, offset)
    return Span(line, col, line, col + 1)


def _load(task: Task, data: bytes) -> Source | FileError | None:
    """The file's code; FileError when it has none to check; None for a notebook in
    another language than Python."""
    decoded = decode_source(data)
    if isinstance(decoded, FileError):
        return decoded
    text, encoding = decoded.text, decoded.encoding
    if not is_notebook(task.path):
        return Source(text, text, encoding)
    try:
        notebook = read_notebook(text)
    except NotebookError as e:
        return FileError(str(e))
    if notebook is None:
        return None
    return Source(notebook.text, text, encoding, notebook)


def syntax_error(text: str) -> Finding | None:
    """The first syntax error of `text` as an E999 finding, or None.

    The analysis's own block parser goes first: it caches the trees the analysis then
    uses, so a file that parses costs no second parse.  Only a failed block leads to
    parsing the whole text (for Python's message and position).
    """
    if all(block.tree is not None for block in split_blocks(text)):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # invalid escapes and the like: not ours to say
            ast.parse(text)
    except SyntaxError as e:
        line, col = max((e.lineno or 1) - 1, 0), max((e.offset or 1) - 1, 0)
        return Finding(SYNTAX_ERROR, "error", f"SyntaxError: {e.msg}", Span(line, col, line, col))
    except (ValueError, RecursionError, MemoryError):
        pass
    return None


_workspaces: dict[tuple, Workspace] = {}   # one per project, in each worker process
_GROWTH = GrowthWatch()                     # this worker process's frozen garbage


def _workspace(task: Task) -> Workspace:
    """One workspace per process and settings: modules read for one file serve the next."""
    key = (task.roots, task.interpreter)
    ws = _workspaces.get(key)
    if ws is None:
        ws = _workspaces[key] = Workspace(task.roots, task.interpreter)
    return ws


def _analyze(text: str, task: Task) -> list[Finding]:
    with frozen_after():
        findings = analyze_source(text, task.path, _workspace(task))
    _GROWTH.reclaim_when_grown()
    return _wanted(task, findings)


def _wanted(task: Task, findings: list[Finding]) -> list[Finding]:
    select = list(task.select) if task.select is not None else None
    return [f for f in findings if selected(f.code, select, list(task.ignore))]


def _file_error(task: Task, result: FileResult, error: FileError) -> FileResult:
    result.items = [formats.Reported(result.path, f) for f in _wanted(task, [error.finding()])]
    return result


def check_file(task: Task) -> FileResult:
    """Read, prefilter, analyse (and with `fix` or `diff`, fix) one file.  Never raises."""
    result = FileResult(display(task.path))
    data = task.data if task.data is not None else read_bytes(task.path)
    if isinstance(data, FileError):
        return _file_error(task, result, data)
    source = _load(task, data)
    if isinstance(source, FileError):
        return _file_error(task, result, source)
    if source is None:
        result.checked, result.note = False, "not a Python notebook, not checked"
        return result
    syntax = syntax_error(source.text)
    if syntax is not None:
        result.items = _reported(result.path, _wanted(task, [syntax]), source)
        return result
    if not _CANDIDATE.search(data):
        return result
    try:
        findings = _analyze(source.text, task)
        if (task.fix or task.diff) and findings:
            source, findings = _fix(task, source, findings, result)
        result.items = _reported(result.path, findings, source)
    except Exception as e:  # noqa: BLE001 - an analysis bug must not hide other files' results
        result.items = []
        result.error = f"internal error while analysing: {type(e).__name__}: {e}"
    return result


# ---------------------------------------------------------------------------------------
# fixes

def _fixes(findings: list[Finding], lines: list[str], unsafe: bool,
           sound: Callable[[Finding, Fix], bool] | None) -> list[tuple[Finding, Fix]]:
    """The findings `--fix` applies a fix to now, with the fix."""
    out = []
    for f in findings:
        fix = auto_fix(f, lines, unsafe, sound)
        if fix is not None:
            out.append((f, fix))
    return out


def _apply_fixes(task: Task, text: str, findings: list[Finding]) -> tuple[str, list[Finding], list[str]]:
    """Apply the index fixes (a few passes, re-analysing after each) to parsable `text`.

    Returns (new text, findings left, codes of the fixes applied).  A pass that would make
    the text unparsable is not applied.
    """
    applied: list[str] = []
    for _ in range(_FIX_PASSES):
        lines = split_lines(text)
        # a choice is applied only where it leaves no finding behind
        sound = ChoiceCheck(text, findings, lambda t: _analyze(t, task)).sound if task.unsafe_fixes else None
        chosen = _fixes(findings, lines, task.unsafe_fixes, sound)
        edits = fix_all_edits([f for f, _ in chosen], lines, task.unsafe_fixes, sound)
        if not edits:
            break
        new_text = apply_edits(text, edits)
        if syntax_error(new_text) is not None:
            break
        kept = set(edits)
        applied += [f.code for f, fix in chosen if fix.edits[0] in kept]
        text = new_text
        findings = _analyze(text, task)
    return text, findings, applied


def _fix(task: Task, source: Source, findings: list[Finding],
         result: FileResult) -> tuple[Source, list[Finding]]:
    """Fix the file (`task.fix`) or say how as a diff (`task.diff`); returns what is
    left to report."""
    text, left, applied = _apply_fixes(task, source.text, findings)
    new_file = source.file_text(text) if applied else None
    if new_file is None:
        if applied:
            result.note = "the fixes change the notebook's lines: not applied"
        return source, findings
    if task.diff:
        result.applied = applied
        result.diff = "".join(difflib.unified_diff(
            _diff_lines(source.raw), _diff_lines(new_file), f"a/{result.path}", f"b/{result.path}"))
        return source, findings
    try:
        _write(task.path, new_file, source.encoding)
    except OSError as e:
        unwritten = FileError(f"cannot write the fixes: {e.strerror or e}").finding()
        return source, [*_wanted(task, [unwritten]), *findings]
    result.applied = applied
    return replace(source, text=text), left


def _diff_lines(text: str) -> list[str]:
    lines = split_lines(text)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def _write(path: str, text: str, encoding: str) -> None:
    """Replace a file's contents atomically, keeping its permissions."""
    tmp = f"{path}.pallas-lsp-fix.tmp"
    with open(tmp, "w", encoding=encoding, newline="") as fh:
        fh.write(text)
    try:
        os.chmod(tmp, os.stat(path).st_mode & 0o7777)
    except OSError:
        pass
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------
# what is reported

def _reported(path: str, findings: list[Finding], source: Source) -> list[formats.Reported]:
    lines = split_lines(source.text)
    out = []
    for f in findings:
        fix = auto_fix(f, lines, unsafe=True)   # shown: the fix --fix applies, or the choice it could
        text = lines[f.span.line] if 0 <= f.span.line < len(lines) else ""
        if source.notebook is None:
            out.append(formats.Reported(path, f, fix, source=text))
        else:
            out.append(_in_cell(formats.Reported(path, f, fix, source=text), source.notebook))
    return out


def _in_cell(r: formats.Reported, nb: NotebookSource) -> formats.Reported:
    """`r` with its positions relative to the notebook cells holding them."""
    where = nb.locate(r.finding.span)
    if where is None:
        return r
    cell, span = where
    related, cells = [], []
    for rel in r.finding.related:
        at = nb.locate(rel.span) if rel.path is None else None
        related.append(replace(rel, span=at[1] if at else rel.span, message=nb.message(rel.message)))
        cells.append(at[0] if at else None)
    finding = replace(r.finding, span=span, message=nb.message(r.finding.message),
                      related=tuple(related))
    return replace(r, finding=finding, fix=_fix_in_cell(r.fix, nb, cell), cell=cell,
                   related_cells=tuple(cells))


def _fix_in_cell(fix: Fix | None, nb: NotebookSource, cell: int) -> Fix | None:
    if fix is None:
        return None
    edits = []
    for e in fix.edits:
        at = nb.locate(e.span)
        if at is None or at[0] != cell:
            return None
        edits.append(replace(e, span=at[1]))
    return replace(fix, edits=tuple(edits))
