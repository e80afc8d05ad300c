"""PAL405's choice for operands that do not broadcast because a reduction dropped its axis
(`x - jnp.mean(x, axis=-1)`): `keepdims=True` on that reduction, offered where the shape it
would then have broadcasts with the other operands (a choice: the reduction's value may
have other uses that want the axis gone)."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from ..report import ContractSuggestion, Edit
from ..values import Loc
from .shapes import ArrayV, Rejected, broadcast, normalize_axis

# The reductions that take `axis` and `keepdims`, as functions (`jnp.sum(x, axis=...)`)
# and as methods (`x.sum(axis=...)`).
_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "prod", "var", "std", "any", "all", "argmax", "argmin",
                         "amax", "amin", "logsumexp"})


def keepdims_choice(operands: Sequence[tuple[ArrayV, Loc | None]]) -> ContractSuggestion | None:
    """`keepdims=True` on the one operand made by a reduction over a literal axis, where
    putting the axis back (size 1) makes every operand broadcast."""
    for index, (array, origin) in enumerate(operands):
        call = origin.node if origin is not None and origin.path is None else None
        axis = _reduced_axis(call)
        if axis is None or array.shape is None or origin is None:
            continue
        kept = _with_axis(tuple(array.shape), axis)
        others = [a.shape for i, (a, _) in enumerate(operands) if i != index]
        if kept is None or isinstance(broadcast(kept, *others), (Rejected, type(None))):
            continue
        assert isinstance(call, ast.Call)
        last = max([*call.args, *(k.value for k in call.keywords)],
                   key=lambda n: (n.end_lineno or 0, n.end_col_offset or 0))
        at = Loc(origin.block, last, origin.path)
        name = origin.block.segment(call.func)
        return ContractSuggestion(f"Keep the reduced axis: `{name}(..., keepdims=True)`",
                                  (Edit(at, ", keepdims=True", insert_after=True),))
    return None


def _reduced_axis(call: ast.AST | None) -> int | None:
    """The literal `axis=` of a reduction call without `keepdims`, else None."""
    if not isinstance(call, ast.Call):
        return None
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    keywords = {k.arg: k.value for k in call.keywords}
    if name not in _REDUCTIONS or "keepdims" in keywords:
        return None
    axis = keywords.get("axis")
    if axis is None:
        return None
    value = axis.operand.value if isinstance(axis, ast.UnaryOp) and isinstance(axis.op, ast.USub) \
        and isinstance(axis.operand, ast.Constant) else axis.value if isinstance(axis, ast.Constant) else None
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    return -value if isinstance(axis, ast.UnaryOp) else value


def _with_axis(shape: tuple, axis: int) -> tuple | None:
    """`shape` with a dimension of 1 put back at `axis` (of the rank before reducing)."""
    position = normalize_axis(axis, len(shape) + 1)
    if isinstance(position, Rejected):
        return None
    return (*shape[:position], 1, *shape[position:])
