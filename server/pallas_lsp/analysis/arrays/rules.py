"""The shapes of rules and the small helpers most rules share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Union

from .args import Arg, Bound, Py, as_array
from .dtypes import DType, TypePromotionError, result_type
from .shapes import ArrayV, Rejected, Shape

ShapeResult = Union[Shape, Rejected, None]
DTypeResult = Union[DType, Rejected, None]
ShapeRule = Callable[[Bound], ShapeResult]
DTypeRule = Callable[[Bound], DTypeResult]
ValueRule = Callable[[Bound], Union[Arg, Rejected, None]]


def is_promotion_error(result: object) -> bool:
    """A Rejected from dtype promotion: `jnp` raises it before looking at shapes."""
    return isinstance(result, Rejected) and result.message.startswith("Input dtypes (")


def operand(bound: Bound, name: str) -> ArrayV | None:
    return as_array(bound[name])


def shape_of(name: str) -> ShapeRule:
    """The rule `same shape as the operand `name``."""

    def rule(bound: Bound) -> ShapeResult:
        array = operand(bound, name)
        return None if array is None else array.shape

    return rule


def dtype_of(name: str) -> DTypeRule:
    """The rule `same dtype (weak flag included) as the operand `name``."""

    def rule(bound: Bound) -> DTypeResult:
        array = operand(bound, name)
        return None if array is None else array.dtype

    return rule


def fixed_dtype(dtype: DType) -> DTypeRule:
    return lambda bound: dtype


def promoted(*dtypes: DType | None) -> DTypeResult:
    """JAX's promotion of these dtypes; Rejected when JAX has no path; None if one is
    unknown."""
    known = [d for d in dtypes if d is not None]
    if len(known) != len(dtypes):
        return None
    try:
        return result_type(*known)
    except TypePromotionError as error:
        return Rejected(str(error))


def operand_dtypes(bound: Bound, *names: str) -> list[DType | None] | None:
    """The dtypes of the named operands; None when one is not an operand at all."""
    arrays = [operand(bound, n) for n in names]
    if any(a is None for a in arrays):
        return None
    return [a.dtype for a in arrays if a is not None]


def is_py(arg: Arg, kind: type) -> bool:
    return isinstance(arg, Py) and isinstance(arg.value, kind)
