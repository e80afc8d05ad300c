"""Lattice helpers over environments and values: joins at merges, structural equality
for loop fixpoints, call signatures for memoising."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..values import (
    SCALAR,
    UNKNOWN,
    Bound,
    Const,
    DomainValue,
    Func,
    Instance,
    Mapping,
    Partial,
    Range,
    Seq,
    SeqOf,
    SeqTail,
    join,
    join_all,
)
from .frame import Arg
from .merges import Merges


def holds(value: Any, kind: Callable[[Any], bool], depth: int = 0, clean: dict[int, int] | None = None) -> bool:
    """Whether `value` holds a value of this `kind` within 6 levels of containers.

    `clean` (id -> depth) remembers the containers found to hold none from a depth: values
    share parts, and without it a search could visit the same parts exponentially often.
    The caller keeps the values alive while it uses one `clean` for several searches."""
    if kind(value):
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
    if any(holds(v, kind, depth + 1, clean) for v in items):
        return True
    clean[id(value)] = depth
    return False


@dataclass(slots=True)
class Memoised:
    """A memoised call of a top-level function: its result and the arguments it was given
    (kept alive: values signed by identity keep their `id`); made within a call to
    remember (`interp.summaries`), also the steps a run of it takes, the `Context.deps`
    it reads and whether it changed the entry's record (elsewhere: taken as changed)."""

    result: Any
    given: tuple
    steps: int = 0
    deps: dict | None = None
    touched: bool = True


def signature(value: Any, depth: int = 0) -> Any:
    """A hashable summary of an abstract value (for memoising calls)."""
    if isinstance(value, DomainValue):
        return value.signature()
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
        return (type(value).__name__, getattr(value, "is_list", False),
                tuple(signature(v, depth + 1) for v in value.items))
    if isinstance(value, str):
        return value
    if type(value) is Instance and depth < 6:   # changed in place: what its fields hold now
        return (id(value), tuple((k, signature(v, depth + 1)) for k, v in value.fields.items()))
    return id(value)


def closes_over_a_call(value: Any) -> bool:
    """A function defined in a function (or a partial or bound method of one): what it reads
    of that call's frame may change between two calls it is given to, and its signature
    (its identity) does not tell them apart."""
    kind = type(value)
    if kind is Arg:   # an argument as given to a call or a partial
        return holds(value.value, closes_over_a_call)
    if kind is Func:
        return value.frame is not None and value.frame.parent is not None
    if kind is Partial:
        return closes_over_a_call(value.func) or \
            any(holds(a, closes_over_a_call) for a in (*value.args, *value.kwargs.values()))
    if kind is Bound:
        return closes_over_a_call(value.func) or holds(value.self_value, closes_over_a_call)
    return False


def same(a: Any, b: Any, depth: int = 0) -> bool:
    """Structural equality of abstract values (enough to detect a loop's fixpoint)."""
    if a is b:
        return True
    if type(a) is not type(b) or depth > 6:
        return False
    if isinstance(a, DomainValue):
        return a.same(b)
    if isinstance(a, Const):
        return type(a.value) is type(b.value) and a.value == b.value
    if isinstance(a, (Seq, SeqTail)):
        return len(a.items) == len(b.items) and all(same(x, y, depth + 1) for x, y in zip(a.items, b.items))
    if isinstance(a, SeqOf):
        return same(a.item, b.item, depth + 1)
    if isinstance(a, Mapping):
        return a.items.keys() == b.items.keys() and all(same(v, b.items[k], depth + 1) for k, v in a.items.items())
    return False


def _tracked(value: Any) -> bool:
    return isinstance(value, DomainValue) and value.loop_tracked


def tracked_changed(a: dict, b: dict) -> bool:
    """Whether a loop round changed a value that holds loop-tracked domain values
    (`DomainValue.loop_tracked`: worth another round)."""
    clean: dict[int, int] = {}
    for k, v in b.items():
        old = a.get(k, UNKNOWN)
        if (holds(v, _tracked, 0, clean) or holds(old, _tracked, 0, clean)) and not same(old, v):
            return True
    return False


def read_changed(a: dict, b: dict, reads: frozenset[str]) -> bool:
    """Whether a loop round changed a Python value the body reads (a number, None, a tuple
    of them): the next round computes with it."""
    for k in reads:
        v = b.get(k, _ABSENT)
        if v is _ABSENT:
            continue
        old = a.get(k, UNKNOWN)
        if old is not v and _structural(old) and _structural(v) and not same(old, v):
            return True
    return False


_ABSENT = object()


def _structural(value: Any, depth: int = 0) -> bool:
    """Python's values (numbers, None, tuples of them, ...), which `same` compares by their
    structure (a domain's value, an object: by identity, new in every round)."""
    if value is UNKNOWN or value is SCALAR or type(value) is Const:
        return True
    if type(value) in (Seq, Range, SeqTail) and depth < 6:
        return all(_structural(v, depth + 1) for v in value.items)
    if type(value) is Mapping and depth < 6:
        return all(_structural(v, depth + 1) for v in value.items.values())
    return type(value) is SeqOf and depth < 6 and _structural(value.item, depth + 1)


def env_same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(same(v, b[k]) for k, v in a.items())


def join_envs(envs: list[dict], merged: Merges | None = None) -> dict:
    """The state after paths meet.  `merged` (a run's `Context.merged`) is told which lists
    and dicts each new joined one may be (a change through it may change them)."""
    if len(envs) == 1:
        return envs[0]
    shared: dict[tuple[int, ...], Any] = {}
    if len(envs) == 2:   # two branches: most names hold the same value in both
        a, b = envs
        joined = {k: v if v is (w := b.get(k, UNKNOWN)) else join(v, w)
                  if type(v) not in CONTAINERS and type(w) not in CONTAINERS else join_held((v, w), shared, merged)
                  for k, v in a.items()}
        if len(a) != len(b) or not a.keys() == b.keys():
            joined.update((k, join_held((UNKNOWN, w), shared, merged)) for k, w in b.items() if k not in a)
        return joined
    keys: set[str] = set()
    for e in envs:
        keys.update(e)
    return {k: join_held(tuple(e.get(k, UNKNOWN) for e in envs), shared, merged) for k in keys}


def join_held(values: tuple, shared: dict[tuple[int, ...], Any], merged: Merges | None) -> Any:
    """The join of what one name holds on each path (or an expression may give); names
    that hold the same lists on every path hold one list after the merge too (a change
    through one is seen by all)."""
    if not any(type(v) in CONTAINERS for v in values):
        return join_all(values) if len(values) != 2 else join(*values)
    key = tuple(map(id, values))
    if key not in shared:
        joined = shared[key] = join_all(values)
        if merged is not None and (type(joined) in CONTAINERS or joined is UNKNOWN):
            parts = {id(v): v for v in values if type(v) in CONTAINERS and v is not joined}
            if parts:
                merged.note(joined, parts)
    return shared[key]


# Python's containers as the interpreter holds them (tuples too: a pre-filter for the
# lists and dicts `mutation.in_place` follows); no domain reads or writes their items.
CONTAINERS = (Seq, SeqOf, SeqTail, Mapping)


class ActiveCall:
    """A user function being run, with what its parameters were bound to and the frame
    that called it."""

    __slots__ = ("_signature", "bindings", "caller", "func", "node")

    def __init__(self, node: ast.AST, bindings: tuple, caller: Any = None, func: Any = None) -> None:
        self.node = node
        self.func = func
        self.bindings = bindings
        self.caller = caller
        self._signature: tuple | None = None

    @property
    def signature(self) -> tuple:
        if self._signature is None:
            self._signature = signature(self.bindings)
        return self._signature

    def repeats(self, active: list[ActiveCall]) -> bool:
        """Whether this call is already being run with the same arguments: unbounded
        recursion. (Signed only when the function is on the stack, each call once.)"""
        node = self.node
        for a in active:
            if a.node is node and a.signature == self.signature:
                return True
        return False
