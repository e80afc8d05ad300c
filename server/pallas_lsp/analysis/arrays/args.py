"""The arguments the model accepts, binding them to parameters, and reading them back.

* `ArrayV` -- an array (a jax scalar is an `ArrayV` of shape `()`);
* `Py(value)` -- a static Python value: int, float, bool, None, str, `Ellipsis`, or a
  (nested) tuple of these.  A Python number used as an operand is a *weak* scalar (a
  bool is a strong bool).  In an index, a slice `a:b:c` is `Py(("slice", a, b, c))`
  whose parts are ints, None, or a str (a bound not known statically);
* `DTypeArg(dtype)` -- a dtype given as an argument (`jnp.float32`, `x.dtype`, `float`);
* `Dims(items)` -- a shape some of whose lengths are named unknowns (`("bm", 128)`);
* `Seq(items)` -- a list or tuple display holding arrays (`jnp.stack([x, y])`);
* `OPAQUE` -- any argument the interpreter does not know.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import EllipsisType
from typing import Union

from .dtypes import BOOL, FLOAT32, INT32, DType
from .shapes import ArrayV, Shape

PyValue = Union[int, float, bool, None, str, EllipsisType, tuple["PyValue", ...]]

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


@dataclass(eq=False)
class Py:
    """A static Python value.  Equal only to a value of the same Python type: `1`, `1.0`
    and `True` are equal in Python but promote differently (the model's answers are
    memoised by their arguments)."""

    value: PyValue

    def __init__(self, value: PyValue) -> None:   # native (`records`)
        self.value = value

    def __eq__(self, other: object) -> bool:
        return type(other) is Py and _typed(self.value) == _typed(other.value)

    def __hash__(self) -> int:
        return hash(_typed(self.value))


def _typed(value: PyValue) -> object:
    """`value` with the type of each of its parts (a tuple's items, nested)."""
    if type(value) is tuple:
        return tuple(_typed(v) for v in value)
    return type(value), value


@dataclass(unsafe_hash=True)
class DTypeArg:
    """A dtype passed as an argument."""

    dtype: DType


@dataclass(unsafe_hash=True)
class Dims:
    """A shape whose lengths may be named unknowns."""

    items: Shape


@dataclass(eq=False)
class Opaque:
    """An argument the interpreter does not know."""

    def __eq__(self, other: object) -> bool:   # native (`records`)
        return type(other) is Opaque

    def __hash__(self) -> int:
        return hash(())


OPAQUE = Opaque()
NONE = Py(None)

@dataclass(unsafe_hash=True)
class Seq:
    """A list or tuple display whose items are not all static Python values, e.g. the
    arrays given to `jnp.concatenate([x, y])`: `Seq((x, y))`."""

    items: tuple[Arg, ...]


Arg = Union[ArrayV, Py, DTypeArg, Dims, Opaque, Seq]


@dataclass(unsafe_hash=True)
class Params:
    """A function's parameters: positional names in order (the first
    `positional_only` of them cannot be given by keyword), keyword-only names, defaults
    (a parameter without one is required), and a `*args` name."""

    positional: tuple[str, ...]
    keyword: tuple[str, ...] = ()
    defaults: Mapping[str, Arg] = field(default_factory=dict)
    varargs: str | None = None
    positional_only: int = 0


@dataclass(unsafe_hash=True)
class Bound:
    """Arguments bound to parameter names; `rest` holds the `*args` ones."""

    values: Mapping[str, Arg]
    rest: tuple[Arg, ...] = ()

    def __getitem__(self, name: str) -> Arg:
        return self.values[name]


def bind(params: Params, args: Sequence[Arg], kwargs: Mapping[str, Arg]) -> Bound | None:
    """Bind like Python does; None for anything Python or the model would not accept
    (too many arguments, an unknown or repeated keyword, a missing required one)."""
    if len(args) > len(params.positional) and params.varargs is None:
        return None
    values: dict[str, Arg] = dict(zip(params.positional, args))
    rest = tuple(args[len(params.positional):])
    keywords = (*params.positional[params.positional_only:], *params.keyword)
    for name, value in kwargs.items():
        if name in values or name not in keywords:
            return None
        values[name] = value
    for name in (*params.positional, *params.keyword):
        if name not in values:
            if name not in params.defaults:
                return None
            values[name] = params.defaults[name]
    return Bound(values, rest)


def python_scalar_array(value: PyValue) -> ArrayV | None:
    """The jax scalar a Python number becomes: weak int32/float32; bool is strong."""
    if isinstance(value, bool):
        return ArrayV((), BOOL)
    if isinstance(value, int):
        if not _INT32_MIN <= value <= _INT32_MAX:
            return None
        return ArrayV((), DType(INT32.name, weak=True))
    if isinstance(value, float):
        return ArrayV((), DType(FLOAT32.name, weak=True))
    return None


def as_array(arg: Arg) -> ArrayV | None:
    """An operand as an array: an ArrayV, or a Python scalar."""
    if isinstance(arg, ArrayV):
        return arg
    if isinstance(arg, Py):
        return python_scalar_array(arg.value)
    return None


def as_int(arg: Arg) -> int | None:
    if isinstance(arg, Py) and isinstance(arg.value, int) and not isinstance(arg.value, bool):
        return arg.value
    return None


def as_bool(arg: Arg) -> bool | None:
    if isinstance(arg, Py) and isinstance(arg.value, bool):
        return arg.value
    return None


def as_ints(arg: Arg) -> tuple[int, ...] | None:
    """An int or a flat tuple of ints as a tuple."""
    single = as_int(arg)
    if single is not None:
        return (single,)
    if isinstance(arg, Py) and isinstance(arg.value, tuple):
        items = [as_int(Py(v)) for v in arg.value]
        if all(i is not None for i in items):
            return tuple(i for i in items if i is not None)
    return None


def as_shape(arg: Arg) -> Shape | None:
    """A shape argument: an int, a tuple of ints, or `Dims`."""
    if isinstance(arg, Dims):
        return arg.items
    return as_ints(arg)


def as_dtype(arg: Arg) -> DType | None:
    """A dtype argument, strong (a weak array's `.dtype` is just its dtype)."""
    if isinstance(arg, DTypeArg):
        return DType(arg.dtype.name)
    return None


def is_none(arg: Arg) -> bool:
    return isinstance(arg, Py) and arg.value is None


def dims_arg(shape: Shape) -> Py | Dims:
    """A shape as the value of an argument or property: `Py` when static."""
    if all(isinstance(d, int) for d in shape):
        return Py(tuple(int(d) for d in shape))
    return Dims(shape)
