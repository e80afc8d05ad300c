"""Findings of the rules beyond the semaphore shape (the call contract, the protocol)
before they get document positions: like `checks.RawFinding`, a cached finding stays
right when lines are inserted above it."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .findings import Finding, Related, Replacement, Span, Suggestion
from .records import record
from .rules import RULES
from .values import Loc


def loc_span(loc: Loc) -> Span:
    """The document span of `loc`'s node (its block's offset and columns applied)."""
    b, n = loc.block, loc.node
    l0, l1 = n.lineno - 1, n.end_lineno - 1
    return Span(b.start + l0, b.col(l0, n.col_offset), b.start + l1, b.col(l1, n.end_col_offset))


def header_span(loc: Loc) -> Span:
    """A def's `def name` (not its whole body); other nodes: the node."""
    node = loc.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return loc_span(loc)
    b = loc.block
    l0 = node.lineno - 1
    line = b.line(l0)
    start = line.find(f"def {node.name}")
    if start < 0:
        return loc_span(loc)
    return Span(b.start + l0, start, b.start + l0, start + len("def ") + len(node.name))


@record
class ContractNote:
    """A place that explains a contract finding (the pallas_call, the grid, ...)."""

    at: Loc
    message: str


@record
class Edit:
    """Replace the text of `at`'s node with `text`, or insert `text` right after it."""

    at: Loc
    text: str
    insert_after: bool = False
    insert_before: bool = False

    def replacement(self) -> Replacement:
        span = loc_span(self.at)
        if self.insert_after:
            span = Span(span.end_line, span.end_col, span.end_line, span.end_col)
        elif self.insert_before:
            span = Span(span.line, span.col, span.line, span.col)
        return Replacement(span, self.text)


@record
class ContractSuggestion:
    title: str
    edits: tuple[Edit, ...]
    safe: bool = False


@dataclass(eq=False)
class ContractFinding:
    code: str
    at: Loc
    message: str
    notes: tuple[ContractNote, ...] = ()
    suggestions: tuple[ContractSuggestion, ...] = ()
    severity: str | None = None      # None: the rule's

    def position_key(self) -> tuple:
        return (self.at.block.start, *(n.at.block.start for n in self.notes),
                *(e.at.block.start for s in self.suggestions for e in s.edits))

    def to_finding(self) -> Finding:
        rule = RULES[self.code]
        related = tuple(Related(loc_span(n.at), n.message, n.at.path) for n in self.notes)
        suggestions = tuple(Suggestion(s.title, tuple(e.replacement() for e in s.edits), s.safe)
                            for s in self.suggestions if all(e.at.path is None for e in s.edits))
        return Finding(self.code, self.severity or rule.severity, self.message, header_span(self.at), (), related, None,
                       suggestions)
