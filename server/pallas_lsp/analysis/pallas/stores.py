"""Rules PAL401 and PAL402: a value stored into an array ref (`o_ref[...] = acc`,
`ref[idx] = v`, `ref[...] += x`) that JAX rejects when it traces the kernel
(`jax._src.state.primitives._swap_abstract_eval`: the shape first, then the dtype).

Before it checks, `=` converts only two kinds of value (`_maybe_implicit_cast`): a weakly
typed float (a Python float) into a float ref, and any integer into an integer ref.  It
never broadcasts, not even a scalar; `+=` loads, adds (broadcasting, promoting) and
stores the sum.  Each rule speaks only where both sides are fully known.

Rule PAL408: past the trace, the TPU lowering stores only vectors into VMEM (a block, a
`pltpu.VMEM` scratch): one element (`o_ref[0, 0] = 1.5`) is rejected; SMEM takes it."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from ..arrays.args import python_scalar_array
from ..arrays.findings import reportable
from ..arrays.refs import stored_ref
from ..arrays.dtypes import DType, by_name, is_float, is_integer
from ..arrays.shapes import ArrayV, is_static, text
from ..arrays.values import ArrayValue
from ..interp.frame import Evaluator, Frame
from ..report import ContractFinding, ContractNote, ContractSuggestion, Edit
from ..values import Const, shape_text
from .indexing import index_parts, view_dims
from .ref_index import check_index
from .values import BufferRef

# Augmented operators whose result has the ref's dtype once the operand has it.
_CLOSED_OPS = (ast.Add, ast.Sub, ast.Mult)
# Values that need no parentheses before `.astype(...)`.
_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)


@dataclass(unsafe_hash=True)
class Store:
    """One store statement, as the rules describe it."""

    node: ast.Subscript        # the target, `o_ref[...]`
    stmt: ast.AST | None       # the statement (`=` or `op=`)
    ref_text: str              # `o_ref`
    value_text: str            # the stored value (`acc`; for `op=`, `o_ref[...] + x`)


def _value_array(value: Any) -> ArrayV | None:
    if isinstance(value, ArrayValue):
        return value.array
    if isinstance(value, Const) and type(value.value) in (bool, int, float):
        return python_scalar_array(value.value)
    return None


def stored_dtype(ref: DType, value: DType) -> DType:
    """The dtype `=` stores: JAX casts a weak float into a float ref and any integer into
    an integer ref, and nothing else."""
    if is_integer(ref) and is_integer(value) or value.weak and is_float(ref) and is_float(value):
        return ref
    return DType(value.name)


def check_store(ev: Evaluator, buf: BufferRef, node: ast.Subscript, value: Any, frame: Frame) -> None:
    """PAL402 / PAL401 at `node` when the stored value cannot fit the indexed ref (JAX's
    trace), else PAL408 for a scalar stored into VMEM (the TPU lowering)."""
    if frame.path is not None or ev.ctx.silent:
        return
    if isinstance(value, BufferRef) and not value.view and reportable(ev, frame):
        stmt = frame.stmt
        stored_ref(ev, frame, node, value, stmt.value if isinstance(stmt, ast.Assign) else None)
        return
    if buf.open:
        return
    array = _value_array(value)
    elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    parts = index_parts(ev, elts, frame, strict=True)
    if parts is not None:
        check_index(ev, buf, node, parts, frame)
    if array is None or parts is None:
        return
    expected = view_dims(buf.dims, parts)
    if expected is None or not is_static(expected) or array.shape is None or not is_static(array.shape):
        return
    store = _describe_store(frame, node)
    if tuple(array.shape) != tuple(expected):
        message = (f"Invalid shape for `swap`. Ref shape: {shape_text(buf.dims)}. Expected shape: "
                   f"{shape_text(expected)}. Value shape: {shape_text(array.shape)}. — `{store.value_text}` is "
                   f"{text(array)}, `{store.ref_text}[{frame.block.segment(node.slice)}]` takes {shape_text(expected)}; "
                   "a store does not broadcast: give the value the ref's shape, or index the ref.")
        _report(ev, frame, "PAL402", store, buf, message, ())
        return
    ref_dtype = by_name(buf.dtype) if buf.dtype is not None else None
    stored = stored_dtype(ref_dtype, array.dtype) if ref_dtype is not None and array.dtype is not None else None
    if ref_dtype is not None and stored is not None and stored != ref_dtype:
        message = (f"Invalid dtype for `swap`. Ref dtype: {ref_dtype.name}. Value dtype: {stored.name}. "
                   f"— `{store.value_text}` is {text(array)}; `{store.ref_text}` is "
                   f"{text(ArrayV(tuple(buf.dims), ref_dtype))}; a store does not convert: "
                   f"{_advice(store, value, ref_dtype)}.")
        _report(ev, frame, "PAL401", store, buf, message, _cast_fix(ev, frame, store, value))
    elif not expected and buf.dims and buf.space == "VMEM" and reportable(ev, frame):
        _scalar_store(ev, frame, store, buf, array, ref_dtype)


def _scalar_store(ev: Evaluator, frame: Frame, store: Store, buf: BufferRef, array: ArrayV,
                  ref_dtype: DType | None) -> None:
    """PAL408: one element stored into a VMEM ref; the TPU lowering stores only vectors
    there (SMEM takes scalars)."""
    seg = frame.block.segment
    elts = store.node.slice.elts if isinstance(store.node.slice, ast.Tuple) else [store.node.slice]
    ones = "(" + ", ".join("1" for _ in buf.dims) + ("," if len(buf.dims) == 1 else "") + ")"
    sliced = f"{store.ref_text}[{', '.join(_one_wide(e, seg(e)) for e in elts)}]"
    value = f"{text(array)}" if array.dtype is not None else "a scalar"
    message = (f"Cannot store scalars to VMEM — `{store.ref_text}[{seg(store.node.slice)}]` is one element of "
               f"`{store.ref_text}`, a VMEM ref {text(ArrayV(tuple(buf.dims), ref_dtype))}, and "
               f"`{store.value_text}` is {value}: the TPU stores vectors into VMEM; store a slice "
               f"(`{sliced} = jnp.full({ones}, v, {store.ref_text}.dtype)`), or keep the scalar in an SMEM ref.")
    _report(ev, frame, "PAL408", store, buf, message, ())


def _one_wide(elt: ast.expr, text_: str) -> str:
    """An integer index as a slice of size 1 (`0` -> `0:1`, `r` -> `r:r + 1`)."""
    if isinstance(elt, ast.Constant) and type(elt.value) is int:
        return f"{elt.value}:{elt.value + 1}"
    if isinstance(elt, ast.Name):
        return f"{text_}:{text_} + 1"
    return text_ if isinstance(elt, ast.Slice) or text_ == "..." else f"pl.ds({text_}, 1)"


def _advice(store: Store, value: Any, ref: DType) -> str:
    if isinstance(value, Const):
        return f"write a float (`{float(value.value)!r}`)" if is_float(ref) and type(value.value) is int else \
            f"store `jnp.asarray({store.value_text}, {store.ref_text}.dtype)`"
    return f"cast the value (`.astype({store.ref_text}.dtype)`)"


def _describe_store(frame: Frame, node: ast.Subscript) -> Store:
    stmt = frame.stmt
    seg = frame.block.segment
    ref_text = seg(node.value)
    if isinstance(stmt, ast.AugAssign) and stmt.target is node:
        op = _OP_TEXT.get(type(stmt.op), "?")
        return Store(node, stmt, ref_text, f"{seg(node)} {op} {seg(stmt.value)}")
    if isinstance(stmt, ast.Assign) and node in stmt.targets:
        return Store(node, stmt, ref_text, seg(stmt.value))
    return Store(node, None, ref_text, "the value")


_OP_TEXT = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
            ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
            ast.MatMult: "@"}


def _cast_fix(ev: Evaluator, frame: Frame, store: Store, value: Any) -> tuple[ContractSuggestion, ...]:
    """`.astype(o_ref.dtype)` on the stored array (on the operand of `+=`, `-=`, `*=`):
    certain, as its shape already fits."""
    stmt = store.stmt
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, _CLOSED_OPS):
        operand = stmt.value
        value = ev.eval(operand, frame)
    elif isinstance(stmt, ast.Assign):
        operand = stmt.value
    else:
        return ()
    if not isinstance(value, ArrayValue):
        return ()
    seg = frame.block.segment(operand)
    if not isinstance(operand, _ATOMS):
        seg = f"({seg})"
    cast = f"{seg}.astype({store.ref_text}.dtype)"
    return (ContractSuggestion(f"Cast the stored value: {cast}", (Edit(frame.loc(operand), cast),), safe=True),)


def _report(ev: Evaluator, frame: Frame, code: str, store: Store, buf: BufferRef, message: str,
            suggestions: tuple[ContractSuggestion, ...]) -> None:
    notes = (ContractNote(buf.decl, f"`{store.ref_text}` is declared here"),) \
        if buf.decl is not None and buf.decl.path is None else ()
    ev.ctx.rule_findings.append(ContractFinding(code, frame.loc(store.node), message, notes, suggestions))
