"""Entry results an edit made stale, kept for an edit that takes the code back.

An undo, or a character typed and deleted, brings back a text the analysis has seen: its
blocks come back as the same objects (`BlockList.retire`), and a result an entry gave
then is valid again when every global name it read resolves to the block it resolved to
then, every other module it read is at the version it read, and the module's setting
is the same (the blocks run as entries of their own, the creator closure, the workspace's
generation).  Such a result is taken instead of running the entry again."""

from __future__ import annotations

from collections.abc import Callable

from typing import Any

from .records import record

EARLIER_RESULTS = 16


@record(slots=True)
class _Kept:
    result: Any            # engine.EntryResult
    setting: tuple         # what the module's setting was while it was valid


class EarlierResults:
    """The last EARLIER_RESULTS stale entry results, one per block, oldest first."""

    def __init__(self) -> None:
        self._kept: dict[Any, _Kept] = {}

    def keep(self, block: Any, result: Any, setting: tuple) -> None:
        """`result`, valid for `block` in `setting`, has gone stale."""
        if result.skipped or result.invoked:
            return   # no run behind it: nothing to save
        self._kept.pop(block, None)
        self._kept[block] = _Kept(result, setting)
        if len(self._kept) > EARLIER_RESULTS:
            del self._kept[next(iter(self._kept))]

    def recall(self, block: Any, setting: tuple, resolves: Callable[[str, Any], bool]) -> Any:
        """The result kept for `block` if it holds now, in `setting` (`resolves(name,
        key)`: the dependency still resolves so), taken out of the store; else None."""
        kept = self._kept.get(block)
        if kept is None or kept.setting != setting \
                or not all(resolves(name, key) for name, key in kept.result.deps.items()):
            return None
        del self._kept[block]
        return kept.result
