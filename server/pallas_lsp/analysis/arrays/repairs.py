"""The quick fixes of the kernel-body operations: a 32-bit accumulator on a narrow matmul
(PAL404) and `keepdims=True` on a reduction that feeds a broadcast (PAL405).

A fix is safe where the changed value reaches only places that accept it (`uses.py`);
otherwise it is a choice, or, for PAL404, the accumulator is cast back to the narrow
dtype, which keeps every later dtype as it was."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from ..interp.frame import Evaluator, Frame
from ..interp.syntax import parents
from ..report import ContractSuggestion, Edit
from ..values import Api, Loc
from .dtypes import DType, is_integer
from .shapes import ArrayV, Shape, broadcast, is_static, normalize_axis
from .uses import Read, is_cast, reads
from .values import ArrayRef, dtype_attribute

# A read of the wide result: accepted as it is, broken by it, or not known.
_ACCEPTS, _BREAKS, _UNSURE = "accepts", "breaks", "unsure"
_ACCUMULATING = (ast.Add, ast.Sub)
# Reductions that take `keepdims`, as `jnp.<name>(x, axis)` or `x.<name>(axis)`.
_REDUCTIONS = frozenset({"sum", "max", "min", "mean", "prod", "var", "std", "any", "all", "amax", "amin",
                         "nansum", "nanmax", "nanmin", "nanmean", "argmax", "argmin"})


def accumulator_fixes(ev: Evaluator, frame: Frame, at: Loc, keywords: frozenset[str], narrow: DType,
                      wide: DType) -> tuple[ContractSuggestion, ...]:
    """`preferred_element_type=jnp.<wide>` on the matmul at `at` (`a @ b` becomes
    `jnp.matmul(a, b, ...)`): safe where every read of the result accepts the wide
    dtype; else the same cast back to `narrow` (safe: nothing after it changes), beside
    the plain one as a choice where no read is known to break."""
    jnp = _numpy_alias(ev, frame)
    if jnp is None or "preferred_element_type" in keywords:
        return ()
    keyword = f"preferred_element_type={jnp}.{dtype_attribute(wide)}"
    plain = _with_keyword(at, keyword, jnp, "")
    if plain is None:
        return ()
    fate = _fate(ev, frame, at.node, narrow, wide)
    title = f"Accumulate in {wide.name}: {keyword}"
    if fate == _ACCEPTS:
        return (ContractSuggestion(title, plain, safe=True),)
    cast = f".astype({jnp}.{dtype_attribute(narrow)})"
    combined = _with_keyword(at, keyword, jnp, cast)
    assert combined is not None
    out = [ContractSuggestion(f"{title}, cast back: `{cast[1:]}`", combined, safe=True)]
    if fate == _UNSURE:
        out.append(ContractSuggestion(f"{title} (choice: the result becomes {wide.name})", plain))
    return tuple(out)


def _fate(ev: Evaluator, frame: Frame, node: ast.AST, narrow: DType, wide: DType) -> str:
    """What every read of the matmul's value makes of a wide one."""
    found = reads(frame.scope, node) if isinstance(node, ast.expr) else None
    if not found:
        return _UNSURE
    up = parents(frame.scope) if frame.scope is not None else {}
    fates = {_read_fate(ev, frame, r, up, narrow, wide) for r in found}
    return _BREAKS if _BREAKS in fates else _UNSURE if _UNSURE in fates else _ACCEPTS


def _read_fate(ev: Evaluator, frame: Frame, read: Read, up: dict, narrow: DType, wide: DType) -> str:
    """A cast accepts it; a store into a ref (`acc_ref[...] += v`, `o_ref[...] = v`) accepts
    it where the ref holds the wide dtype (or, for `=`, any integer for an integer) and
    breaks it where the ref holds the narrow one; anything else is not known."""
    if is_cast(read, up):
        return _ACCEPTS
    stmt = read.parent
    target: ast.expr
    if isinstance(stmt, ast.AugAssign) and stmt.value is read.node and isinstance(stmt.op, _ACCUMULATING):
        target, assigning = stmt.target, False
    elif isinstance(stmt, ast.Assign) and stmt.value is read.node and len(stmt.targets) == 1:
        target, assigning = stmt.targets[0], True
    else:
        return _UNSURE
    ref = ev.lookup(target.value.id, frame) \
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) else None
    dtype = ref.dtype if isinstance(ref, ArrayRef) else None
    if dtype == wide.name or assigning and dtype is not None and is_integer(wide) and is_integer(DType(dtype)):
        return _ACCEPTS
    return _BREAKS if dtype == narrow.name else _UNSURE


def _with_keyword(at: Loc, keyword: str, jnp: str, cast: str) -> tuple[Edit, ...] | None:
    """`keyword` added to the call at `at` (and `cast` appended to it)."""
    node = at.node
    if isinstance(node, ast.BinOp):
        left, right = (at.block.segment(n) for n in (node.left, node.right))
        return (Edit(at, f"{jnp}.matmul({left}, {right}, {keyword}){cast}"),)
    if not isinstance(node, ast.Call):
        return None
    added = keyword_edit(at, node, keyword)
    if added is None:
        return None
    return (added, Edit(at, cast, insert_after=True)) if cast else (added,)


def keyword_edit(at: Loc, call: ast.Call, keyword: str) -> Edit | None:
    """`, keyword` inserted after the last argument of `call` (None without arguments)."""
    given: Sequence[ast.expr | ast.keyword] = [*call.args, *call.keywords]
    if not given:
        return None
    last = max(given, key=lambda n: (n.end_lineno or 0, n.end_col_offset or 0))
    return Edit(Loc(at.block, last, at.path), f", {keyword}", insert_after=True)


def _numpy_alias(ev: Evaluator, frame: Frame) -> str | None:
    """The name the code binds to `jax.numpy` (`jnp` by convention)."""
    value = ev.lookup("jnp", frame)
    return "jnp" if isinstance(value, Api) and value.qname == "jax.numpy" else None


def keepdims_fix(ev: Evaluator, frame: Frame, at: Loc, nodes: Sequence[ast.AST | None],
                 arrays: Sequence[ArrayV | None]) -> tuple[ContractSuggestion, ...]:
    """`keepdims=True` on the reduction that made one operand of a failed broadcast, where
    the reduced axes kept as 1s make the broadcast succeed: safe where that operand is
    the reduction's only read, else a choice (its other reads get the kept axes too)."""
    shapes = [a.shape for a in arrays if a is not None and a.shape is not None and is_static(a.shape)]
    if len(shapes) != len(arrays):
        return ()
    for i, node in enumerate(nodes):
        reduction = _reduction(frame, node)
        kept = _kept_shape(ev, frame, reduction, shapes[i]) if reduction is not None else None
        if kept is None or not isinstance(broadcast(*shapes[:i], kept, *shapes[i + 1:]), tuple):
            continue
        assert reduction is not None
        edit = keyword_edit(Loc(at.block, reduction, at.path), reduction, "keepdims=True")
        if edit is None:
            continue
        found = reads(frame.scope, reduction)
        safe = found is not None and [r.node for r in found] == [node]
        title = f"Keep the reduced axes: `keepdims=True` on `{at.block.segment(reduction)}`" \
            + ("" if safe else " (choice: its other uses too)")
        return (ContractSuggestion(title, (edit,), safe=safe),)
    return ()


def _reduction(frame: Frame, node: ast.AST | None) -> ast.Call | None:
    """The reduction call that made an operand: the operand itself, or the value of the
    one assignment of the name it reads."""
    if isinstance(node, ast.Name) and isinstance(frame.scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        assigned = [s for s in ast.walk(frame.scope) if isinstance(s, ast.Assign) and len(s.targets) == 1
                    and isinstance(s.targets[0], ast.Name) and s.targets[0].id == node.id]
        node = assigned[0].value if len(assigned) == 1 else None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) or node.func.attr not in _REDUCTIONS:
        return None
    return node if not any(k.arg == "keepdims" or k.arg is None for k in node.keywords) else None


def _kept_shape(ev: Evaluator, frame: Frame, call: ast.Call, reduced: Shape) -> Shape | None:
    """The shape `call` gives with `keepdims=True`, from the shape it gives without it."""
    assert isinstance(call.func, ast.Attribute)
    receiver = call.func.value
    library = isinstance(receiver, ast.Name) and isinstance(ev.lookup(receiver.id, frame), Api)
    position = 1 if library else 0
    axis = next((k.value for k in call.keywords if k.arg == "axis"), None)
    if axis is None and len(call.args) > position:
        axis = call.args[position]
    axes = _constant_axes(axis)
    if axes is None:
        return None
    rank = len(reduced) + len(axes)
    normalized = [normalize_axis(a, rank) for a in axes]
    if not all(isinstance(a, int) for a in normalized) or len(set(normalized)) != len(normalized):
        return None
    dims = iter(reduced)
    return tuple(1 if i in normalized else next(dims) for i in range(rank))


def _constant_axes(node: ast.expr | None) -> tuple[int, ...] | None:
    """`-1`, `1`, `(0, 2)` written as numbers."""
    items = node.elts if isinstance(node, ast.Tuple) else [node]
    out = []
    for item in items:
        try:
            value = ast.literal_eval(item) if item is not None else None
        except (ValueError, TypeError, SyntaxError):
            return None
        if type(value) is not int:
            return None
        out.append(value)
    return tuple(out) or None

