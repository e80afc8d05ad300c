"""The semaphore protocol of one kernel run (rules PAL302-PAL304): every semaphore a DMA
or `pl.semaphore_signal` increments must be waited somewhere, and a wait needs something
that increments.  JAX's TPU interpreter reports the first as `Semaphore ... has non-zero
count ... at kernel exit`; the second hangs.

The ledger is kept per semaphore *declaration* (a scratch / `run_scoped` entry): which
DMAs start on it, which waits wait on it, anywhere in the kernel and the helpers it calls.
Pairing by declaration is path-insensitive on purpose: a prefetch started in one grid step
and waited in the next, or a copy re-described for its wait, pair up.  Only what the run
saw whole is judged: a declaration whose semaphores reach code we do not see, a wait or a
start whose semaphore we do not know, or an entry cut short by its step budget, give
silence."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ..report import ContractFinding, ContractNote, ContractSuggestion, Edit
from ..values import Bound, Func, Instance, Loc, Mapping, Partial, Seq, SeqOf, SeqTail
from .sems import Descriptor, Sem, map_sems


class Event(Enum):
    DMA_START = "dma start"        # a DMA's start signals its semaphore(s)
    DMA_WAIT = "dma wait"
    SIGNAL = "signal"              # pl.semaphore_signal
    WAIT = "wait"                  # pl.semaphore_wait


@dataclass
class SemLedger:
    """Events on one declaration, per element: a static index path (`sems.at[1]` -> (1,))
    or None for an element chosen at run time (it pairs with any)."""

    decl: Loc
    kind: str
    owner: Any                    # the PallasCall whose kernel declares it (None: not known)
    events: dict[tuple[Event, tuple | None], list[Loc]] = field(default_factory=dict)

    def at(self, event: Event, element: tuple | None) -> list[Loc]:
        return self.events.get((event, element), [])

    def elements(self, event: Event) -> list[tuple | None]:
        return [el for (ev, el) in self.events if ev is event]

    def any(self, event: Event, element: tuple | None) -> bool:
        """Whether `event` happens on `element` or on an element chosen at run time
        (any element, when `element` is itself dynamic)."""
        if element is None:
            return bool(self.elements(event))
        return bool(self.at(event, element) or self.at(event, None))


@dataclass(unsafe_hash=True)
class Logged:
    """One event on a declared semaphore, as `Protocol.record` got it."""

    event: Event
    sem: Sem
    at: Loc | None
    remote: bool
    amount: int | None
    certain: bool


@dataclass
class Protocol:
    """What one entry saw of its scratch semaphores."""

    ledgers: dict[int, SemLedger] = field(default_factory=dict)   # id(declaration node) -> ledger
    escaped: set[int] = field(default_factory=set)                # declarations handed to unknown code
    blind: set[Event] = field(default_factory=set)                # events on semaphores we do not know
    remote_starts: set[int] = field(default_factory=set)          # id(node) of remote DMAs' starts
    log: list[Logged] = field(default_factory=list)               # the events on declared semaphores, in order
    kind_mismatches: list = field(default_factory=list)           # kinds.KindMismatch: PAL301 findings to settle
    changes: int = 0              # declarations, events and escapes noted, even repeated ones

    def declare(self, value: Any, owner: Any = None) -> None:
        """Note the semaphore declarations of scratch refs (`run_scoped`, scratch_shapes)
        of `owner`'s kernel."""
        self.changes += 1
        for sem, decl in counted_sems(value):
            self.ledgers.setdefault(id(decl.node), SemLedger(decl, sem.kind, owner))

    def record(self, event: Event, value: Any, at: Loc | None, remote: bool = False, amount: int | None = None,
               certain: bool = True) -> None:
        """Note an event (its amount and whether its path is certain matter to a replay only)."""
        self.changes += 1
        if remote and at is not None:
            self.remote_starts.add(id(at.node))
        if not isinstance(value, Sem):
            self.blind.add(event)
            return
        ledger = self.ledgers.get(id(value.decl.node)) if value.decl is not None else None
        if ledger is not None and not value.scalar:   # a shape error (PAL0xx) first: the count is moot
            self.escaped.add(id(ledger.decl.node))
        elif ledger is not None and at is not None:
            ledger.events.setdefault((event, value.element), []).append(at)
            self.log.append(Logged(event, value, at, remote, amount, certain))

    def escape(self, value: Any) -> None:
        """Semaphores (or descriptors holding them) given to code we do not model."""
        decls = escaped_decls(value)
        if decls:
            self.changes += 1
            self.escaped |= decls

    def owners(self) -> list[Any]:
        """The pallas_calls whose declarations saw events (the ones worth a replay)."""
        seen: dict[int, Any] = {}
        for key, ledger in self.ledgers.items():
            if ledger.events and ledger.owner is not None and key not in self.escaped:
                seen.setdefault(id(ledger.owner), ledger.owner)
        return list(seen.values())

    def findings(self, decided: set[int]) -> list[ContractFinding]:
        """Warnings on the declarations a replay did not decide: pairing by declaration
        assumes every path runs (a prefetch waited in a later step, a branch)."""
        out: list[ContractFinding] = []
        for key, ledger in self.ledgers.items():
            if key not in self.escaped and key not in decided:
                out.extend(_judge(ledger, self.blind, self.remote_starts))
        return out


def counted_sems(value: Any) -> list[tuple[Sem, Loc]]:
    """The semaphores in `value` the protocol counts, with their declarations: declared in
    this document, and TPU's (a Mosaic GPU semaphore's count works otherwise)."""
    found: list[tuple[Sem, Loc]] = []

    def note(sem: Sem) -> Sem:
        if sem.decl is not None and sem.decl.path is None and not sem.gpu:
            found.append((sem, sem.decl))
        return sem
    map_sems(value, note)
    return found


def escaped_decls(value: Any, depth: int = 0) -> set[int]:
    """id() of the declarations of the semaphores in `value` (a semaphore, a descriptor
    holding them, a sequence or mapping of those)."""
    if depth > 4:
        return set()
    if isinstance(value, Sem):
        return {id(value.decl.node)} if value.decl is not None else set()
    if isinstance(value, Descriptor):
        return escaped_decls(value.dst, depth + 1) | escaped_decls(value.src, depth + 1)
    if isinstance(value, (Seq, SeqTail)):
        return set().union(*(escaped_decls(item, depth + 1) for item in value.items))
    if isinstance(value, Mapping):
        return set().union(*(escaped_decls(item, depth + 1) for item in value.items.values()))
    if isinstance(value, Instance):   # an object's fields
        return set().union(*(escaped_decls(item, depth + 1) for item in value.fields.values()))
    return set()


def holds_callable(value: Any, depth: int = 0) -> bool:
    """Whether `value` is or holds (in sequences, mappings, object fields) a function."""
    if isinstance(value, (Func, Partial, Bound)):
        return True
    if depth > 4:
        return False
    if isinstance(value, (Seq, SeqTail)):
        return any(holds_callable(item, depth + 1) for item in value.items)
    if isinstance(value, SeqOf):
        return holds_callable(value.item, depth + 1)
    if isinstance(value, Mapping):
        return any(holds_callable(item, depth + 1) for item in value.items.values())
    if isinstance(value, Instance):
        return any(holds_callable(item, depth + 1) for item in value.fields.values())
    return False


def _judge(ledger: SemLedger, blind: set[Event], remote_starts: set[int]) -> list[ContractFinding]:
    note = (ContractNote(ledger.decl, "the semaphore is declared here"),)
    out = []
    waited = (Event.DMA_WAIT, Event.WAIT)
    if Event.DMA_WAIT not in blind:
        for element in ledger.elements(Event.DMA_START):
            if not any(ledger.any(w, element) for w in waited):
                start = ledger.at(Event.DMA_START, element)[0]
                fix = wait_after(start) if id(start.node) not in remote_starts else ()   # which wait: unsure
                out.append(ContractFinding("PAL302", start, _NEVER_WAITED, note, fix, _ASSUMED))
    if Event.DMA_START not in blind:
        for element in ledger.elements(Event.DMA_WAIT):
            if not ledger.any(Event.DMA_START, element) and not ledger.any(Event.SIGNAL, element):
                out.append(ContractFinding("PAL303", ledger.at(Event.DMA_WAIT, element)[0], _NEVER_STARTED, note,
                                           severity=_ASSUMED))
    if Event.SIGNAL not in blind:
        for element in ledger.elements(Event.WAIT):
            if not ledger.any(Event.SIGNAL, element) and not ledger.any(Event.DMA_START, element):
                out.append(ContractFinding("PAL303", ledger.at(Event.WAIT, element)[0], _NEVER_SIGNALLED, note,
                                           severity=_ASSUMED))
    if Event.WAIT not in blind:
        for element in ledger.elements(Event.SIGNAL):
            if not any(ledger.any(w, element) for w in waited):
                out.append(ContractFinding("PAL304", ledger.at(Event.SIGNAL, element)[0], _SIGNAL_NEVER_WAITED, note,
                                           severity=_ASSUMED))
    return out


# Pairing by declaration assumes the paths it did not follow: a warning, not an error.
_ASSUMED = "warning"


def wait_after(start: Loc) -> tuple[ContractSuggestion, ...]:
    """For a local `copy.start()` alone on its line: wait right after it (a choice:
    correct, but the copy no longer overlaps anything; the author may rather wait later)."""
    node, block = start.node, start.block
    func = node.func if isinstance(node, ast.Call) else None
    if start.path is not None or not isinstance(func, ast.Attribute) or func.attr != "start" \
            or not isinstance(func.value, ast.Name) or node.lineno != node.end_lineno:
        return ()
    line = block.line(node.lineno - 1)
    raw = line.encode()
    rest = raw[node.end_col_offset:].decode(errors="replace").strip()
    if raw[:node.col_offset].strip() or (rest and not rest.startswith("#")):
        return ()
    indent = line[: len(line) - len(line.lstrip())]
    wait = f"{func.value.id}.wait()"
    line_end = ast.Pass(lineno=node.lineno, col_offset=len(raw), end_lineno=node.lineno, end_col_offset=len(raw))
    return (ContractSuggestion(f"Wait for the copy right after starting it (`{wait}`)",
                               (Edit(Loc(block, line_end), f"\n{indent}{wait}", insert_after=True),)),)


_NEVER_WAITED = (
    "DMA started and never waited: no `.wait()` in the kernel waits on this semaphore, so the kernel ends with a "
    "non-zero semaphore (JAX's TPU interpreter: `Semaphore ... has non-zero count ... at kernel exit`) and may read "
    "the buffer before the copy lands. Wait on it (`copy.wait()`) before it is needed, and before the kernel ends.")
_NEVER_STARTED = ("DMA waited but never started: no DMA in the kernel signals this semaphore, so this wait hangs. "
                  "Start the copy (`copy.start()`) before waiting on it.")
_NEVER_SIGNALLED = ("`pl.semaphore_wait` on a semaphore nothing signals: no `pl.semaphore_signal` in the kernel "
                    "signals it, so this wait hangs.")
_SIGNAL_NEVER_WAITED = (
    "`pl.semaphore_signal` without a matching `pl.semaphore_wait`: the kernel ends with a non-zero semaphore "
    "(JAX's TPU interpreter: `Semaphore ... has non-zero count ... at kernel exit`).")
