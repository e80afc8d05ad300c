"""Lists and dicts joined where paths met (`envs.join_held`): which ones each may be."""

from __future__ import annotations

from typing import Any

from ..values import UNKNOWN


class Merges:
    """The lists and dicts joined where paths met, and which ones each may be: a change
    through one of them may change the other (`mutation.rebind`).  Those joined into
    something not known are noted together (`unknown_parts`)."""

    __slots__ = ("_joins_of", "_parts_of", "unknown_parts")

    def __init__(self) -> None:
        self._parts_of: dict[int, tuple[Any, dict[int, Any]]] = {}   # id(joined) -> (joined, {id: part})
        self._joins_of: dict[int, list[Any]] = {}                    # id(part) -> the joins it is in
        self.unknown_parts: dict[int, Any] = {}

    def note(self, joined: Any, parts: dict[int, Any]) -> None:
        if joined is UNKNOWN:
            self.unknown_parts.update(parts)
            return
        entry = self._parts_of.setdefault(id(joined), (joined, {}))
        for key, part in parts.items():
            if key not in entry[1]:
                entry[1][key] = part
                self._joins_of.setdefault(key, []).append(joined)

    def carry(self, old: Any, new: Any, other: Any, other_new: Any) -> None:
        """`old` became `new`, and `other`, which may be it, became `other_new`: the two new
        ones may still be each other (and `other_new` what else `other` may be)."""
        parts = {id(p): p for p in self._parts(other) if p is not old}
        parts[id(new)] = new
        self.note(other_new, parts)

    def related(self, value: Any) -> list[Any]:
        """The lists and dicts `value` was joined from, and the joined ones that may be
        `value` (each may be the other)."""
        key = id(value)
        if key not in self._parts_of and key not in self._joins_of:   # (the common case)
            return []
        return [*self._parts(value), *(j for j in self._joins_of.get(key, ()) if any(p is value for p in self._parts(j)))]

    def _parts(self, value: Any) -> list[Any]:
        entry = self._parts_of.get(id(value))
        return list(entry[1].values()) if entry is not None and entry[0] is value else []
