"""Python's dict methods on the interpreter's values (`Mapping`): what a dict holds after
`update`, `setdefault`, `pop`, `clear`, and what the call (`get` included) gives."""

from __future__ import annotations

from typing import Any

from ..values import UNKNOWN, Const, Mapping
from .lists import MethodCall

DICT_METHODS = frozenset({"update", "setdefault", "pop", "clear", "get"})
_NONE = Const(None)
_UNKNOWN_CALL = MethodCall(UNKNOWN, UNKNOWN)


def dict_call(base: Mapping, method: str, values: list[Any] | None, kwargs: dict[str, Any]) -> MethodCall:
    """`base.method(*values, **kwargs)` on a dict of known keys (`values` None: a `*`
    of unknown length)."""
    items = base.items
    if method not in DICT_METHODS:   # (a list's method: Python raises)
        return _UNKNOWN_CALL
    if values is None or "**" in kwargs:
        return MethodCall(base if method == "get" else UNKNOWN, UNKNOWN)
    if method == "update" and len(values) <= 1:
        more = values[0] if values else Mapping({})
        if type(more) is not Mapping:
            return _UNKNOWN_CALL
        return MethodCall(Mapping({**items, **more.items, **kwargs}), _NONE)
    if kwargs or method == "update":
        return _UNKNOWN_CALL
    if method == "clear" and not values:
        return MethodCall(Mapping({}), _NONE)
    key = dict_key(values[0]) if values else NO_KEY
    if key is NO_KEY or method == "clear" or len(values) > 2:
        return _UNKNOWN_CALL
    default = values[1] if len(values) == 2 else _NONE
    if method == "get":
        return MethodCall(base, items.get(key, default))
    if method == "setdefault":
        return MethodCall(base, items[key]) if key in items else MethodCall(Mapping({**items, key: default}), default)
    if key in items:   # pop
        return MethodCall(Mapping({k: v for k, v in items.items() if k != key}), items[key])
    return MethodCall(base, values[1]) if len(values) == 2 else _UNKNOWN_CALL   # Python raises KeyError


NO_KEY = object()


def dict_key(value: Any) -> Any:
    """The Python key a constant gives (a dict's keys are Python values), else NO_KEY."""
    if type(value) is not Const:
        return NO_KEY
    try:
        hash(value.value)
    except TypeError:
        return NO_KEY
    return value.value
