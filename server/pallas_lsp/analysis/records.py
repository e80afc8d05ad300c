"""The analysis's records: immutable dataclasses, cheap to make.

`record` declares a frozen dataclass to type checkers (mypy rejects an assignment to any
field of one) and builds, at run time, one that is not frozen but compares and hashes
alike. A frozen dataclass's `__init__` sets each field through `object.__setattr__`,
three times the cost of a plain one, and an analysis makes tens of thousands of records
per keystroke in a large kernel. The modules mypyc compiles (`setup.py`: the interpreter,
its values, the two domains) declare plain dataclasses instead (`unsafe_hash=True`
where a record would hash by its fields), immutable by convention: mypyc makes native
classes of those, not of these. Their `__init__` is still the one `dataclasses`
generates, run as Python (and so are its `__eq__` and `__hash__`); those made, compared
or hashed most often (thousands per keystroke in a large kernel: a constant, a node's
location, a name, a hover note, a semaphore, an array value, its shape and dtype, an
index, a name's binding) write their own, which mypyc compiles (`Seq` cannot: the C
mypyc writes for some calls of its own `__init__` does not compile). `mypyc_attr`
marks their classes that Python classes derive from."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Callable, TypeVar, overload

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:   # only type checkers read it
    def dataclass_transform(**_):
        return lambda f: f

try:
    from mypy_extensions import mypyc_attr
except ImportError:   # installed with mypy: only mypyc reads it
    def mypyc_attr(*_args: Any, **_kwargs: Any) -> Any:   # type: ignore[misc]
        return lambda cls: cls


T = TypeVar("T", bound=type)


@overload
@dataclass_transform(frozen_default=True)
def record(cls: T, /) -> T: ...
@overload
def record(*, eq: bool = True, order: bool = False, slots: bool = False) -> Callable[[T], T]: ...


def record(cls: Any = None, /, *, eq: bool = True, order: bool = False, slots: bool = False) -> Any:
    def build(cls: Any) -> Any:
        # What frozen=True gives: fields' hash where they compare by value, unless the
        # class says its own (the `None` Python sets beside an `__eq__` is not its own).
        own = cls.__dict__.get("__hash__", dataclasses.MISSING)
        by_fields = eq and (own is dataclasses.MISSING or own is None and "__eq__" in cls.__dict__)
        return dataclasses.dataclass(cls, eq=eq, order=order, slots=slots, unsafe_hash=by_fields)
    return build if cls is None else build(cls)

