"""Python's list methods on the interpreter's values: what a list holds after `append`,
`pop`, `sort`, ... and what the call gives (every name, field and caller holding the
list is given the list after: `mutation.rebind`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..values import UNKNOWN, Const, Seq, SeqOf, SeqTail, items_like, join, join_all, sequence

LIST_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear"})
_NONE = Const(None)


@dataclass(frozen=True, slots=True)
class MethodCall:
    after: Any     # the list (or dict) after the call (UNKNOWN: not known)
    result: Any    # what the call gives


def list_call(base: Any, method: str, values: list[Any] | None, kwargs: dict[str, Any]) -> MethodCall:
    """`base.method(*values, **kwargs)` on a list (`mutation.in_place`: a list of known
    items, of unknown length, or with a known tail); `values` None: a `*` of unknown
    length."""
    if values is None:
        return MethodCall(UNKNOWN, UNKNOWN)
    if type(base) is Seq and base.is_list:
        return _known(base.items, method, values, kwargs)
    if type(base) is SeqOf:
        return _some(base, method, values, kwargs)
    if type(base) is SeqTail and method in ("append", "extend") and not kwargs and len(values) == 1:
        added = (values[0],) if method == "append" else values[0].items if type(values[0]) is Seq else None
        return MethodCall(SeqTail(base.items + added) if added is not None else UNKNOWN, _NONE)
    return MethodCall(UNKNOWN, UNKNOWN)


def _known(items: tuple, method: str, values: list[Any], kwargs: dict[str, Any]) -> MethodCall:
    """On a list of known items."""
    n = len(values)
    if method == "sort" and n == 0 and set(kwargs) <= {"reverse"}:
        order = sorted_items(items, kwargs.get("reverse", Const(False)))
        return MethodCall(Seq(order, True) if order is not None else items_like(items), _NONE)
    if kwargs:
        return MethodCall(UNKNOWN, UNKNOWN)
    if method == "append" and n == 1:
        return MethodCall(sequence((*items, values[0]), True), _NONE)
    if method == "extend" and n == 1:
        more = values[0]
        if isinstance(more, Seq):
            return MethodCall(sequence(items + more.items, True), _NONE)
        return MethodCall(items_like((*items, more.item)) if type(more) is SeqOf else UNKNOWN, _NONE)
    index = _index(values[0]) if n >= 1 else -1
    if method == "insert" and n == 2 and index is not None:
        grown = list(items)
        grown.insert(index, values[1])
        return MethodCall(sequence(tuple(grown), True), _NONE)
    if method == "pop" and n <= 1:
        if index is None:   # some item goes
            return MethodCall(items_like(items), join_all(items))
        if not -len(items) <= index < len(items):
            return MethodCall(UNKNOWN, UNKNOWN)   # Python raises IndexError
        rest = list(items)
        taken = rest.pop(index)
        return MethodCall(Seq(tuple(rest), True), taken)
    if method == "remove" and n == 1:
        return MethodCall(_removed(items, values[0]), _NONE)
    if method == "reverse" and n == 0:
        return MethodCall(Seq(items[::-1], True), _NONE)
    if method == "clear" and n == 0:
        return MethodCall(Seq((), True), _NONE)
    return MethodCall(UNKNOWN, UNKNOWN)


def _some(base: SeqOf, method: str, values: list[Any], kwargs: dict[str, Any]) -> MethodCall:
    """On a list of unknown length whose items are like `base.item`."""
    if method in ("append", "insert") and len(values) == (1 if method == "append" else 2) and not kwargs:
        return MethodCall(SeqOf(join(base.item, values[-1])), _NONE)
    if method == "extend" and len(values) == 1 and not kwargs and isinstance(values[0], (Seq, SeqOf)):
        more = values[0].items if isinstance(values[0], Seq) else (values[0].item,)
        return MethodCall(items_like((base.item, *more)), _NONE)
    if method == "clear":
        return MethodCall(Seq((), True), _NONE)
    if method == "pop":
        return MethodCall(base, base.item)
    return MethodCall(base if method in ("sort", "reverse", "remove") else UNKNOWN, _NONE)


def _index(value: Any) -> int | None:
    return value.value if isinstance(value, Const) and type(value.value) is int else None


def _removed(items: tuple, value: Any) -> Any:
    """The list without the first item equal to `value` (Python's equality)."""
    if not isinstance(value, Const) or not all(isinstance(i, Const) for i in items):
        return items_like(items) if items else UNKNOWN
    for k, item in enumerate(items):
        if item.value == value.value:
            return Seq(items[:k] + items[k + 1:], True)
    return UNKNOWN   # Python raises ValueError


def sorted_items(items: tuple, reverse: Any) -> tuple | None:
    """Known numbers or strings in Python's sorted order (`reverse` a constant); None when
    the order is not known."""
    if not isinstance(reverse, Const):
        return None
    keys: list[Any] = [i.value if isinstance(i, Const) else None for i in items]
    if not all(type(k) in (int, float, str) for k in keys) or len({type(k) is str for k in keys}) > 1:
        return None
    order = sorted(range(len(keys)), key=keys.__getitem__, reverse=bool(reverse.value))
    return tuple(items[i] for i in order)
