"""Quick fixes as pure text edits, built from a `Finding` and the document's lines.

No protocol types here: the server turns `Fix` into LSP code actions (converting columns
to the client's encoding), the CLI's `--fix` applies `fix_all_edits` with `apply_edits`.

Coordinates are those of `findings.Span`: 0-based lines, 0-based columns in code points.
Lines are split the way LSP does it (`\\n`, `\\r\\n`, `\\r`): see `split_lines`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Sequence


from .findings import Finding, Span
from .pallas.derived import INDEX_KEEPER_WORDS
from .pallas.indexing import indexed_text, trailing_at_bracket
from .records import record
from .suppression import parse_noqa

QUICKFIX = "quickfix"

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@record
class TextEdit:
    """Replace the text at `span` with `new_text` (an empty span inserts)."""

    span: Span
    new_text: str


@record
class Fix:
    """One code action: a title, its kind, the rule it fixes and its edits."""

    title: str
    kind: str
    code: str
    edits: tuple[TextEdit, ...]
    preferred: bool = False
    safe: bool = True   # False: `pallas-lsp check --fix` applies it only with --unsafe-fixes


def split_lines(text: str) -> list[str]:
    """The lines of `text` with their endings kept, split on `\\n`, `\\r\\n` and `\\r` only.

    (`str.splitlines` also splits on form feeds and other separators, which LSP does not.)
    Text that ends with a line break gets no trailing empty line, like `splitlines`.
    """
    lines = []
    pos = 0
    for m in _LINE_BREAK.finditer(text):
        lines.append(text[pos:m.end()])
        pos = m.end()
    if pos < len(text):
        lines.append(text[pos:])
    return lines


def _content(line: str) -> str:
    """A line without its line ending."""
    return line.rstrip("\r\n")


def text_at(lines: Sequence[str], span: Span) -> str | None:
    """The document text covered by `span`, or None when the span is outside the document."""
    if not (0 <= span.line <= span.end_line < len(lines)):
        return None
    first, last = _content(lines[span.line]), _content(lines[span.end_line])
    if span.col > len(first) or span.end_col > len(last):
        return None
    if span.line == span.end_line:
        if span.end_col < span.col:
            return None
        return first[span.col:span.end_col]
    middle = "".join(lines[span.line + 1:span.end_line])
    return lines[span.line][span.col:] + middle + last[:span.end_col]


# ---------------------------------------------------------------------------------------
# (a) index the semaphore

_SLICE_ASSIGNMENT = re.compile(
    r"^[ \t]*([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=[ \t]*(?:\w+\.)*(?:"
    + "|".join(sorted(INDEX_KEEPER_WORDS)) + r")\(", re.MULTILINE
)


def slice_names(lines: Sequence[str]) -> frozenset[str]:
    """Names the document assigns a slice to (`rows = pl.ds(i, 8)`, `s = slice(0, 2)`)."""
    return frozenset(_SLICE_ASSIGNMENT.findall("".join(lines)))


def index_fixes(finding: Finding, lines: Sequence[str]) -> list[Fix]:
    """(a) Replace the semaphore expression with an indexed view of it.

    One safe fix (preferred) when the index is certain; otherwise one fix per plausible
    index, each titled as a choice, none preferred nor safe.  Empty when there is no fix
    data, no index, or the document no longer holds the text the finding was made on
    (stale data).
    """
    fix = finding.fix
    if fix is None or not fix.index:
        return []
    span = finding.span
    base = fix.sem_text
    if text_at(lines, span) != base:
        return []
    slices = slice_names(lines) if trailing_at_bracket(base) is not None else frozenset()
    if fix.safe:
        new_text = indexed_text(base, fix.index, slices)
        return [Fix(title=f"Index the semaphore: `{new_text}`", kind=QUICKFIX, code=finding.code,
                    edits=(TextEdit(span, new_text),), preferred=True)]
    out = []
    for index in (fix.index, *fix.alternatives):
        new_text = indexed_text(base, index, slices)
        out.append(Fix(title=f"Index the semaphore (choice): `{new_text}`", kind=QUICKFIX,
                       code=finding.code, edits=(TextEdit(span, new_text),), safe=False))
    return out


def auto_fix(finding: Finding, lines: Sequence[str], unsafe: bool = False,
             sound: Callable[[Finding, Fix], bool] | None = None) -> Fix | None:
    """The fix `check --fix` and *Fix all* apply: the safe index fix or a safe suggestion
    of the analysis (a contract fix); with `unsafe` (`--unsafe-fixes`), else the first
    choice that `sound` accepts (`choices.ChoiceCheck.sound`).  None when there is none."""
    found = index_fixes(finding, lines) + suggestion_fixes(finding, lines)
    safe = next((f for f in found if f.safe), None)
    if safe is not None or not unsafe:
        return safe
    return next((f for f in found if sound is None or sound(finding, f)), None)


# ---------------------------------------------------------------------------------------
# (b) assertion guard

def guard_statement(target: str, indent: str) -> str | None:
    """The assertion line (with its newline) that a semaphore is a single one.

    The message is an f-string showing the actual shape; when the target's text would not
    fit in an f-string on every Python >= 3.10 (quotes of both kinds, backslashes), the
    message is a plain string.  None when the target spans lines.
    """
    if "\n" in target or "\r" in target:
        return None
    target = target.strip()
    literal = target.replace("{", "{{").replace("}", "}}")
    if "\\" in target or ('"' in target and "'" in target):
        message = repr(f"{target} must be one semaphore (shape ())")
    else:
        q = "'" if '"' in target else '"'
        message = f"f{q}{literal} must be one semaphore, got shape {{{target}.shape}}{q}"
    return f"{indent}assert {target}.shape == (), {message}\n"


_CLAUSE = re.compile(r"[ \t]*(?:else|elif|except|finally)\b")


def guard_fix(finding: Finding, lines: Sequence[str]) -> Fix | None:
    """(b) Insert `assert <sem>.shape == (), ...` on its own line above the statement.

    Not offered where a line cannot go: above `else: call(sems)` (or elif/except/finally),
    or after a line ending in a `\\` continuation.
    """
    fix = finding.fix
    if fix is None or not fix.guard_target or not (0 <= fix.guard_line < len(lines)):
        return None
    if _CLAUSE.match(lines[fix.guard_line]):
        return None
    if fix.guard_line > 0 and _content(lines[fix.guard_line - 1]).rstrip().endswith("\\"):
        return None
    statement = guard_statement(fix.guard_target, fix.guard_indent)
    if statement is None:
        return None
    at = Span(fix.guard_line, 0, fix.guard_line, 0)
    return Fix(
        title=f"Assert that `{fix.guard_target.strip()}` is a single semaphore",
        kind=QUICKFIX,
        code=finding.code,
        edits=(TextEdit(at, statement),),
    )


# ---------------------------------------------------------------------------------------
# (c) declare a single semaphore

def scalar_decl_fix(finding: Finding, lines: Sequence[str]) -> Fix | None:
    """(c) Replace a `(1,)`-shaped declaration with a single semaphore."""
    fix = finding.fix
    if fix is None or fix.scalar_decl is None or not fix.scalar_decl_text:
        return None
    if text_at(lines, fix.scalar_decl) is None:
        return None
    return Fix(
        title="Declare a single semaphore instead of a (1,) array",
        kind=QUICKFIX,
        code=finding.code,
        edits=(TextEdit(fix.scalar_decl, fix.scalar_decl_text),),
    )


# ---------------------------------------------------------------------------------------
# (d) noqa

def noqa_fix(finding: Finding, lines: Sequence[str]) -> Fix | None:
    """(d) Add `# noqa: CODE` to the finding's line, merging into an existing directive.

    None when the line already suppresses the code, or ends with a `\\` continuation
    (a comment there would break the code).
    """
    line_no = finding.span.line
    if not (0 <= line_no < len(lines)):
        return None
    content = _content(lines[line_no])
    code = finding.code
    directive = parse_noqa(content)
    if directive is not None:
        if directive.suppresses(code):
            return None
        at = Span(line_no, directive.end, line_no, directive.end)
        edit = TextEdit(at, f", {code}")
    else:
        body = content.rstrip()
        if body.endswith("\\"):
            return None
        edit = TextEdit(Span(line_no, len(body), line_no, len(content)), f"  # noqa: {code}")
    return Fix(
        title=f"Suppress {code} on this line (# noqa)",
        kind=QUICKFIX,
        code=code,
        edits=(edit,),
    )


def suggestion_fixes(finding: Finding, lines: Sequence[str]) -> list[Fix]:
    """The analysis's own suggestions (contract rules), each still applicable to `lines`."""
    out = []
    for s in finding.suggestions:
        if any(text_at(lines, r.span) is None for r in s.replacements):
            continue
        out.append(Fix(title=s.title, kind=QUICKFIX, code=finding.code,
                       edits=tuple(TextEdit(r.span, r.text) for r in s.replacements),
                       preferred=s.safe, safe=s.safe))
    return out


def fixes_for(finding: Finding, lines: Sequence[str]) -> list[Fix]:
    """Every fix offered for one finding: the index fix (or its choices) first."""
    found = index_fixes(finding, lines)
    found += [f for f in (build(finding, lines) for build in (guard_fix, scalar_decl_fix)) if f is not None]
    found += suggestion_fixes(finding, lines)
    noqa = noqa_fix(finding, lines)
    return found + ([noqa] if noqa is not None else [])


# ---------------------------------------------------------------------------------------
# fix all + applying edits

def _overlaps(a: Span, b: Span) -> bool:
    """Whether two spans (sorted, `a` first) share text; touching spans do not overlap."""
    return (b.line, b.col) < (a.end_line, a.end_col)


def fix_all_edits(findings: Iterable[Finding], lines: Sequence[str], unsafe: bool = False,
                  sound: Callable[[Finding, Fix], bool] | None = None) -> list[TextEdit]:
    """The fix `auto_fix` picks for every finding that has one, in document order.

    When two edits overlap (e.g. the same expression reported twice), the first is kept.
    """
    edits: list[TextEdit] = []
    for finding in findings:
        fix = auto_fix(finding, lines, unsafe, sound)
        if fix is not None:
            edits.extend(fix.edits)
    edits.sort(key=lambda e: (e.span.line, e.span.col, e.span.end_line, e.span.end_col))
    kept: list[TextEdit] = []
    for edit in edits:
        if kept and (kept[-1].span == edit.span or _overlaps(kept[-1].span, edit.span)):
            continue
        kept.append(edit)
    return kept


def apply_edits(text: str, edits: Iterable[TextEdit]) -> str:
    """`text` with `edits` applied (positions refer to the original text).

    A column past the end of its line means the line's end, a line past the end of the
    text means the end of the text (as in LSP).  Overlapping edits raise ValueError;
    insertions at the same position are applied in the order given.
    """
    lines = split_lines(text)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, col: int) -> int:
        if line < 0 or col < 0:
            raise ValueError(f"negative position in edit: line {line}, column {col}")
        if line >= len(lines):
            return len(text)
        return starts[line] + min(col, len(_content(lines[line])))

    ranges = []
    for order, e in enumerate(edits):
        start = offset(e.span.line, e.span.col)
        end = offset(e.span.end_line, e.span.end_col)
        if end < start:
            raise ValueError(f"edit ends before it starts: {e.span}")
        ranges.append((start, end, order, e.new_text))
    ranges.sort()
    for (_, end1, _, _), (start2, _, _, _) in itertools.pairwise(ranges):
        if start2 < end1:
            raise ValueError("overlapping edits")
    out = []
    pos = 0
    for start, end, _, new_text in ranges:
        out.append(text[pos:start])
        out.append(new_text)
        pos = end
    out.append(text[pos:])
    return "".join(out)
