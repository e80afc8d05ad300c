"""The analysis's memo tables, held by one explicit object.

Parsed trees, the names each block binds, the creator facts of each block, canonical
names, the array model's answers, the `nonlocal` names and the parameters of each
function, how often it binds each name, whether a loop breaks or continues, the parent
of each node of a block and its `.at[...]` views and functions are pure functions of
their keys, so they are shared by every document (equal text, equal answer) and bounded.
`CACHES` is the one instance; `CACHES.clear()` empties every table (tests, a long-running server
that wants its memory back)."""

from __future__ import annotations

import itertools
import weakref
from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedMemo(Generic[K, V]):
    """A dict that drops its oldest `evict` share of entries when it reaches `limit`."""

    def __init__(self, limit: int, evict: float = 1.0) -> None:
        self.limit = limit
        self.evict = evict
        self._data: dict[K, V] = {}
        self.get = self._data.get   # the hot path: a plain dict lookup

    def put(self, key: K, value: V) -> V:
        if len(self._data) >= self.limit:
            drop = max(1, int(self.limit * self.evict))
            for old in list(itertools.islice(self._data, drop)):
                del self._data[old]
        self._data[key] = value
        return value

    def clear(self) -> None:
        self._data.clear()

    def discard(self, key: K, value: V) -> None:
        """Forget `key` if it still maps to `value`."""
        if self._data.get(key) is value:
            del self._data[key]

    def __len__(self) -> int:
        return len(self._data)


class NodeMemo(weakref.WeakKeyDictionary):
    """A memo keyed by syntax nodes that does not keep them alive.  The interpreter's hot
    paths read `data` (weak reference -> value) themselves: `data.get(weakref.ref(node))`
    costs C calls only, where `get(node)` is a Python method."""

    data: dict[weakref.ref, Any]


class Caches:
    def __init__(self) -> None:
        # text -> tree; the oldest third goes (blocks keep their own trees: this only
        # shares trees between equal texts, so a long session does not pile them up)
        self.parse: BoundedMemo[str, Any] = BoundedMemo(3000, 1 / 3)
        self.headers: BoundedMemo[str, Any] = BoundedMemo(3000, 1 / 3)   # def text -> its header's node
        self.block_names: BoundedMemo[str, frozenset] = BoundedMemo(20_000)
        self.facts: BoundedMemo[tuple, Any] = BoundedMemo(20_000)
        self.canonical: BoundedMemo[str, str] = BoundedMemo(100_000)
        # (operation, its arguments) -> the array model's answer (kernels repeat their operations)
        self.array_ops: BoundedMemo[tuple, Any] = BoundedMemo(20_000, 1 / 3)
        self.nonlocals: NodeMemo = NodeMemo()    # def node -> names
        self.walrus: NodeMemo = NodeMemo()       # expression -> the names its `:=` bind
        self.generators: NodeMemo = NodeMemo()   # def node -> generator kind
        self.parameters: NodeMemo = NodeMemo()   # def node -> its parameters
        self.loop_facts: NodeMemo = NodeMemo()   # loop node -> what its body reads, changes
        self.bindings: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()    # def node -> {name: times bound}
        self.parents: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()     # block tree -> {node: (parent, field)}
        self.views_and_defs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # block tree -> `.at` views, defs
        # block tree -> the blocks holding it (a tree moved to another text must be one block's alone)
        self.holders: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        # block tree -> the trees sharing nodes with it, with their texts (`splice.py`)
        self.families: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def clear(self) -> None:
        for memo in (self.parse, self.headers, self.block_names, self.facts, self.canonical, self.array_ops):
            memo.clear()
        self.nonlocals.clear()
        self.walrus.clear()
        self.generators.clear()
        self.parameters.clear()
        self.loop_facts.clear()
        self.bindings.clear()
        self.parents.clear()
        self.views_and_defs.clear()
        self.holders.clear()
        self.families.clear()


CACHES = Caches()
