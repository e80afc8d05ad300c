"""What the editor shows of array values: one note per place a value is named (hover),
and the assignments among them (inlay hints).

A place can be reached by several runs: a kernel run for each call of its wrapper, and
the wrapper's own run with arguments nobody gave.  A value that only generalises
another one (`?[bm, bk]` beside `bf16[128, 512]`) adds nothing; the others are joined
(a kernel called with two block sizes shows `f32[?, 128]`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..findings import Span
from ..report import loc_span
from ..values import Loc
from .domain import NamedValue
from .dtypes import is_float
from .shapes import ArrayV, join_arrays


@dataclass(unsafe_hash=True)
class ValueNote:
    """An array value at a place of the document."""

    span: Span
    text: str               # the expression's source text
    value: ArrayV
    hinted: bool            # assigned in a kernel body: an inlay hint goes after it

    @property
    def label(self) -> str:
        return self.value.text()

    def describe(self) -> str:
        """Markdown for hover."""
        dtype = self.value.dtype
        if dtype is None or not dtype.weak:
            return f"`{self.text}`: `{self.label}`"
        scalar = "float" if is_float(dtype) else "int"
        return f"`{self.text}`: `{self.label}` (weakly typed: it takes the other operand's dtype, as a Python " \
               f"{scalar} does)"


def generalises(a: ArrayV, b: ArrayV) -> bool:
    """Whether every array `b` describes is one `a` describes (`a` knows less)."""
    if a.dtype is not None and a.dtype != b.dtype:
        return False
    if a.shape is None:
        return True
    if b.shape is None or len(a.shape) != len(b.shape):
        return False
    return all(not isinstance(x, int) or x == y for x, y in zip(a.shape, b.shape))


def merged(values: list[ArrayV]) -> ArrayV:
    """The value shown for a place several runs reached."""
    distinct = list(dict.fromkeys(values))
    # dropped: a value another one knows strictly more of (two that generalise each other,
    # `?[bm]` and `?[bn]`, are both kept and joined)
    kept = [v for v in distinct if not any(w != v and generalises(v, w) and not generalises(w, v) for w in distinct)]
    out = kept[0]
    for v in kept[1:]:
        out = join_arrays(out, v)
    return out


def _is_assignment_target(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)


def value_notes(views: list, live: set) -> list[ValueNote]:
    """One note per place an array value is named in the blocks still `live`, in
    document order (`views`: the `NamedValue` records of every entry's runs)."""
    found: dict[tuple, list] = {}
    in_kernel: set[tuple] = set()
    for view in views:
        if type(view) is NamedValue and view.block in live:
            key = (view.block, view.node)
            found.setdefault(key, []).append(view.array)
            if view.in_kernel:
                in_kernel.add(key)
    notes = []
    for (block, node), values in found.items():
        span = loc_span(Loc(block, node))
        hinted = (block, node) in in_kernel and _is_assignment_target(node)
        notes.append(ValueNote(span, block.segment(node), merged(values), hinted))
    notes.sort(key=lambda n: (n.span.line, n.span.col, n.span.end_line, n.span.end_col))
    return notes


def note_at(notes: list[ValueNote], line: int, col: int) -> ValueNote | None:
    """The innermost note whose one-line span holds (line, col)."""
    best = None
    for n in notes:
        s = n.span
        if s.line == line == s.end_line and s.col <= col <= s.end_col:
            if best is None or s.end_col - s.col < best.span.end_col - best.span.col:
                best = n
    return best
