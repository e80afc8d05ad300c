"""What the analysis reports: plain, immutable data with no protocol types.

Coordinates: `line` is 0-based; `col` is 0-based and counted in Unicode code points
(Python `str` indices), absolute in the analysed text.  The server converts them to the
client's position encoding (UTF-16 by default); the CLI prints them 1-based.
"""

from __future__ import annotations

from dataclasses import field

from .records import record


@record(order=True)
class Span:
    line: int
    col: int
    end_line: int
    end_col: int

    def shifted(self, lines: int) -> Span:
        return Span(self.line + lines, self.col, self.end_line + lines, self.end_col)


@record
class Related:
    """A place that explains a finding: the declaration, the helper that starts the DMA, ..."""

    span: Span
    message: str
    path: str | None = None  # None: the analysed document itself


@record
class FixData:
    """Everything `fixes.py` needs to build edits without re-analysing.

    It travels in `Diagnostic.data`, so it holds only JSON-friendly values.
    """

    sem_text: str                 # source text of the semaphore argument (at `Finding.span`)
    index: tuple[str, ...]        # index expressions that make it scalar, e.g. ("slot",) or ("0", "0");
                                  # the first choice when the index is not certain
    guard_line: int               # 0-based line of the statement holding the call (the guard goes above)
    guard_indent: str             # indentation of that statement
    guard_target: str             # expression the guard asserts on (usually == sem_text)
    scalar_decl: Span | None = None   # a `(1,)`-shaped declaration that can become a single semaphore
    scalar_decl_text: str | None = None  # its replacement text, e.g. "pltpu.SemaphoreType.DMA"
    safe: bool = True             # `index` is certain (`check --fix` applies it); else a choice
    alternatives: tuple[tuple[str, ...], ...] = ()  # the other choices, most plausible first


@record
class Replacement:
    """Replace the text at `span` with `text` (an empty span inserts)."""

    span: Span
    text: str


@record
class Suggestion:
    """A fix the analysis proposes with its edits.  `safe`: certain to be what the
    author means (`check --fix` applies it); otherwise one choice among others, offered
    in the editor and applied by the CLI only with `--unsafe-fixes`."""

    title: str
    replacements: tuple[Replacement, ...]
    safe: bool = False


@record
class Finding:
    code: str                     # rule code, e.g. "PAL001" (see rules.py)
    severity: str                 # "error" or "warning"
    message: str
    span: Span                    # the semaphore argument expression
    shape: tuple = ()             # the semaphore's shape as shown to the user
    related: tuple[Related, ...] = field(default=())
    fix: FixData | None = None
    suggestions: tuple[Suggestion, ...] = ()

    @property
    def key(self):
        return (self.span, self.code)


def _span_or_none(d):
    return Span(**d) if d else None


def finding_to_data(f: Finding) -> dict:
    """A JSON-friendly dict (for `Diagnostic.data` and the CLI's json format)."""
    from dataclasses import asdict

    d = asdict(f)
    d["shape"] = [s if isinstance(s, int) else str(s) for s in f.shape]
    return d


def finding_from_data(d: dict) -> Finding:
    fix = d.get("fix")
    if fix:
        fix = FixData(
            sem_text=fix["sem_text"],
            index=tuple(fix["index"]),
            guard_line=fix["guard_line"],
            guard_indent=fix["guard_indent"],
            guard_target=fix["guard_target"],
            scalar_decl=_span_or_none(fix.get("scalar_decl")),
            scalar_decl_text=fix.get("scalar_decl_text"),
            safe=fix.get("safe", True),
            alternatives=tuple(tuple(a) for a in fix.get("alternatives", ())),
        )
    return Finding(
        code=d["code"],
        severity=d["severity"],
        message=d["message"],
        span=Span(**d["span"]),
        shape=tuple(d.get("shape", ())),
        related=tuple(
            Related(Span(**r["span"]), r["message"], r.get("path")) for r in d.get("related", ())
        ),
        fix=fix,
        suggestions=tuple(
            Suggestion(s["title"], tuple(Replacement(Span(**r["span"]), r["text"]) for r in s["replacements"]),
                       s.get("safe", False))
            for s in d.get("suggestions", ())
        ),
    )
