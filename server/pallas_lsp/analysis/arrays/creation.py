"""Arrays made from shapes and values: `zeros`, `full`, `*_like`, `arange`, `iota`,
`array` / `asarray` of scalars and arrays, dtype constructors (`jnp.float32(1.0)`), and
`finfo` / `iinfo` fields.

`jnp.finfo(t).min` is a NumPy scalar of dtype `t` (strong): the model gives it as
`apply("jax.numpy.finfo.min", [DTypeArg(t)], {})` -> `ArrayV((), t)`; `iinfo(t).min` /
`.max` are Python ints, given as `Py(value)` (weak when used as operands).
"""

from __future__ import annotations

import math

from .args import Arg, Bound, Py, as_array, as_dtype, as_shape, is_none
from .dtypes import FLOAT32, INT32, DType, bits, is_float, is_integer, is_unsigned
from .dtypes import by_name
from .rules import DTypeResult, DTypeRule, ShapeResult, ValueRule, operand
from .shapes import Shape, broadcast


def sizes(arg: Arg) -> Shape | None:
    """A shape argument whose static lengths are all valid (non-negative)."""
    shape = as_shape(arg)
    if shape is None or any(isinstance(d, int) and d < 0 for d in shape):
        return None
    return shape


def shape_argument(bound: Bound) -> ShapeResult:
    return sizes(bound["shape"])


def explicit_or(default: DType | None) -> DTypeRule:
    """The `dtype` argument, else `default` (None: the fill value's dtype)."""

    def rule(bound: Bound) -> DTypeResult:
        if not is_none(bound["dtype"]):
            return as_dtype(bound["dtype"])
        if default is not None:
            return default
        fill = as_array(bound["fill_value"])
        return None if fill is None else fill.dtype

    return rule


def full_shape(bound: Bound) -> ShapeResult:
    shape, fill = sizes(bound["shape"]), as_array(bound["fill_value"])
    if shape is None or fill is None or fill.shape is None:
        return None
    joined = broadcast(fill.shape, shape)
    if not isinstance(joined, tuple) or joined != tuple(shape):
        return None
    return shape


def like_shape(bound: Bound) -> ShapeResult:
    if not is_none(bound["shape"]):
        return sizes(bound["shape"])
    a = operand(bound, "a")
    return None if a is None else a.shape


def like_dtype(bound: Bound) -> DTypeResult:
    """`zeros_like(a)`: `a`'s dtype, weak flag included, unless `dtype` is given."""
    if not is_none(bound["dtype"]):
        return as_dtype(bound["dtype"])
    a = operand(bound, "a")
    return None if a is None else a.dtype


def iota_shape(bound: Bound) -> ShapeResult:
    size = sizes(bound["size"])
    return size if size is not None and len(size) == 1 else None


def broadcasted_iota_shape(bound: Bound) -> ShapeResult:
    shape, dimension = sizes(bound["shape"]), bound["dimension"]
    if shape is None or not isinstance(dimension, Py) or not isinstance(dimension.value, int):
        return None
    return shape if 0 <= dimension.value < len(shape) else None


def _number(arg: Arg) -> int | float | None:
    if isinstance(arg, Py) and isinstance(arg.value, (int, float)) and not isinstance(
            arg.value, bool):
        return arg.value
    return None


def arange_shape(bound: Bound) -> ShapeResult:
    start, stop, step = (_number(bound[n]) if not is_none(bound[n]) else None
                         for n in ("start", "stop", "step"))
    if start is None or (stop is None and not is_none(bound["stop"])):
        return None
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None and is_none(bound["step"]) else step
    if step is None or step == 0:
        return None
    return (max(0, math.ceil((stop - start) / step)),)


def arange_dtype(bound: Bound) -> DTypeResult:
    if not is_none(bound["dtype"]):
        return as_dtype(bound["dtype"])
    values = [_number(bound[n]) for n in ("start", "stop", "step") if not is_none(bound[n])]
    if any(v is None for v in values):
        return None
    return FLOAT32 if any(isinstance(v, float) for v in values) else INT32


def array_shape(bound: Bound) -> ShapeResult:
    nested = _nested(bound["a"])
    if nested is not None:
        return nested[0]
    a = as_array(bound["a"])
    return None if a is None else a.shape


def array_dtype(bound: Bound) -> DTypeResult:
    """`jnp.array(x)` / `asarray(x)`: `x`'s dtype; a Python scalar keeps its weak flag
    with `asarray` (`strong=False`) and loses it with `array`; a (nested) list of Python
    numbers is int32, float32 or bool, strong."""
    if not is_none(bound["dtype"]):
        return as_dtype(bound["dtype"])
    nested = _nested(bound["a"])
    if nested is not None:
        return nested[1]
    a = as_array(bound["a"])
    return None if a is None else a.dtype


def _nested(arg: Arg) -> tuple[tuple[int, ...], DType] | None:
    """The shape and dtype of a rectangular, non-empty (nested) tuple of Python numbers."""
    if not isinstance(arg, Py) or not isinstance(arg.value, tuple) or not arg.value:
        return None
    shape: list[int] = []
    level: list = [arg.value]
    while all(isinstance(v, tuple) for v in level):
        sizes = {len(v) for v in level}
        if len(sizes) != 1 or 0 in sizes:
            return None
        shape.append(sizes.pop())
        level = [x for v in level for x in v]
    kinds = {type(v) for v in level}
    if not kinds <= {int, float, bool}:
        return None
    dtype = FLOAT32 if float in kinds else INT32 if int in kinds else DType("bool")
    return tuple(shape), dtype


def constructor(name: str) -> DTypeRule:
    """`jnp.float32(x)`: a strong value of that dtype."""
    dtype = by_name(name)
    return lambda bound: dtype if as_array(bound["a"]) is not None else None


def scalar_of_argument(bound: Bound) -> DTypeResult:
    return as_dtype(bound["dtype"])


def float_info_dtype(bound: Bound) -> DTypeResult:
    dtype = as_dtype(bound["dtype"])
    return dtype if dtype is not None and is_float(dtype) else None


def int_limit(which: str) -> ValueRule:
    """`iinfo(t).min` / `.max`: the Python int."""

    def rule(bound: Bound) -> Arg | None:
        dtype = as_dtype(bound["dtype"])
        width = None if dtype is None or not is_integer(dtype) else bits(dtype)
        if dtype is None or width is None:
            return None
        if is_unsigned(dtype):
            low, high = 0, 2**width - 1
        else:
            low, high = -(2 ** (width - 1)), 2 ** (width - 1) - 1
        return Py(low if which == "min" else high)

    return rule


def info_bits(bound: Bound) -> Arg | None:
    dtype = as_dtype(bound["dtype"])
    width = None if dtype is None else bits(dtype)
    return None if width is None else Py(width)


def scalar_shape(bound: Bound) -> ShapeResult:
    return ()
