"""Indexing an array value (`x[i]`, `x[:, None]`, `x[..., 1:3]`) and its properties.

An index is a `Py` (an int, None, `Ellipsis`, a slice `("slice", start, stop, step)` or a
tuple of these), a `Seq` of such items mixed with `OPAQUE` (a traced integer: it drops
its dim, as a static int does), or a 0-d integer `ArrayV`.  Static ints are not checked
against the length: JAX clamps them.
"""

from __future__ import annotations

from collections.abc import Sequence

from .args import Arg, Bound, DTypeArg, Opaque, Py, Seq, dims_arg
from .dtypes import DType, is_bool, is_float
from .rules import ShapeResult, operand
from .shapes import UNKNOWN_DIM, ArrayV, Dim, Rejected, Shape, size_of

_DROP, _NEW, _ELLIPSIS = "drop", "new", "ellipsis"


def _items(index: Arg) -> list[Arg] | None:
    if isinstance(index, Seq):
        return list(index.items)
    if isinstance(index, Py) and isinstance(index.value, tuple) and not _is_slice(index.value):
        return [Py(v) for v in index.value]
    return [index]


def _is_slice(value: object) -> bool:
    return isinstance(value, tuple) and len(value) == 4 and value[0] == "slice"


def _kind(item: Arg) -> str | tuple[object, ...] | None:
    """What one index item does: drop a dim, add one, fill (`...`), or slice."""
    if isinstance(item, Opaque):
        return _DROP
    if isinstance(item, ArrayV):
        scalar_int = item.shape == () and item.dtype is not None and not (
            is_float(item.dtype) or is_bool(item.dtype))
        return _DROP if scalar_int else None
    if not isinstance(item, Py):
        return None
    value = item.value
    if value is None:
        return _NEW
    if value is Ellipsis:
        return _ELLIPSIS
    if isinstance(value, int) and not isinstance(value, bool):
        return _DROP
    if _is_slice(value) and isinstance(value, tuple):
        return value[1:]
    return None


def _sliced(dim: Dim, bounds: tuple[object, ...]) -> Dim | None:
    start, stop, step = bounds
    if step == 0:
        return None
    if bounds == (None, None, None) or (bounds == (None, None, 1)):
        return dim
    if not isinstance(dim, int) or not all(
            b is None or (isinstance(b, int) and not isinstance(b, bool)) for b in bounds):
        return UNKNOWN_DIM
    return len(range(*slice(start, stop, step).indices(dim)))


def getitem_shape(bound: Bound) -> ShapeResult:
    x, items = operand(bound, "a"), _items(bound["index"])
    if x is None or x.shape is None or items is None:
        return None
    kinds = [_kind(item) for item in items]
    if any(k is None for k in kinds) or kinds.count(_ELLIPSIS) > 1:
        return None
    used = sum(1 for k in kinds if k not in (_NEW, _ELLIPSIS))
    if used > len(x.shape):
        return Rejected(f"Too many indices: array is {len(x.shape)}-dimensional, but "
                        f"{used} were indexed")
    if _ELLIPSIS not in kinds:
        kinds.append(_ELLIPSIS)
    return _index(x.shape, kinds, used)


def _index(shape: Shape, kinds: Sequence[object], used: int) -> ShapeResult:
    out: list[Dim] = []
    dims = iter(shape)
    for kind in kinds:
        if kind == _NEW:
            out.append(1)
        elif kind == _ELLIPSIS:
            out.extend(next(dims) for _ in range(len(shape) - used))
        elif kind == _DROP:
            next(dims)
        elif isinstance(kind, tuple):
            dim = _sliced(next(dims), kind)
            if dim is None:
                return None
            out.append(dim)
    return tuple(out)


def getitem_dtype(bound: Bound) -> DType | None:
    x = operand(bound, "a")
    return None if x is None else x.dtype


# ---- properties ------------------------------------------------------------------------

def shape_value(bound: Bound) -> Arg | None:
    x = operand(bound, "a")
    return None if x is None or x.shape is None else dims_arg(x.shape)


def dtype_value(bound: Bound) -> Arg | None:
    x = operand(bound, "a")
    return None if x is None or x.dtype is None else DTypeArg(DType(x.dtype.name))


def ndim_value(bound: Bound) -> Arg | None:
    x = operand(bound, "a")
    return None if x is None or x.shape is None else Py(len(x.shape))


def size_value(bound: Bound) -> Arg | None:
    x = operand(bound, "a")
    if x is None or x.shape is None:
        return None
    size = size_of(x.shape)
    return Py(size) if isinstance(size, int) else None
