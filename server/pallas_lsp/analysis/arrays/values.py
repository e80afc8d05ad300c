"""The array domain's values in the interpreter, and the conversions between the
interpreter's values and the model's arguments (`args.py`).

An `ArrayValue` wraps the model's `ArrayV` with where it was computed (for messages).
A dtype travels as the library name it is spelled by (`Api("jax.numpy.bfloat16")`), so
`jnp.float32(1.0)`, `x.astype(o_ref.dtype)` and `jnp.zeros(s, x.dtype)` read alike."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from ..values import SCALAR, UNKNOWN, Api, Const, DomainValue, Loc, Seq, SliceV, is_number
from .args import OPAQUE, Arg, Dims, DTypeArg, Py
from .args import Seq as ArgSeq
from .dtypes import FLOAT32, INT32, DType, by_name, is_bool, is_float, is_integer, short
from .shapes import ArrayV, join_arrays

_DTYPE_MODULES = ("jax.numpy.", "numpy.", "jax.dtypes.", "ml_dtypes.")
_BUILTIN_DTYPES = frozenset({"float", "int", "bool"})


@dataclass(eq=False, slots=True)
class ArrayValue(DomainValue):
    """A jax array value (a traced value in a kernel body) with its static parts."""

    array: ArrayV
    origin: Loc | None = None    # the call that made it (a driver's `jnp.ones(...)`: where an operand is declared)
    concrete: bool = False       # a NumPy value (`np.float32(2.0)`, `jnp.finfo(t).min`), not traced

    def __init__(self, array: ArrayV, origin: Loc | None = None, concrete: bool = False) -> None:   # native (`records`)
        self.array = array
        self.origin = origin
        self.concrete = concrete

    @property
    def loop_tracked(self) -> bool:
        return True

    @property
    def noted(self) -> bool:
        return True

    def join(self, other: Any) -> Any:
        if self.array.shape == () and (other is SCALAR or is_number(other)):
            return SCALAR   # a traced scalar on one path, a Python number on the other: a number
        if isinstance(other, ArrayValue):
            same_origin = self.origin is not None and other.origin is not None \
                and self.origin.node is other.origin.node
            return ArrayValue(join_arrays(self.array, other.array), self.origin if same_origin else None,
                              self.concrete and other.concrete)
        return UNKNOWN

    def same(self, other: Any) -> bool:
        return self.array == other.array and self.concrete == other.concrete

    def signature(self) -> Any:
        return ("array", self.array, self.concrete)

    @property
    def portable(self) -> bool:
        return True

    def stable_signature(self) -> Any:
        return (ArrayValue, self.array, self.concrete, self.origin.node if self.origin is not None else None)


class ArrayRef(DomainValue):
    """A ref to an array buffer (the Pallas domain's `x_ref`): an array only once read
    (`x_ref[...]`); where an array goes, JAX rejects it (PAL410)."""

    __slots__ = ()
    dtype: str | None   # the dtype's name ("float32") where static
    view = False   # a view (`x_ref.at[...]`): JAX's `TransformedRef`, of other words

    def described(self) -> str:
        return "a ref"


@dataclass(eq=False, slots=True)
class ArrayMethod(DomainValue):
    """`x.astype`, `x.sum`, ...: an array's method awaiting its call."""

    array: ArrayV
    name: str

    def signature(self) -> Any:
        return ("method", self.array, self.name)

    @property
    def portable(self) -> bool:
        return True


@dataclass(eq=False, slots=True)
class TypeInfo(DomainValue):
    """`jnp.finfo(t)` / `jnp.iinfo(t)`: its fields are read by attribute."""

    kind: str                  # "finfo" or "iinfo"
    dtype: DType

    def signature(self) -> Any:
        return ("info", self.kind, self.dtype)

    @property
    def portable(self) -> bool:
        return True


@dataclass(eq=False, slots=True)
class PyFloat(DomainValue):
    """A Python float whose value the code does not give (`float(np.finfo(np.float32).max)`,
    times a number): where it meets an array it is a weak float32, as any Python float."""

    def join(self, other: Any) -> Any:
        if isinstance(other, PyFloat) or isinstance(other, Const) and type(other.value) is float:
            return self
        return SCALAR if other is SCALAR or is_number(other) else UNKNOWN

    def same(self, other: Any) -> bool:
        return isinstance(other, PyFloat)

    def signature(self) -> Any:
        return ("python float",)

    @property
    def portable(self) -> bool:
        return True


PY_FLOAT = PyFloat()
_WEAK_FLOAT32 = ArrayV((), DType(FLOAT32.name, weak=True))
_TRACED_INT32 = ArrayV((), INT32)
_WEAK_INT32 = ArrayV((), DType(INT32.name, weak=True))


def traced_int32() -> ArrayValue:
    """A traced `int32` scalar: `pl.program_id(0)`, a `fori_loop` index."""
    return ArrayValue(_TRACED_INT32)


def loop_index(bounds: tuple) -> Any:
    """A `fori_loop` / `pl.loop` index: bounds that are all Python ints make JAX scan
    from a Python int (a weak int32); a traced int32 bound makes the index int32; with a
    bound of unknown kind it is some number."""
    if all(isinstance(b, Const) and type(b.value) is int for b in bounds):
        return ArrayValue(_WEAK_INT32)
    traced = [b for b in bounds if isinstance(b, ArrayValue)]
    if traced and all(isinstance(b, Const) and type(b.value) is int or b in traced for b in bounds) \
            and all(b.array.shape == () and b.array.dtype == INT32 for b in traced):
        return traced_int32()
    return SCALAR


def is_index_scalar(value: Any) -> bool:
    """An integer array value of shape `()` (`jnp.int32(0)`, `idx_ref[i] + 1`): an index
    that drops its dimension, as a number does."""
    if not isinstance(value, ArrayValue):
        return False
    dtype = value.array.dtype
    return value.array.shape == () and dtype is not None and (is_integer(dtype) or is_bool(dtype))


def float_scalar_type(value: Any) -> str | None:
    """The dtype ("f32") of a floating array value of shape `()` (`pl.program_id(0) / 2`):
    not an index; None for anything else."""
    if not isinstance(value, ArrayValue) or value.array.shape != () or value.array.dtype is None:
        return None
    return short(DType(value.array.dtype.name)) if is_float(value.array.dtype) else None


def dtype_of_name(qname: str) -> DType | None:
    """The dtype a library name spells (`jax.numpy.bfloat16`, `numpy.float32`, `float`)."""
    if qname in _BUILTIN_DTYPES:
        return by_name(qname)
    for prefix in _DTYPE_MODULES:
        if qname.startswith(prefix):
            return by_name(qname[len(prefix):])
    return None


def dtype_attribute(dtype: DType) -> str:
    """The attribute of `jnp` that names `dtype` (`bool_` for bool)."""
    return "bool_" if dtype.name == "bool" else dtype.name


def dtype_value(dtype: DType) -> Api:
    return Api(f"jax.numpy.{dtype_attribute(dtype)}")


def to_arg(value: Any, node: ast.AST | None = None) -> Arg:
    """The model's argument for an interpreter value (`node`: its expression, for the
    names of lengths that are not static)."""
    if isinstance(value, ArrayValue):
        return value.array
    if isinstance(value, PyFloat):
        return _WEAK_FLOAT32
    if isinstance(value, Const):
        v = value.value
        return Py(v) if v is None or v is Ellipsis or type(v) in (int, float, bool, str) else OPAQUE
    if isinstance(value, Api):
        dtype = dtype_of_name(value.qname)
        return DTypeArg(dtype) if dtype is not None else OPAQUE
    if isinstance(value, Seq):
        return _sequence_arg(value, node)
    return OPAQUE


def _sequence_arg(value: Seq, node: ast.AST | None) -> Arg:
    elts = node.elts if isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) == len(value.items) else None
    items = [to_arg(v, elts[i] if elts else None) for i, v in enumerate(value.items)]
    if all(isinstance(a, Py) for a in items):
        return Py(tuple(a.value for a in items if isinstance(a, Py)))
    if any(isinstance(a, (ArrayV, ArgSeq)) for a in items):
        return ArgSeq(tuple(items))
    if all(isinstance(a, Py) and type(a.value) is int or _is_length(v) for a, v in zip(items, value.items)):
        return Dims(tuple(a.value if isinstance(a, Py) and type(a.value) is int
                          else _length_name(elts[i] if elts else None) for i, a in enumerate(items)))
    return OPAQUE


def _is_length(value: Any) -> bool:
    return value is UNKNOWN or value is SCALAR


def _length_name(node: ast.AST | None) -> str:
    """A length that is not static, named by its source text when it is a plain name."""
    return node.id if isinstance(node, ast.Name) else "?"


def index_arg(value: Any) -> Arg:
    """One item of an index into an array value (a slice of bounds that are not static
    keeps its dim, of a length that is not static)."""
    if isinstance(value, SliceV):
        return Py(("slice", *value.bounds)) if value.bounds is not None else Py(("slice", "?", "?", None))
    return to_arg(value)


def from_result(result: Any, origin: Loc | None, concrete: bool = False) -> Any:
    """The interpreter's value for what the model answered (UNKNOWN for no answer)."""
    if isinstance(result, ArrayV):
        return ArrayValue(result, origin, concrete)
    if isinstance(result, Py):
        return _from_py(result.value)
    if isinstance(result, Dims):
        return Seq(tuple(Const(d) if type(d) is int else SCALAR for d in result.items))
    if isinstance(result, DTypeArg):
        return dtype_value(result.dtype)
    return UNKNOWN


def _from_py(value: Any) -> Any:
    if isinstance(value, tuple):
        return Seq(tuple(_from_py(v) for v in value))
    return Const(value)
