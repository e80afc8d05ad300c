"""Lattice helpers over environments and values: joins at merges, structural equality
for loop fixpoints, call signatures for memoising."""

from __future__ import annotations

from typing import Any

from ..pallas.values import BufferRef
from ..values import (
    UNKNOWN,
    Const,
    Instance,
    Mapping,
    Sem,
    Seq,
    SeqOf,
    SeqTail,
    join_all,
)
from .frame import Arg


def holds_sem(value: Any, depth: int = 0, clean: dict[int, int] | None = None) -> bool:
    """Whether `value` holds a semaphore within 6 levels of containers.

    `clean` (id -> depth) remembers the containers found to hold none from a depth: values
    share parts, and without it a search could visit the same parts exponentially often.
    The caller keeps the values alive while it uses one `clean` for several searches."""
    if isinstance(value, Sem):
        return True
    if depth > 6:
        return False
    if isinstance(value, (Seq, SeqTail)):
        items: Any = value.items
    elif isinstance(value, Mapping):
        items = value.items.values()
    elif isinstance(value, Instance):
        items = value.fields.values()
    else:
        return False
    if clean is None:
        clean = {}
    elif clean.get(id(value), depth + 1) <= depth:
        return False
    if any(holds_sem(v, depth + 1, clean) for v in items):
        return True
    clean[id(value)] = depth
    return False


def signature(value: Any, depth: int = 0) -> Any:
    """A hashable summary of an abstract value (for memoising calls)."""
    if isinstance(value, Sem):
        return ("S", value.kind, value.dims, id(value.decl), tuple(id(x) for x in value.sites))
    if isinstance(value, Const):
        try:
            hash(value.value)
            return ("C", type(value.value), value.value)
        except TypeError:
            return id(value)
    if isinstance(value, (tuple, list)) and depth < 6:
        return tuple(signature(v, depth + 1) for v in value)
    if isinstance(value, Arg):
        return signature(value.value, depth)
    if isinstance(value, (Seq, SeqTail)) and depth < 6:
        return (type(value).__name__, tuple(signature(v, depth + 1) for v in value.items))
    if isinstance(value, str):
        return value
    if isinstance(value, BufferRef):   # a fresh one each time a kernel runs: alike by what is known
        return ("B", value.dims, value.open, value.dtype, id(value.decl.node) if value.decl is not None else None)
    return id(value)


def same(a: Any, b: Any, depth: int = 0) -> bool:
    """Structural equality of abstract values (enough to detect a loop's fixpoint)."""
    if a is b:
        return True
    if type(a) is not type(b) or depth > 6:
        return False
    if isinstance(a, Sem):
        return (a.kind == b.kind and a.dims == b.dims and a.decl is b.decl and len(a.sites) == len(b.sites)
                and all(x is y for x, y in zip(a.sites, b.sites)))
    if isinstance(a, Const):
        return type(a.value) is type(b.value) and a.value == b.value
    if isinstance(a, (Seq, SeqTail)):
        return len(a.items) == len(b.items) and all(same(x, y, depth + 1) for x, y in zip(a.items, b.items))
    if isinstance(a, SeqOf):
        return same(a.item, b.item, depth + 1)
    return False


def semaphores_changed(a: dict, b: dict) -> bool:
    """Whether a loop round changed a value that holds semaphores (worth another round)."""
    clean: dict[int, int] = {}
    for k, v in b.items():
        old = a.get(k, UNKNOWN)
        if (holds_sem(v, 0, clean) or holds_sem(old, 0, clean)) and not same(old, v):
            return True
    return False


def env_same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(same(v, b[k]) for k, v in a.items())


def join_envs(envs: list[dict]) -> dict:
    if len(envs) == 1:
        return envs[0]
    keys: set[str] = set()
    for e in envs:
        keys.update(e)
    out = {}
    for k in keys:
        vals = [e.get(k, UNKNOWN) for e in envs]
        out[k] = join_all(vals)
    return out

