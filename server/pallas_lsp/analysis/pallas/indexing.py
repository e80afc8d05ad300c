"""`ref.at[...]`: JAX's rule for which indices drop a dimension and which keep it.

An integer (or any scalar) drops its dimension; a slice, an index keeper (`pl.ds`,
`pl.dslice`, `pl.Slice`, `slice`) or `...` keeps it.  The same rule serves the
interpreter (on abstract values), the fixes and the messages (on source text):
`keeps_dimension` is the one answer to "does this index keep a dimension"."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeGuard

from ..interp.frame import Evaluator, Frame
from ..values import SCALAR, UNKNOWN, Const, Seq, SliceV
from ..arrays.values import float_scalar_type, is_index_scalar
from .derived import INDEX_KEEPER_WORDS
from .sems import Sem


def is_at(node: object) -> TypeGuard[ast.Subscript]:
    """`X.at[...]`."""
    return (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
            and node.value.attr == "at")


def at_base(node: ast.Subscript) -> ast.expr:
    """The `X` of `X.at[...]`."""
    assert isinstance(node.value, ast.Attribute)
    return node.value.value


def index_elts(node: ast.Subscript) -> list[ast.expr]:
    s = node.slice
    return list(s.elts) if isinstance(s, ast.Tuple) else [s]


class IndexKind(Enum):
    DROP = "drop"          # an integer or scalar
    KEEP = "keep"          # a slice or index keeper: the dimension stays, maybe shorter
    ELLIPSIS = "ellipsis"  # `...`: as many full dimensions as are not indexed


@dataclass(unsafe_hash=True)
class IndexPart:
    kind: IndexKind
    size: int | None = None                 # a keeper's static length (`pl.ds(i, 2)`)
    bounds: tuple | None = None             # a literal slice's static (lower, upper, step)
    full: bool = False                      # a bare `:`
    value: int | None = None                # a dropping index's static value
    start: int | None = None                # a keeper's static start and stride (`pl.ds(3, 8)`)
    stride: int | None = 1
    floating: str | None = None             # a traced float scalar's (or a keeper's start's) type, "f32"

    def __init__(self, kind: IndexKind, size: int | None = None, bounds: tuple | None = None, full: bool = False,
                 value: int | None = None, start: int | None = None, stride: int | None = 1,
                 floating: str | None = None) -> None:   # native (`records`)
        self.kind = kind
        self.size = size
        self.bounds = bounds
        self.full = full
        self.value = value
        self.start = start
        self.stride = stride
        self.floating = floating


def keeps_dimension(part: IndexPart) -> bool:
    return part.kind is not IndexKind.DROP


def part_of_syntax(node: ast.expr, slice_names: frozenset[str] = frozenset()) -> IndexPart:
    """What an index expression does, read from its text alone (no values): for fixes.
    `slice_names`: variables known to hold a slice.  Unknown names count as scalars."""
    if isinstance(node, ast.Slice):
        return IndexPart(IndexKind.KEEP, full=node.lower is None and node.upper is None and node.step is None)
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return IndexPart(IndexKind.ELLIPSIS)
    if isinstance(node, ast.Starred):
        return IndexPart(IndexKind.KEEP)
    if isinstance(node, ast.Name) and node.id in slice_names:
        return IndexPart(IndexKind.KEEP)
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in INDEX_KEEPER_WORDS:
            return IndexPart(IndexKind.KEEP)
    return IndexPart(IndexKind.DROP)


def _part_of_value(v: Any) -> IndexPart | None:
    if isinstance(v, Const) and v.value is Ellipsis:
        return IndexPart(IndexKind.ELLIPSIS)
    if isinstance(v, SliceV):
        return IndexPart(IndexKind.KEEP, v.size, v.bounds, start=v.start, stride=v.stride, floating=v.float_start)
    if v is SCALAR or (isinstance(v, Const) and type(v.value) in (int, bool)) or is_index_scalar(v):
        return IndexPart(IndexKind.DROP, value=v.value if isinstance(v, Const) and type(v.value) is int else None)
    floating = float_scalar_type(v)
    return IndexPart(IndexKind.DROP, floating=floating) if floating else None


def index_parts(ev: Evaluator, elts: list[ast.expr], frame: Frame, strict: bool = False) -> list[IndexPart] | None:
    """The index parts of `.at[e1, e2, ...]`, or None when how many dims they take is unknown
    (`strict`: also when some item's kind is not known, rather than taking it for an integer)."""
    parts: list[IndexPart] = []
    for e in elts:
        if isinstance(e, ast.Slice):
            if e.lower is None and e.upper is None and e.step is None:
                parts.append(IndexPart(IndexKind.KEEP, full=True))
                continue
            bounds = [ev.eval(p, frame) if p is not None else Const(None) for p in (e.lower, e.upper, e.step)]
            ok = all(isinstance(b, Const) and (b.value is None or type(b.value) is int) for b in bounds)
            parts.append(IndexPart(IndexKind.KEEP, bounds=tuple(b.value for b in bounds) if ok else None))
            continue
        if isinstance(e, ast.Starred):
            return None
        v = ev.eval(e, frame)
        part = _part_of_value(v)
        if part is not None:
            parts.append(part)
        elif isinstance(v, Seq):  # an index tuple held in a variable
            items = [_part_of_value(item) for item in v.items]
            if strict and None in items:
                return None
            parts.extend(p or IndexPart(IndexKind.DROP) for p in items)
        elif len(elts) > 1 and not strict:
            parts.append(IndexPart(IndexKind.DROP))
        else:
            # A lone index of unknown kind may be a tuple (`divmod(...)`): how many
            # dimensions it takes is unknown, so is the result.
            return None
    return parts


def index_sem(ev: Evaluator, sem: Sem, slice_node: ast.expr, frame: Frame) -> Any:
    """`sem.at[...]`: the view's shape.  Chains compose because the result is a Sem."""
    elts = slice_node.elts if isinstance(slice_node, ast.Tuple) else [slice_node]
    parts = index_parts(ev, elts, frame)
    if parts is None:
        return UNKNOWN
    if sem.decl is not None:
        ev.ctx.indexed_decls.add(id(sem.decl.node))
    if sem.sites:
        ev.ctx.indexed_sites.add(id(sem.sites[-1]))  # the helper it is in indexes it
    if sem.dims is None:
        return UNKNOWN  # the rank depends on the path: so does the result
    new_dims = view_dims(sem.dims, parts)
    if new_dims is None:
        return UNKNOWN   # JAX rejects it; not this rule's business
    return Sem(sem.kind, new_dims, sem.decl, sem.sites,
               sem.scalar_decl if not new_dims or new_dims == sem.dims else None, _element(sem, elts, parts))


def _element(sem: Sem, elts: list[ast.expr], parts: list[IndexPart]) -> tuple | None:
    """The static integer indices of `sem.at[...]` appended to `sem`'s (None once one is
    not static: the view could be any element)."""
    if sem.element is None or len(parts) != len(elts) or any(p.value is None for p in parts):
        return None
    return (*sem.element, *(p.value for p in parts))


def view_dims(dims: tuple, parts: list[IndexPart]) -> tuple | None:
    """The dims of a view of an array of `dims` indexed by `parts` (None: an invalid index)."""
    rank = len(dims)
    n_ellipsis = sum(p.kind is IndexKind.ELLIPSIS for p in parts)
    explicit = len(parts) - n_ellipsis
    if n_ellipsis > 1 or explicit > rank:
        return None
    out: list = []
    pos = 0
    for p in parts:
        if p.kind is IndexKind.ELLIPSIS:
            span = rank - explicit
            out.extend(dims[pos:pos + span])
            pos += span
        elif p.kind is IndexKind.KEEP:
            out.append(_kept_length(dims[pos], p))
            pos += 1
        else:
            pos += 1
    out.extend(dims[pos:])
    return tuple(out)


def _kept_length(d: Any, p: IndexPart) -> Any:
    if p.full:
        return d
    size = p.size
    if p.bounds is not None and type(d) is int and d < 1 << 20:
        size = len(range(d)[slice(*p.bounds)])
    return size if size is not None else "?"


# --------------------------------------------------------------------------- on source text

def trailing_at_bracket(base: str) -> int | None:
    """If `base` ends with `.at[...]`, the position of that `[`; else None."""
    text = base.rstrip()
    if not text.endswith("]"):
        return None
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if ch in ")]}":
            depth += 1
        elif ch in "([{":
            depth -= 1
            if depth == 0:
                if ch == "[" and text[:i].rstrip().endswith(".at"):
                    return i
                return None
    return None


def _keeps_dimension(index_text: str, slices: frozenset[str] = frozenset()) -> bool:
    """Whether an `.at[...]` index list holds an index that keeps its dimension (a slice,
    an index keeper such as `pl.ds` / `pl.dslice`, `...`, or a name in `slices`: a
    variable holding a slice), by JAX's rule (`pallas.indexing`).

    Those keep a dimension, so more indices cannot simply be appended after them.
    Unparsable text counts as keeping one (the safe answer: chain instead of append).
    """
    try:
        node = ast.parse(f"x[{index_text}]", mode="eval").body
    except SyntaxError:
        return True
    assert isinstance(node, ast.Subscript)
    elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return any(keeps_dimension(part_of_syntax(e, slices)) for e in elts)


def _needs_parens(base: str) -> bool:
    """Whether `base.at[...]` would bind wrongly without parentheses (`a if c else b`)."""
    try:
        node = ast.parse(base.strip(), mode="eval").body
    except SyntaxError:
        try:  # a multi-line expression: fine inside parentheses
            ast.parse(f"({base})", mode="eval")
        except SyntaxError:
            return False
        return True
    return not isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call))


def indexed_text(base: str, index: Sequence[str], slices: frozenset[str] = frozenset()) -> str:
    """`base` indexed with `index`: `sems` -> `sems.at[slot]`; `sems.at[i]` -> `sems.at[i, 0]`.

    Indices are appended into a trailing `.at[...]` only when that one holds integer-like
    indices; after a slice (`sems.at[0:2]`, or `sems.at[rows]` where `rows` is one of the
    names in `slices`) a new `.at[...]` is chained instead.
    """
    joined = ", ".join(index)
    bracket = trailing_at_bracket(base)
    stripped = base.rstrip()
    if bracket is not None:
        inner = stripped[bracket + 1:-1]
        if inner.strip() and not _keeps_dimension(inner, slices):
            sep = "" if inner.rstrip().endswith(",") else ","
            return f"{stripped[:-1].rstrip()}{sep} {joined}]"
        return f"{stripped}.at[{joined}]"
    if _needs_parens(base):
        return f"({base.strip()}).at[{joined}]"
    return f"{base.strip()}.at[{joined}]"
