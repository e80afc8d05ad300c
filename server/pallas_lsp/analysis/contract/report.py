"""Contract findings before they get document positions (like `checks.RawFinding`: a
cached finding stays right when lines are inserted above it)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..findings import Finding, Related, Span
from ..rules import RULES
from ..values import Loc


def loc_span(loc: Loc) -> Span:
    b, n = loc.block, loc.node
    l0, l1 = n.lineno - 1, n.end_lineno - 1  # type: ignore[attr-defined]
    return Span(b.start + l0, b.col(l0, n.col_offset), b.start + l1,  # type: ignore[attr-defined]
                b.col(l1, n.end_col_offset))  # type: ignore[attr-defined]


def header_span(loc: Loc) -> Span:
    """A def's `def name` (not its whole body); other nodes: the node."""
    node = loc.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return loc_span(loc)
    b = loc.block
    l0 = node.lineno - 1
    line = b.lines[l0] if l0 < len(b.lines) else ""
    start = line.find(f"def {node.name}")
    if start < 0:
        return loc_span(loc)
    return Span(b.start + l0, start, b.start + l0, start + len("def ") + len(node.name))


@dataclass(frozen=True)
class ContractNote:
    """A place that explains a contract finding (the pallas_call, the grid, ...)."""

    at: Loc
    message: str


@dataclass(eq=False)
class ContractFinding:
    code: str
    at: Loc
    message: str
    notes: tuple[ContractNote, ...] = ()

    def position_key(self) -> tuple:
        return (self.at.block.start, *(n.at.block.start for n in self.notes))

    def to_finding(self) -> Finding:
        rule = RULES[self.code]
        related = tuple(Related(loc_span(n.at), n.message, n.at.path) for n in self.notes)
        return Finding(self.code, rule.severity, self.message, header_span(self.at), (), related, None)
