"""Python builtins and stdlib helpers the interpreter models, by canonical name:
`functools.partial`, `range`, `enumerate`, `zip`, `map`, `len`, `tuple`/`list`/`dict`,
`reversed`/`sorted`, `iter`/`next`, `namedtuple`/`NamedTuple`, `dataclasses.replace`,
`super`, and `itertools` (`itertools_model`)."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from typing import Any

from ..values import (
    SCALAR,
    UNKNOWN,
    ClassV,
    Const,
    Instance,
    Iter,
    Mapping,
    Partial,
    Range,
    Seq,
    SeqOf,
    SuperProxy,
    element,
    join,
)
from .frame import MAX_RANGE_UNROLL, MAX_UNROLL, Arg, CallArgs, Evaluator, Frame
from .itertools_model import ITERTOOLS
from .lists import sorted_items

Builtin = Callable[[Evaluator, CallArgs], Any]


def _partial(ev: Evaluator, call: CallArgs) -> Any:
    first = call.args[0] if call.args else None
    if not isinstance(first, Arg):
        return UNKNOWN
    return Partial(first.value, tuple(call.args[1:]), dict(call.kwargs))


def _range(ev: Evaluator, call: CallArgs) -> Any:
    bounds = call.values()
    if not call.has_star and 1 <= len(bounds) <= 3 and all(
            isinstance(b, Const) and type(b.value) is int for b in bounds):
        r = range(*(b.value for b in bounds))
        if len(r) <= MAX_RANGE_UNROLL:
            # Python loops run while JAX traces: a short static range is unrolled.
            return Range(tuple(Const(i) for i in r))
    return SeqOf(SCALAR)


def _namedtuple(ev: Evaluator, call: CallArgs) -> Any:
    names = call.value(1)
    if isinstance(names, Const) and isinstance(names.value, str):
        fields = tuple(names.value.replace(",", " ").split())
    elif isinstance(names, Seq) and all(isinstance(x, Const) and isinstance(x.value, str) for x in names.items):
        fields = tuple(x.value for x in names.items)
    elif isinstance(names, Seq) and all(isinstance(x, Seq) and x.items and isinstance(x.items[0], Const)
                                        for x in names.items):
        fields = tuple(x.items[0].value for x in names.items)
    else:
        return UNKNOWN
    frame = call.frame
    return ClassV(None, frame, frame.block, fields=fields, is_dataclass=True, frozen=True, path=frame.path)  # type: ignore[arg-type]


def _super(ev: Evaluator, call: CallArgs) -> Any:
    if call.args:
        return UNKNOWN
    f: Frame | None = call.frame
    while f is not None and (f.func is None or f.func.owner is None):
        f = f.parent
    if f is not None and isinstance(f.func.node, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.func.node.args.args:
        return SuperProxy(f.func.owner, f.env.get(f.func.node.args.args[0].arg, UNKNOWN))
    return UNKNOWN


def _enumerate(ev: Evaluator, call: CallArgs) -> Any:
    """`enumerate(xs, start=0)`: its counts from `start` (unknown ones where it is not known)."""
    v = call.value(0)
    given = call.param(1, "start")
    start = given.value if given is not None else Const(0)
    first = start.value if isinstance(start, Const) and type(start.value) in (int, bool) else None
    if isinstance(v, Seq):
        return Seq(tuple(Seq((Const(first + i) if first is not None else UNKNOWN, x)) for i, x in enumerate(v.items)))
    return SeqOf(Seq((UNKNOWN, element(v))))


def _zip(ev: Evaluator, call: CallArgs) -> Any:
    if not call.args or call.has_star:
        return UNKNOWN
    vals = call.values()
    if all(isinstance(v, Seq) for v in vals) and not _shares_iterator(vals):
        return Seq(tuple(Seq(items) for items in zip(*(v.items for v in vals))))
    return SeqOf(Seq(tuple(element(v) for v in vals)))


def _map(ev: Evaluator, call: CallArgs) -> Any:
    """`map(f, xs, ...)`: `f` called on the items of short tuples one by one, else once on
    an abstract item."""
    if len(call.args) < 2 or call.has_star:
        ev.callbacks_unknown_call(call.args, call.kwargs, call.frame)
        return UNKNOWN
    func, *iterables = call.values()
    if all(isinstance(v, Seq) for v in iterables) and not _shares_iterator(iterables):
        n = min(len(v.items) for v in iterables)
        if n <= MAX_UNROLL:
            return Seq(tuple(ev.call(func, [Arg(v.items[i]) for v in iterables], {}, call.node, call.frame,
                                     helper=False) for i in range(n)))
    return SeqOf(ev.call(func, [Arg(element(v)) for v in iterables], {}, call.node, call.frame, helper=False))


def _shares_iterator(values: list[Any]) -> bool:
    """One iterator given twice (`zip(it, it)`): its items are taken in turns."""
    iterators = [id(v) for v in values if isinstance(v, Iter)]
    return len(set(iterators)) < len(iterators)


def _iterate(ev: Evaluator, call: CallArgs) -> Any:
    return SeqOf(element(call.value(0)))


def _sorted(ev: Evaluator, call: CallArgs) -> Any:
    """`sorted(xs)` of known numbers or strings (a dict: its keys), `reverse=` a constant."""
    v = call.value(0)
    items = tuple(Const(k) for k in v.items) if isinstance(v, Mapping) else v.items if isinstance(v, Seq) else None
    reverse = call.kwargs["reverse"].value if "reverse" in call.kwargs else Const(False)
    if items is None or len(call.args) != 1 or set(call.kwargs) - {"reverse"}:
        return _iterate(ev, call)
    order = sorted_items(items, reverse)
    return Seq(order, True) if order is not None else _iterate(ev, call)


def _reversed(ev: Evaluator, call: CallArgs) -> Any:
    v = call.value(0)
    return Seq(v.items[::-1]) if isinstance(v, Seq) and len(call.args) == 1 else SeqOf(element(v))


def _iter(ev: Evaluator, call: CallArgs) -> Any:
    v = call.value(0)
    return Iter(v.items) if isinstance(v, Seq) and len(call.args) == 1 else SeqOf(element(v))


def _next(ev: Evaluator, call: CallArgs) -> Any:
    """`next(it)`: the first item an iterator over known items has left, and the name
    holding the iterator moves on to the rest.  A call or a generator expression as the
    argument is a fresh iterator (`next(iter(refs))`); anything else (an attribute, a
    global) cannot be moved on, so its next item is unknown."""
    first = call.positional(0)
    v = first.value if first is not None else UNKNOWN
    if isinstance(v, SeqOf):   # of any length: the default too, when one is given
        default = call.positional(1)
        return join(v.item, default.value) if default is not None else v.item
    if not isinstance(v, Seq) or first is None:
        return UNKNOWN
    if not v.items:
        return call.value(1)  # the default, if any: StopIteration otherwise
    node = first.node
    if isinstance(node, ast.Name):
        holder = call.frame.holder(node.id)
        if holder is None:
            return UNKNOWN
        holder.env[node.id] = Iter(v.items[1:])
    elif not isinstance(node, (ast.Call, ast.GeneratorExp)):
        return UNKNOWN
    return v.items[0]


def _replace(ev: Evaluator, call: CallArgs) -> Any:
    """`dataclasses.replace(obj, field=...)` (and a named tuple's `obj._replace(...)`):
    a copy of the object with those fields changed.  A class with its own `__init__` or a
    `__post_init__` may compute fields from the new ones: unknown."""
    obj = call.value(0)
    if (not isinstance(obj, Instance) or not obj.cls.is_dataclass or len(call.args) != 1 or "**" in call.kwargs
            or obj.cls.lookup("__init__") is not None or obj.cls.lookup("__post_init__") is not None):
        return UNKNOWN
    return Instance(obj.cls, {**obj.fields, **{k: a.value for k, a in call.kwargs.items()}})


def _len(ev: Evaluator, call: CallArgs) -> Any:
    v = call.value(0)
    return Const(len(v.items)) if isinstance(v, Seq) else UNKNOWN


def _sequence(is_list: bool) -> Builtin:
    def make(ev: Evaluator, call: CallArgs) -> Any:
        if not call.args:
            return Seq((), is_list)
        v = call.value(0)
        if isinstance(v, Seq):
            return Seq(v.items, is_list)
        return v if isinstance(v, SeqOf) else UNKNOWN
    return make


def _number(ev: Evaluator, call: CallArgs) -> Any:
    """`int(...)`, `min(...)`, `abs(...)`, ...: one number, never a tuple."""
    ev.callbacks_unknown_call(call.args, call.kwargs, call.frame)
    return SCALAR


def _math(fn: Callable[..., Any]) -> Builtin:
    """`math.sqrt(2.0)`, `float(d)`, `max(a, b)`: Python's answer on known numbers, else one
    number."""
    def compute(ev: Evaluator, call: CallArgs) -> Any:
        values = call.values()
        if call.kwargs or not values or not all(isinstance(v, Const) and type(v.value) in (int, float, bool)
                                                 for v in values):
            return _number(ev, call)
        try:
            result = fn(*(v.value for v in values))
        except (ValueError, OverflowError, TypeError, ZeroDivisionError):
            return SCALAR
        return Const(result) if type(result) in (int, float, bool) else SCALAR
    return compute


# Numbers the standard library and JAX name (all plain Python floats).
CONSTANTS = {f"{module}.{name}": value for module in ("math", "numpy", "jax.numpy")
             for name, value in (("pi", math.pi), ("e", math.e), ("inf", math.inf))}


def _dict(ev: Evaluator, call: CallArgs) -> Any:
    if call.args or "**" in call.kwargs:
        return UNKNOWN
    return Mapping({k: v.value for k, v in call.kwargs.items()})


def _dict_view(part: str) -> Builtin:
    """`d.keys()` / `d.values()` / `d.items()` of a known dict, in its order."""
    def view(ev: Evaluator, call: CallArgs) -> Any:
        d = call.value(0)
        if not isinstance(d, Mapping) or len(call.args) != 1:
            return UNKNOWN
        if part == "keys":
            return Seq(tuple(Const(k) for k in d.items), True)
        if part == "values":
            return Seq(tuple(d.items.values()), True)
        return Seq(tuple(Seq((Const(k), v)) for k, v in d.items.items()), True)
    return view


BUILTINS: dict[str, Builtin] = {
    "functools.partial": _partial,
    "range": _range,
    "collections.namedtuple": _namedtuple,
    "typing.NamedTuple": _namedtuple,
    "super": _super,
    "enumerate": _enumerate,
    "zip": _zip,
    "reversed": _reversed,
    "sorted": _sorted,
    "map": _map,
    "iter": _iter,
    "next": _next,
    "dataclasses.replace": _replace,
    "len": _len,
    "dict.keys": _dict_view("keys"),
    "dict.values": _dict_view("values"),
    "dict.items": _dict_view("items"),
    "tuple": _sequence(False),
    "list": _sequence(True),
    "dict": _dict,
    **{name: _math(fn) for name, fn in (("int", int), ("float", float), ("min", min), ("max", max), ("abs", abs))},
    "sum": _number,
    **{f"math.{name}": _math(getattr(math, name)) for name in ("sqrt", "exp", "log", "log2", "ceil", "floor")},
    **ITERTOOLS,
}
