"""Python's lists and dicts change in place: one written through a name, an object's
field or a parameter is changed for every name, field and caller that holds it.  What an
item write or `del` leaves (`item_written`, `item_deleted`), every holder given the
container after a change (`rebind`), and the fresh containers of a call's result taken
from the memo (`fresh`: each call of a function makes lists of its own)."""

from __future__ import annotations

from itertools import repeat
from operator import is_
from typing import Any

from ..values import SCALAR, UNKNOWN, Const, Instance, Mapping, Seq, SeqOf, SeqTail, join
from .dicts import NO_KEY, dict_key
from .envs import join_held
from .frame import Context, Frame

_MAX_NESTING = 4


def in_place(value: Any) -> bool:
    """A list or dict the interpreter follows by identity (a name bound to another name's
    list holds the same object)."""
    t = type(value)
    return t is Mapping or t is SeqOf or t is SeqTail or (t is Seq and value.is_list)


def item_written(base: Any, key: Any, value: Any) -> Any:
    """The list or dict `base` (`in_place`) after `base[key] = value` (UNKNOWN: not known)."""
    t = type(base)
    if t is Seq and base.is_list:
        index = _int(key)
        if index is not None:
            n = len(base.items)
            if not -n <= index < n:
                return UNKNOWN   # Python raises IndexError
            items = list(base.items)
            items[index] = value
            return Seq(tuple(items), True)
        return Seq(tuple(join(item, value) for item in base.items), True) if _some_int(key) else UNKNOWN
    if t is SeqOf:
        return SeqOf(join(base.item, value)) if _int(key) is not None or _some_int(key) else UNKNOWN
    if t is Mapping:
        k = dict_key(key)
        return Mapping({**base.items, k: value}) if k is not NO_KEY else UNKNOWN
    return UNKNOWN   # a list with a known tail: which item is written is not known


def item_deleted(base: Any, key: Any) -> Any:
    """The list or dict `base` after `del base[key]`, as `item_written` gives it."""
    t = type(base)
    if t is Seq and base.is_list:
        index = _int(key)
        if index is None or not -len(base.items) <= index < len(base.items):
            return UNKNOWN
        items = list(base.items)
        del items[index]
        return Seq(tuple(items), True)
    if t is Mapping:
        k = dict_key(key)
        if k is NO_KEY or k not in base.items:
            return UNKNOWN   # (Python raises KeyError)
        return Mapping({name: v for name, v in base.items.items() if name != k})
    return UNKNOWN


def rebind(ctx: Context, frame: Frame, old: Any, new: Any, depth: int = 0, done: set[int] | None = None) -> bool:
    """Every holder of `old` in reach now holds `new`: the names of `frame`, of the
    frames of the calls being run and of the frames around them, the fields of the
    objects they bind, and the `for` loops going over it.  A holder outside `frame`
    changed is an effect of the call being run (it is then not memoised).  The lists
    joined where paths met (`Context.merged`) that `old` may be, or that may be `old`,
    may have changed too: each becomes its join with the change, still noted as what the
    new one may be where something holds it.  Whether something held `old`."""
    done = set() if done is None else done
    done.add(id(old))
    held = new is not old and _give(ctx, frame, old, new)   # (the same: `SeqOf.reverse()`)
    if depth < _MAX_NESTING:
        for other in ctx.merged.related(old):
            if id(other) not in done:
                changed = join(other, new)
                if rebind(ctx, frame, other, changed, depth + 1, done):
                    ctx.merged.carry(old, new, other, changed)
    return held


def settled(ctx: Context, frame: Frame, old: Any, new: Any) -> Any:
    """What a name of `frame` holding `old` holds after a change to `new` made where the
    frame's own statements do not run it for certain (`Frame.level`): either."""
    if ctx.traced_uncertainty <= frame.level or new is old:
        return new
    return join_held((old, new), {}, ctx.merged)


def _give(ctx: Context, frame: Frame, old: Any, new: Any) -> bool:
    seen: set[int] = set()
    held = elsewhere = False
    uncertainty, either = ctx.traced_uncertainty, None
    for start in (frame, *(a.caller for a in ctx.active)):
        f = start
        while f is not None and id(f) not in seen:
            seen.add(id(f))
            if f.level < uncertainty:   # the change may not happen for this frame: either
                if either is None and _rebound(f.env, old, old):   # (no change: whether it holds `old`)
                    either = join(old, new)   # one value for every such holder
                given = either
            else:
                given = new
            if given is not None and _rebound(f.env, old, given):
                held = True
                elsewhere = elsewhere or f is not frame
            f = f.parent
    if elsewhere:
        ctx.effects += 1
    for cell in ctx.live:   # a `for` loop goes on over the list as it is now, ...
        if cell[0] is old:
            cell[0] = new
            held = True
    return held


def unknown_changed(ctx: Context, frame: Frame) -> None:
    """A value not known was changed in place (an item written, a method called): the
    lists and dicts that met something not known where paths met may be it (no longer
    held as they were, they are not looked for again; a state saved before holds them
    on a path where this did not happen)."""
    parts = ctx.merged.unknown_parts
    if parts:
        held = list(parts.values())
        parts.clear()
        for part in held:
            rebind(ctx, frame, part, UNKNOWN, 1)


def _rebound(env: dict, old: Any, new: Any) -> bool:
    """Whether a name of `env` or a field of an object it binds held `old` (it now holds
    `new`); an object's field counts as held elsewhere too."""
    changed = False
    values = env.values()
    if any(map(is_, values, repeat(old))):   # (a scan in C)
        for name, value in env.items():
            if value is old:
                env[name] = new
                changed = True
    if Instance not in map(type, values):   # (the common case, also scanned in C)
        return changed
    for value in values:
        if type(value) is Instance and any(map(is_, value.fields.values(), repeat(old))):
            fields = value.fields
            for field, held in fields.items():
                if held is old:
                    fields[field] = new
                    changed = True
    return changed


def fresh(value: Any, depth: int = 0) -> Any:
    """`value` with a new object for each list and dict in it (a function's result given
    again: Python makes them anew at each call); `value` itself when it holds none."""
    t = type(value)
    if depth > _MAX_NESTING:
        return value
    if t is Seq:
        items = tuple(fresh(v, depth + 1) for v in value.items)
        return Seq(items, True) if value.is_list else (value if _same_items(items, value.items) else Seq(items))
    if t is SeqOf:
        return SeqOf(fresh(value.item, depth + 1))
    if t is SeqTail:
        return SeqTail(tuple(fresh(v, depth + 1) for v in value.items))
    if t is Mapping:
        return Mapping({k: fresh(v, depth + 1) for k, v in value.items.items()})
    return value


def _same_items(a: tuple, b: tuple) -> bool:
    return all(x is y for x, y in zip(a, b))


def _int(key: Any) -> int | None:
    return key.value if type(key) is Const and type(key.value) in (int, bool) else None


def _some_int(key: Any) -> bool:
    """Some number the code computed (an index), not a slice."""
    return key is SCALAR


def write_field(ctx: Context, obj: Instance, name: str, value: Any) -> None:
    """`obj.name = value`, which every holder of `obj` sees (an effect of the call being
    run): joined with the field's value when `obj` was made where the write may not happen."""
    old = obj.fields.get(name)
    if old is not None and obj.level < ctx.traced_uncertainty:
        value = join(old, value)
    obj.fields[name] = value
    ctx.effects += 1
