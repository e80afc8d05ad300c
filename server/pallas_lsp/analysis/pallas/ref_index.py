"""Rule PAL406: an index JAX rejects when a kernel reads or stores a ref
(`jax._src.state.indexing.NDIndexer`): more indices than the ref has dimensions, and a
`pl.ds` with a static non-zero start that ends past its dimension (`pl.ds(0, n)` is not
checked, nor are Python slices).

Rule PAL409 (its index half): a traced float scalar as an index or a `pl.ds` start, which
the trace accepts and the TPU lowering cannot cast to an index."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..arrays.findings import add_once, reportable
from ..interp.frame import Evaluator, Frame
from ..report import ContractFinding, ContractNote
from ..values import shape_text
from .indexing import IndexKind, IndexPart
from .values import BufferRef


def check_index(ev: Evaluator, buf: BufferRef, node: ast.Subscript, parts: list[IndexPart], frame: Frame) -> None:
    """PAL406 at `node` (`ref[...]` read or stored) when JAX rejects its index."""
    if buf.open or not reportable(ev, frame):
        return
    seg = frame.block.segment
    ref, rank = seg(node.value), len(buf.dims)
    explicit = sum(p.kind is not IndexKind.ELLIPSIS for p in parts)
    if explicit > rank:
        _report(ev, frame, node, buf, f"`indices` must not be longer than `shape`: shape={shape_text(buf.dims)} — "
                f"`{ref}[{seg(node.slice)}]` gives {explicit} indices to a ref of rank {rank}.")
        return
    elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if len(elts) != len(parts):
        return   # an index tuple held in a variable: no text for each part
    for axis, part, elt in _placed(parts, rank, elts):
        words = _out_of_bound(part, buf.dims[axis])
        if words is not None:
            _report(ev, frame, node, buf, f"{words} — `{seg(elt)}` indexes dimension {axis} of `{ref}`, "
                    f"{shape_text(buf.dims)}.")
            return
        if part.floating:
            _float_index(ev, frame, node, buf, axis, elt, part.floating)
            return


def _float_index(ev: Evaluator, frame: Frame, node: ast.Subscript, buf: BufferRef, axis: int, elt: ast.expr,
                 dtype: str) -> None:
    """PAL409: a traced float as an index (or a `pl.ds` start): the TPU lowering casts it
    to an index, which only an integer can be."""
    seg = frame.block.segment
    start = elt.args[0] if isinstance(elt, ast.Call) and elt.args else None
    where = f"starts `{seg(elt)}`, which indexes" if start is not None else "indexes"
    message = ("'arith.index_cast' op operand #0 must be signless-non-zero-bitwidth-integer-like or memref of "
               f"signless-integer, but got '{dtype}' — `{seg(start or elt)}` is {dtype}[] and {where} dimension "
               f"{axis} of `{seg(node.value)}`: an index must be an integer (integer arithmetic, `//` rather than `/`, "
               "or `.astype(jnp.int32)`).")
    _report(ev, frame, node, buf, message, "PAL409")


def _placed(parts: list[IndexPart], rank: int, elts: list[ast.expr]) -> Iterator[tuple[int, IndexPart, ast.expr]]:
    """Each index with the dimension it indexes (`...` spans the ones not indexed)."""
    axis = 0
    explicit = sum(p.kind is not IndexKind.ELLIPSIS for p in parts)
    for part, elt in zip(parts, elts):
        if part.kind is IndexKind.ELLIPSIS:
            axis += rank - explicit
            continue
        yield axis, part, elt
        axis += 1


def _out_of_bound(part: IndexPart, dim: object) -> str | None:
    """JAX's words for a `pl.ds` past the end of `dim` (a start of 0 is not checked)."""
    start, size, stride = part.start, part.size, part.stride
    if part.kind is not IndexKind.KEEP or not start or type(dim) is not int or stride is None:
        return None
    if start >= dim:
        return f"Out of bound slice: start={start}, dim={dim}."
    if size and start + (size - 1) * stride >= dim:
        return f"Out of bound slice: start={start}, size={size}, stride={stride}, dim={dim}."
    return None


def _report(ev: Evaluator, frame: Frame, node: ast.Subscript, buf: BufferRef, message: str,
            code: str = "PAL406") -> None:
    ref = frame.block.segment(node.value)
    notes = (ContractNote(buf.decl, f"`{ref}` is declared here"),) if buf.decl is not None and buf.decl.path is None \
        else ()
    add_once(ev, ContractFinding(code, frame.loc(node), message, notes))
