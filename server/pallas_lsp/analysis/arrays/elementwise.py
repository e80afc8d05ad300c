"""Elementwise operations: numpy broadcasting of shapes, JAX promotion of dtypes.

Each dtype family below is what JAX 0.10.2 does (checked by `tests/arrays`), weak flags
included: e.g. a comparison of weak operands is a weak bool, `jnp.logical_and` is a
strong bool, `x ** 2` keeps `x`'s dtype.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Union

from .args import Bound, as_bool, as_int, is_none
from .dtypes import INT32, DType, is_bool, is_float, is_integer, is_unsigned, strong
from .dtypes import to_inexact
from .rules import DTypeResult, DTypeRule, ShapeResult, ShapeRule, operand, promoted
from .shapes import Rejected, broadcast

DTypeMap = Union[Callable[[DType], DTypeResult], "Logical"]

_NUMBER = "integer, floating, complexfloating"
_FLOATING = "floating, complexfloating"


def _refuse(primitive: str, dtype: DType, accepted: str, position: bool) -> Rejected:
    where = " at position 0" if position else ""
    return Rejected(
        f"{primitive} does not accept dtype {dtype.name}{where}. "
        f"Accepted dtypes{where} are subtypes of {accepted}."
    )


# ---- unary dtype families -------------------------------------------------------------

def same(dtype: DType) -> DTypeResult:
    return dtype


def inexact(dtype: DType) -> DTypeResult:
    return to_inexact(dtype)


def inexact_strong(dtype: DType) -> DTypeResult:
    result = to_inexact(dtype)
    return None if result is None else strong(result)


def float_only(primitive: str, accepted: str = _FLOATING) -> DTypeMap:
    """lax primitives on floats only (`rsqrt`, `erf`, `logistic`)."""
    return lambda d: d if is_float(d) else _refuse(primitive, d, accepted, False)


def no_bool(primitive: str) -> DTypeMap:
    return lambda d: _refuse(primitive, d, _NUMBER, False) if is_bool(d) else d


def bool_to(replacement: DType) -> DTypeMap:
    return lambda d: replacement if is_bool(d) else d


def round_dtype(dtype: DType) -> DTypeResult:
    if is_bool(dtype):
        return Rejected("data type <class 'numpy.bool'> not inexact")
    return dtype


def softmax_dtype(dtype: DType) -> DTypeResult:
    if is_bool(dtype):
        return _refuse("sub", dtype, _NUMBER, True)
    return inexact_strong(dtype)


def invert_dtype(dtype: DType) -> DTypeResult:
    if is_float(dtype):
        return _refuse("not", dtype, "integer, bool", False)
    return dtype


def isnan_dtype(dtype: DType) -> DTypeResult:
    return DType("bool", weak=dtype.weak)


def isfinite_dtype(dtype: DType) -> DTypeResult:
    return DType("bool", weak=dtype.weak and is_float(dtype))


@dataclass(unsafe_hash=True)
class Logical:
    """The marker family of `jnp.logical_*`: operands become bool by `x != 0`, which
    keeps a weak flag only on a 0-d result (resolved by the rules, which see shapes)."""


LOGICAL: Logical = Logical()


def _logical(dtype: DType, shape: ShapeResult) -> DTypeResult:
    return DType("bool", weak=dtype.weak and not is_bool(dtype) and shape == ())


def unary(family: DTypeMap) -> tuple[ShapeRule, DTypeRule]:
    """Rules of a one-operand function whose operand is `x`."""

    def shape_rule(bound: Bound) -> ShapeResult:
        x = operand(bound, "x")
        return None if x is None else x.shape

    def dtype_rule(bound: Bound) -> DTypeResult:
        x = operand(bound, "x")
        if x is None or x.dtype is None:
            return None
        return _apply_family(family, x.dtype, x.shape)

    return shape_rule, dtype_rule


# ---- binary dtype families (over the promoted dtype) -----------------------------------

def subtract_dtype(dtype: DType) -> DTypeResult:
    return _refuse("sub", dtype, _NUMBER, True) if is_bool(dtype) else dtype


def compare_dtype(dtype: DType) -> DTypeResult:
    return DType("bool", weak=dtype.weak)


def bool_as_int(dtype: DType) -> DTypeResult:
    """floor_divide, remainder: a bool result computes in int32."""
    return INT32 if is_bool(dtype) else dtype


def bitwise(primitive: str) -> DTypeMap:
    def family(dtype: DType) -> DTypeResult:
        if is_float(dtype):
            return _refuse(primitive, dtype, "integer, bool", True)
        return dtype

    return family


def shift(primitive: str) -> DTypeMap:
    def family(dtype: DType) -> DTypeResult:
        if is_float(dtype):
            name = primitive
            if primitive == "shift_right_arithmetic" and is_unsigned(dtype):
                name = "shift_right_logical"
            return _refuse(name, dtype, "integer", True)
        return INT32 if is_bool(dtype) else dtype

    return family


def _apply_family(family: DTypeMap, dtype: DType, shape: ShapeResult) -> DTypeResult:
    if isinstance(family, Logical):
        return _logical(dtype, shape)
    return family(dtype)


def broadcast_operands(*names: str, primitive: str | None = None) -> ShapeRule:
    """The broadcast shape of the named operands (absent optional ones skipped)."""

    def rule(bound: Bound) -> ShapeResult:
        arrays = [operand(bound, n) for n in names if not _absent(bound, n)]
        if any(a is None for a in arrays):
            return None
        return broadcast(*(a.shape for a in arrays if a is not None), primitive=primitive)

    return rule


def _absent(bound: Bound, name: str) -> bool:
    return is_none(bound[name])


def promote_operands(family: DTypeMap, *names: str) -> DTypeRule:
    """`family` of the promoted dtype of the named operands (absent ones skipped)."""

    def rule(bound: Bound) -> DTypeResult:
        arrays = [operand(bound, n) for n in names if not _absent(bound, n)]
        if not arrays or any(a is None for a in arrays):
            return None
        result = promoted(*(a.dtype for a in arrays if a is not None))
        if not isinstance(result, DType):
            return result
        shape = broadcast(*(a.shape for a in arrays if a is not None))
        return _apply_family(family, result, shape)

    return rule


def binary(family: DTypeMap, primitive: str | None) -> tuple[ShapeRule, DTypeRule]:
    return (broadcast_operands("x", "y", primitive=primitive),
            promote_operands(family, "x", "y"))


def power_dtype(bound: Bound) -> DTypeResult:
    """`jnp.power`: a static int exponent keeps the base's dtype (bool as int32); an
    int result is strong; a float base with an int exponent keeps the base's dtype."""
    x, y = operand(bound, "x"), operand(bound, "y")
    if x is None or y is None or x.dtype is None or y.dtype is None:
        return None
    if as_int(bound["y"]) is not None or _is_py_bool(bound):
        return DType("int32", weak=x.dtype.weak) if is_bool(x.dtype) else x.dtype
    result = promoted(x.dtype, y.dtype)
    if not isinstance(result, DType):
        return result
    if is_bool(result) or is_integer(result):
        return INT32 if is_bool(result) else strong(result)
    if is_float(x.dtype) and is_integer(y.dtype):
        return DType(x.dtype.name, weak=x.dtype.weak and y.dtype.weak)
    return result


def _is_py_bool(bound: Bound) -> bool:
    return as_bool(bound["y"]) is not None


# ---- lax.select: no promotion, no broadcasting ------------------------------------------

def select_shape(bound: Bound) -> ShapeResult:
    pred, on_true, on_false = (operand(bound, n) for n in ("pred", "on_true", "on_false"))
    if pred is None or on_true is None or on_false is None:
        return None
    shapes = (pred.shape, on_true.shape, on_false.shape)
    if any(s is None or not all(isinstance(d, int) for d in s) for s in shapes):
        return None
    if on_true.shape != on_false.shape:
        return Rejected("select cases must have the same shapes, got "
                        f"[{on_false.shape}, {on_true.shape}].")
    return on_true.shape if pred.shape in ((), on_true.shape) else None


def select_dtype(bound: Bound) -> DTypeResult:
    pred, on_true, on_false = (operand(bound, n) for n in ("pred", "on_true", "on_false"))
    if pred is None or on_true is None or on_false is None:
        return None
    if pred.dtype is None or not is_bool(pred.dtype) or on_true.dtype is None:
        return None
    if on_false.dtype is None or on_true.dtype.name != on_false.dtype.name:
        return None
    return DType(on_true.dtype.name, weak=on_true.dtype.weak and on_false.dtype.weak)


def lax_binary(family: DTypeMap) -> tuple[ShapeRule, DTypeRule]:
    """`lax.add` / `rem` / `max` / ...: like jnp's where lax accepts the operands (one
    shape or a scalar; one dtype, not bool, a Python number counting as int32 / float32),
    unknown elsewhere."""
    shape_rule, dtype_rule = binary(family, None)

    def agree(bound: Bound) -> bool:
        x, y = operand(bound, "x"), operand(bound, "y")
        if x is None or y is None or x.dtype is None or y.dtype is None or x.shape is None or y.shape is None:
            return False
        if not (x.shape == y.shape or () in (x.shape, y.shape)):
            return False
        return x.dtype.name == y.dtype.name and not is_bool(x.dtype)

    def shape(bound: Bound) -> ShapeResult:
        return shape_rule(bound) if agree(bound) else None

    def dtype(bound: Bound) -> DTypeResult:
        return dtype_rule(bound) if agree(bound) else None

    return shape, dtype
