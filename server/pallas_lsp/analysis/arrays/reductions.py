"""Reductions over axes (`sum`, `max`, `mean`, `argmax`, `any`, `logsumexp`, ...),
`cumsum`, and the normalisations `softmax` / `log_softmax`.

Axes are an int, a tuple of ints or None (all); negative axes count from the end.  As
JAX 0.10.2 does, a reduction drops the weak flag of its operand.
"""

from __future__ import annotations

from collections.abc import Callable

from .args import Bound, Py, as_bool, as_dtype, as_ints, is_none
from .dtypes import BOOL, INT32, DType, is_bool, is_signed, is_unsigned, strong, to_inexact
from .rules import DTypeResult, DTypeRule, ShapeResult, ShapeRule, operand
from .shapes import Rejected, Shape, normalize_axis

_UNSUPPORTED = ("out", "where", "initial", "b")


def _understood(bound: Bound) -> bool:
    """Optional arguments the model does not follow must be absent."""
    sign = bound.values.get("return_sign", Py(False))
    if not (isinstance(sign, Py) and type(sign.value) in (bool, int, float) and not sign.value):   # False, 0
        return False
    return all(is_none(bound.values.get(name, Py(None))) for name in _UNSUPPORTED)


def reduced_axes(shape: Shape, axis: object) -> tuple[int, ...] | Rejected | None:
    """The normalised axes of an `axis` argument; None when not understood."""
    if isinstance(axis, Py) and axis.value is None:
        return tuple(range(len(shape)))
    axes = as_ints(axis) if isinstance(axis, Py) else None
    if axes is None:
        return None
    normalized: list[int] = []
    for a in axes:
        n = normalize_axis(a, len(shape))
        if isinstance(n, Rejected):
            return n
        normalized.append(n)
    if len(set(normalized)) != len(normalized):
        return None
    return tuple(normalized)


def reduce_shape(keepdims_default: bool = False, single_axis: bool = False,
                 indexes_shape: bool = False) -> ShapeRule:
    """The shape after reducing `a` over `axis` (kept as 1s with `keepdims`).

    `indexes_shape`: the function reads `a.shape[axis]` before checking the axis, so an
    axis out of range raises IndexError (`mean`, `argmax`)."""

    def rule(bound: Bound) -> ShapeResult:
        a = operand(bound, "a")
        keep_arg = bound.values.get("keepdims", Py(keepdims_default))
        keepdims = False if is_none(keep_arg) else as_bool(keep_arg)
        if a is None or a.shape is None or keepdims is None or not _understood(bound):
            return None
        axis = bound["axis"]
        if single_axis and not (is_none(axis) or isinstance(axis, Py)
                                and isinstance(axis.value, int)):
            return None
        axes = reduced_axes(a.shape, axis)
        if isinstance(axes, Rejected) and indexes_shape:
            return Rejected("tuple index out of range")
        if not isinstance(axes, tuple):
            return axes
        if keepdims:
            return tuple(1 if i in axes else d for i, d in enumerate(a.shape))
        return tuple(d for i, d in enumerate(a.shape) if i not in axes)

    return rule


def same_shape_checked_axis(bound: Bound) -> ShapeResult:
    """Shape kept (`softmax`, `cumsum` with an axis); the axis must be in range."""
    a = operand(bound, "a")
    if a is None or a.shape is None or not _understood(bound):
        return None
    axes = reduced_axes(a.shape, bound["axis"])
    if not isinstance(axes, tuple):
        return None
    return a.shape


def cumulative_shape(bound: Bound) -> ShapeResult:
    """`cumsum`: with `axis=None` the operand is flattened first."""
    a = operand(bound, "a")
    if a is None or a.shape is None:
        return None
    if not is_none(bound["axis"]):
        single = isinstance(bound["axis"], Py) and isinstance(bound["axis"].value, int)
        return same_shape_checked_axis(bound) if single else None
    size = 1
    for d in a.shape:
        if not isinstance(d, int):
            return ("?",)
        size *= d
    return (size,)


def sum_family(dtype: DType) -> DType:
    """`sum` / `prod` / `cumsum`: bool and narrow ints accumulate at 32 bits."""
    if is_bool(dtype):
        return INT32
    if (is_signed(dtype) or is_unsigned(dtype)) and dtype.name not in ("int32", "uint32"):
        return DType("uint32" if is_unsigned(dtype) else "int32")
    return strong(dtype)


def cumsum_family(dtype: DType) -> DType:
    return INT32 if is_bool(dtype) else strong(dtype)


def inexact_family(dtype: DType) -> DType | None:
    result = to_inexact(dtype)
    return None if result is None else strong(result)


def same_dtype(dtype: DType) -> DType:
    return dtype


def same_shape(bound: Bound) -> ShapeResult:
    a = operand(bound, "a")
    return None if a is None else a.shape


def same_shape_of(name: str) -> ShapeRule:
    return lambda bound: _shape_of(bound, name)


def same_dtype_of(name: str) -> DTypeRule:
    """The named operand's dtype, weak flag included."""
    def rule(bound: Bound) -> DTypeResult:
        array = operand(bound, name)
        return None if array is None else array.dtype
    return rule


def _shape_of(bound: Bound, name: str) -> ShapeResult:
    array = operand(bound, name)
    return None if array is None else array.shape


def reduce_dtype(family: Callable[[DType], DType | None], explicit: bool = False,
                 name: str = "a") -> DTypeRule:
    """`family` of the operand's dtype; with `explicit`, a `dtype=` argument wins."""

    def rule(bound: Bound) -> DTypeResult:
        a = operand(bound, name)
        if a is None or a.dtype is None or not _understood(bound):
            return None
        if explicit and not is_none(bound["dtype"]):
            return as_dtype(bound["dtype"])
        return family(a.dtype)

    return rule


def softmax_dtype(bound: Bound) -> DTypeResult:
    a = operand(bound, "a")
    if a is None or a.dtype is None:
        return None
    if is_bool(a.dtype):
        return Rejected("sub does not accept dtype bool at position 0. Accepted dtypes at "
                        "position 0 are subtypes of integer, floating, complexfloating.")
    return inexact_family(a.dtype)


def fixed(dtype: DType) -> DTypeRule:
    return lambda bound: dtype if operand(bound, "a") is not None else None


TO_BOOL: DTypeRule = fixed(BOOL)
TO_INT32: DTypeRule = fixed(INT32)
