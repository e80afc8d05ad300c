"""How pallas-lsp runs an analysis under Python's cyclic garbage collector.

An analysis allocates its trees and values (about two million objects for a
20,000-line file) and almost all of them are long-lived and acyclic.  The callers of the
analysis (the server, `pallas-lsp check`) run it with the collector paused: the cyclic GC
would rescan those objects again and again (more than half the time of a first
analysis), and the collections after it would scan every one of them at least twice (a
pause of 0.1-0.3 s right before the server sends the diagnostics).

`frozen_after()` moves what an analysis leaves alive to the permanent generation
(`gc.freeze`) instead: those objects are never scanned, and the ones that die are still
freed by reference counting.  Before freezing, a run that made few objects (a keystroke's)
is collected: the collection scans only the objects made since the last freeze, so it is
cheap, and the run's cyclic garbage (interpreter frames and their closures) is freed.
After a first analysis that scan would cost too much: its cyclic garbage (about 10,000
objects for a 20,000-line file) is frozen with the rest, and `reclaim()` collects it.
"""

from __future__ import annotations

import contextlib
import gc
import os


# A collection before freezing scans the objects made since the last freeze: cheap after a
# keystroke's run (a few thousand: about 2 ms), too slow after a first analysis of a large file
# (two million); 100,000 costs about 10 ms.
YOUNG_SCAN_LIMIT = 100_000


def pause() -> bool:
    """Turn the cyclic GC off: whether it was on (to give `settle`)."""
    enabled = gc.isenabled()
    gc.disable()
    return enabled


def settle(enabled: bool) -> None:
    """After a run made with the GC paused: collect what it made if that is cheap, move
    every live object to the permanent generation, and turn the GC back on if it was."""
    if gc.get_count()[0] <= YOUNG_SCAN_LIMIT:
        gc.collect()   # only the objects made since the last freeze are scanned
    gc.freeze()
    if enabled:
        gc.enable()


@contextlib.contextmanager
def gc_paused(freeze: bool = False):
    """Run the block with the cyclic GC off (as it was before, on or off, afterwards);
    with `freeze`, `settle` after it."""
    enabled = pause()
    try:
        yield
    finally:
        if freeze:
            settle(enabled)
        elif enabled:
            gc.enable()


def frozen_after():
    """Run the block with the cyclic GC off; then freeze every live object, GC back on."""
    return gc_paused(freeze=True)


def reclaim() -> None:
    """Collect the cyclic garbage frozen by `frozen_after` (a full collection: up to about
    0.3 s with a 20,000-line file analysed), then freeze what is left again."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _rss() -> int | None:
    """Resident memory of this process in bytes (Linux), else None."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


class GrowthWatch:
    """`reclaim()` once the process has grown by `step` bytes since the last time (where
    its memory cannot be read: every `every` calls).  For long runs (`pallas-lsp check`
    over many files, documents kept open): a full collection costs about 0.5 s with a
    parse cache full of trees, so it is paid only when the frozen garbage may have
    become large.  Owned by the caller (one per checker process, one per server)."""

    def __init__(self, step: int = 128 << 20, every: int = 64) -> None:
        self.step = step
        self.every = every
        self._baseline: int | None = None
        self._calls = 0

    def reclaim_when_grown(self) -> bool:
        rss = _rss()
        self._calls += 1
        if rss is None:
            due = self._calls % self.every == 0
        else:
            if self._baseline is None:
                self._baseline = rss
            due = rss - self._baseline >= self.step
        if due:
            reclaim()
            self._baseline = _rss()
        return due


class SettleAfterAnswer:
    """The GC paused for a server's analysis run and settled only once the run's answer
    has been sent (a keystroke's collection costs 5-10 ms in a large kernel's file: the
    diagnostics do not wait for it).  The GC stays off in between, so that no automatic
    collection scans the run's objects first.  `pause` before a run (a run paused
    already keeps it so); `settle` after its answer, on the same thread, then
    `reclaim` when the process has grown (`GrowthWatch`).  Owned by the server."""

    def __init__(self) -> None:
        self.growth = GrowthWatch()
        self._enabled: bool | None = None   # whether the GC was on before the pause

    def pause(self) -> None:
        if self._enabled is None:
            self._enabled = pause()

    def settle(self) -> None:
        if self._enabled is not None:
            settle(self._enabled)
            self._enabled = None
            self.growth.reclaim_when_grown()
