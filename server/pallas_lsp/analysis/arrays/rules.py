"""The shapes of rules and the small helpers most rules share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Union

from .args import Arg, Bound, as_array
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
