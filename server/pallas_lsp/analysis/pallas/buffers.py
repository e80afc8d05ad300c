"""The array refs a kernel gets (scratch buffers, input and output blocks), their views
(`ref.at[...]`), and rule PAL305: a DMA whose source and destination differ in shape or
element type.

A ref's shape is known from the front: a whole input array of unknown shape is `open`,
and `x_hbm.at[pl.ds(i, 8)]` is then (8, ...).  Mosaic's verifier (`tpu.enqueue_dma`)
wants the same element type and exactly the same shape on both sides; the rule speaks
where the known dims already differ.  (JAX's TPU interpreter on a CPU catches only a
source shorter than its destination, or another dtype: it truncates a longer source.)
"""

from __future__ import annotations

import ast
import math
from typing import Any

from ..arrays.dtypes import by_name
from ..arrays.shapes import ArrayV
from ..arrays.values import ArrayValue, dtype_attribute
from ..contract.layout import RefRole, kernel_signature, refs_of
from ..interp.frame import Context, Evaluator, Frame
from ..report import ContractFinding, ContractNote
from ..values import SCALAR, UNKNOWN, Loc, shape_text
from .indexing import IndexKind, IndexPart, index_parts, view_dims
from .ref_index import check_index
from .values import ArraySpecV, BlockSpecV, BufferRef, PallasCall

# The dtype names JAX spells the same in `jnp`, `np` and `jax.numpy`.
_DTYPES = frozenset({
    "float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
    "uint32", "uint64", "bool_", "float8_e4m3fn", "float8_e5m2", "float8_e4m3b11fnuz", "int4", "uint4",
})
_DTYPE_MODULES = ("jnp.", "np.", "jax.numpy.", "numpy.")


def dtype_name(text: str | None) -> str | None:
    """`jnp.float32` -> "float32"; None for anything else (a variable, `x.dtype`)."""
    if text is None:
        return None
    for prefix in _DTYPE_MODULES:
        if text.startswith(prefix) and text[len(prefix):] in _DTYPES:
            return text[len(prefix):]
    return None


# Bits per element, for the byte counts a DMA signals (int4 and the like: not counted).
_BITS = {"float32": 32, "float16": 16, "bfloat16": 16, "float64": 64, "int8": 8, "int16": 16, "int32": 32,
         "int64": 64, "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64, "bool_": 8, "float8_e4m3fn": 8,
         "float8_e5m2": 8, "float8_e4m3b11fnuz": 8}


def copy_bytes(src: Any, dst: Any) -> int | None:
    """The bytes a DMA moves, which is what its start signals and its wait waits for
    (JAX's TPU interpreter counts DMA semaphores in bytes): from the source, or from the
    destination when only its shape is static."""
    for buf in (src, dst):
        if isinstance(buf, BufferRef) and not buf.open and buf.dtype in _BITS \
                and all(type(d) is int for d in buf.dims):
            return math.prod(buf.dims) * _BITS[buf.dtype] // 8
    return None


def _length(dim: Any) -> Any:
    """A declared length: an int, the name it is spelled by (`bm`), else "?"."""
    return dim if type(dim) is int or isinstance(dim, str) and dim.isidentifier() else "?"


def _static_dims(shape: tuple | None) -> tuple | None:
    """A declared shape with its named lengths, "?" for others (None: rank unknown)."""
    return None if shape is None else tuple(_length(d) for d in shape)


def array_spec_of(value: Any) -> Any:
    """An array a driver passes (`jnp.ones((8, 128), jnp.bfloat16)`) as the spec of its
    shape and dtype, as `jax.ShapeDtypeStruct` gives one (other values unchanged)."""
    if not isinstance(value, ArrayValue):
        return value
    array = value.array
    dtype = f"jnp.{dtype_attribute(array.dtype)}" if array.dtype is not None else None
    return ArraySpecV(array.shape, dtype, None, value.origin)


def array_of_spec(spec: ArraySpecV) -> Any:
    """The array a `pallas_call` returns for an `out_shape` entry (UNKNOWN when even its
    rank is not given)."""
    dims = _static_dims(spec.shape)
    if dims is None:
        return UNKNOWN
    name = dtype_name(spec.dtype)
    return ArrayValue(ArrayV(dims, by_name(name) if name is not None else None), spec.loc)


def scratch_buffer(value: Any) -> Any:
    """What the kernel gets for a scratch type that is not a semaphore: a buffer ref for
    `pltpu.VMEM(shape, dtype)` and the other memory spaces, else UNKNOWN."""
    if not isinstance(value, ArraySpecV) or value.space is None:
        return UNKNOWN
    dims = _static_dims(value.shape)
    return UNKNOWN if dims is None else BufferRef(dims, False, dtype_name(value.dtype), value.loc, value.space)


def block_buffer(array: Any, spec: Any, whole: bool, prefetch: bool = False) -> Any:
    """The ref of an input or output: its block when `spec` gives a static block shape,
    the whole array when the spec gives none (or `whole`: no specs given at all); a
    scalar-prefetch operand (`prefetch`) is whole, in SMEM."""
    array = array if isinstance(array, ArraySpecV) else None
    dtype = dtype_name(array.dtype) if array is not None else None
    space = "SMEM" if prefetch else _block_space(spec)
    if isinstance(spec, BlockSpecV) and spec.block_shape is not None:
        if any(isinstance(d, str) and "(" in d for d in spec.block_shape):
            return UNKNOWN   # `pl.Squeezed()`, `pl.Element(n)`, a call: the rank is not static
        return BufferRef(tuple(_length(d) for d in spec.block_shape if d is not None), False, dtype, spec.loc, space)
    if not (whole or isinstance(spec, BlockSpecV)):
        return UNKNOWN
    dims = _static_dims(array.shape) if array is not None else None
    decl = array.loc if array is not None else None
    return BufferRef((), True, dtype, decl, space) if dims is None else BufferRef(dims, False, dtype, decl, space)


def _block_space(spec: Any) -> str | None:
    """Where a TPU kernel's block lives: VMEM unless its spec places it elsewhere."""
    return spec.memory_space or "VMEM" if isinstance(spec, BlockSpecV) else "VMEM"


# --------------------------------------------------------------------------- views

def view(ev: Evaluator, buf: BufferRef, slice_node: ast.expr, frame: Frame) -> Any:
    """`buf.at[...]`: the view's shape as far as it is known."""
    elts = slice_node.elts if isinstance(slice_node, ast.Tuple) else [slice_node]
    parts = index_parts(ev, elts, frame)
    if parts is None:
        return UNKNOWN
    if buf.open:
        dims = _open_view(buf.dims, parts)
        return UNKNOWN if dims is None else BufferRef(dims, True, buf.dtype, buf.decl, buf.space, True)
    dims = view_dims(buf.dims, parts)
    return UNKNOWN if dims is None else BufferRef(dims, False, buf.dtype, buf.decl, buf.space, True)


def _open_view(dims: tuple, parts: list[IndexPart]) -> tuple | None:
    """The known leading dims of a view of an array whose rank is unknown (None: `...`
    makes the positions unknown)."""
    if any(p.kind is IndexKind.ELLIPSIS for p in parts):
        return None
    padded = tuple(dims) + ("?",) * max(0, len(parts) - len(dims))
    head = view_dims(padded[:len(parts)], parts)
    return None if head is None else head + tuple(padded[len(parts):])


def read(ev: Evaluator, buf: BufferRef, node: ast.Subscript, frame: Frame) -> Any:
    """`ref[...]`: the value loaded, an array of the indexed dims and the ref's dtype;
    one element (`idx_ref[i]`, rank 0) is a number, as an index wants it."""
    elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    parts = index_parts(ev, elts, frame)
    if parts is None:
        return UNKNOWN
    check_index(ev, buf, node, parts, frame)
    dtype = by_name(buf.dtype) if buf.dtype is not None else None
    if buf.open:
        if len(parts) == 1 and parts[0].kind is IndexKind.DROP:
            return SCALAR
        head = _open_view(buf.dims, parts)
        return ArrayValue(ArrayV(None, dtype)) if head is not None else UNKNOWN
    dims = view_dims(buf.dims, parts)
    if dims is None:
        return UNKNOWN
    if not dims and dtype is None:
        return SCALAR
    return ArrayValue(ArrayV(dims, dtype))


# --------------------------------------------------------------------------- the rule

def shapes_differ(src: BufferRef, dst: BufferRef) -> bool:
    """Whether two refs' shapes differ whatever their unknown parts are."""
    if any(a != b and type(a) is int and type(b) is int for a, b in zip(src.dims, dst.dims)):
        return True
    if src.open and dst.open:
        return False
    if src.open or dst.open:   # an open side has at least as many dims as it knows
        known, closed = (src, dst) if src.open else (dst, src)
        return len(known.dims) > len(closed.dims)
    return len(src.dims) != len(dst.dims)


def _describe(buf: BufferRef) -> str:
    shape = shape_text(buf.dims)
    if buf.open:
        shape = shape[:-1].rstrip(",") + (", ...)" if buf.dims else "...)")
    return f"{shape} {buf.dtype}" if buf.dtype else shape


def check_copy(ctx: Context, src: Any, dst: Any, src_at: Loc | None, dst_at: Loc | None, at: Loc | None) -> None:
    """PAL305 at the DMA call `at` when its source and destination cannot match (Mosaic
    checks the element type first)."""
    if ctx.silent or at is None or at.path is not None or not isinstance(src, BufferRef) \
            or not isinstance(dst, BufferRef):
        return
    dtype_bad = src.dtype is not None and dst.dtype is not None and src.dtype != dst.dtype
    if not dtype_bad and not shapes_differ(src, dst):
        return
    src_text = src_at.block.segment(src_at.node) if src_at is not None else "the source"
    dst_text = dst_at.block.segment(dst_at.node) if dst_at is not None else "the destination"
    head = "DMA source and target element type mismatch" if dtype_bad else "DMA source and target shape mismatch"
    tail = ": a DMA copies bytes, it does not convert; copy into a buffer of the source's dtype and cast the " \
           "loaded value." if dtype_bad else ": a DMA copies a block as it is; make both sides the same shape."
    message = f"{head}: `{src_text}` is {_describe(src)}, `{dst_text}` is {_describe(dst)}{tail}"
    notes = tuple(ContractNote(b.decl, f"the {side} is declared here") for side, b in
                  (("source", src), ("destination", dst)) if b.decl is not None and b.decl.path is None)
    ctx.rule_findings.append(ContractFinding("PAL305", at, message, notes))


# --------------------------------------------------------------------------- a kernel's refs

def io_buffers(record: PallasCall) -> tuple[list, list] | None:
    """The refs a pallas_call's kernel gets for its inputs and its outputs, in order
    (UNKNOWN where not static); None when their number is unknown, or when the kernel's
    parameters do not take them (JAX raises before it runs the body: PAL101)."""
    refs = refs_of(record)[0]
    if refs is None:
        return None
    sig = kernel_signature(record.kernel)
    if sig is not None and (sig.overfilled(len(refs)) or sig.conflicts(len(refs)) or sig.unfilled(len(refs))):
        return None
    inputs = [block_buffer(r.array, r.spec, record.in_specs is None) for r in refs if r.role is RefRole.INPUT]
    outputs = [block_buffer(r.array, r.spec, record.out_specs is None) for r in refs if r.role is RefRole.OUTPUT]
    return inputs, outputs
