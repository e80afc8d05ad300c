"""Semaphore kinds (rule PAL301): `pl.semaphore_signal` / `semaphore_wait` take a REGULAR
or BARRIER semaphore, a DMA's wait takes a DMA semaphore (JAX checks both when it
traces for TPU: `Must signal semaphores of the following types: ...`, `dma_wait requires
a DMA semaphore, but got a regular semaphore`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from ..interp.frame import Context
from ..report import ContractFinding, ContractNote, ContractSuggestion, Edit
from ..values import Loc
from .protocol import Event, Protocol
from .sems import Sem

_REDECLARE = ", or declare a REGULAR semaphore for this."
_COPY_SIGNALS = ": a copy here signals this one, so wait with that copy's descriptor."
_DECLARED_AS = {"DMA": "a DMA semaphore", "REGULAR": "a REGULAR semaphore", "BARRIER": "a BARRIER semaphore"}


@dataclass(unsafe_hash=True)
class KindMismatch:
    """A PAL301 finding and what it is about, for `settle_kind_choices`."""

    finding: ContractFinding
    sem: Sem
    wanted: str                # the kind the call needs: "DMA" or "REGULAR"
    call: Loc | None           # the `pl.semaphore_wait(...)` / `signal(...)` call, if it is one


def check_kind(ctx: Context, value: Any, kinds: frozenset[str] | None, verb: str, at: Loc | None,
               call: Loc | None = None) -> None:
    """Record a PAL301 finding when `value` is a semaphore of a kind `kinds` excludes."""
    if ctx.silent or kinds is None or at is None or at.path is not None or not isinstance(value, Sem) \
            or value.kind not in _DECLARED_AS or value.kind in kinds:
        return
    if ctx.protocol is not None:   # JAX stops tracing here: the semaphore's count is moot
        ctx.protocol.escape(value)
    what = f"`{at.block.segment(at.node)}` is {_DECLARED_AS[value.kind]}"
    notes: tuple[ContractNote, ...] = ()
    if value.decl is not None:
        notes = (ContractNote(value.decl, f"declared as {_DECLARED_AS[value.kind]} here"),)
    if "DMA" in kinds:
        head = "dma_wait requires a DMA semaphore, but got a regular semaphore"
        tail = "; wait on it with `pl.semaphore_wait`, or give the DMA a DMA semaphore."
    else:
        head = f"Must {verb} semaphores of the following types: {', '.join(sorted(kinds))}"
        tail = f"; a DMA semaphore is signalled by its DMA and waited by the descriptor's `.wait()`{_REDECLARE}"
    wanted = "DMA" if "DMA" in kinds else "REGULAR"
    finding = ContractFinding("PAL301", at, f"{head} — {what}{tail}", notes, _retype(value, wanted))
    ctx.rule_findings.append(finding)
    mismatches = getattr(ctx.protocol, "kind_mismatches", None)   # a replay's context keeps none
    if mismatches is not None:
        mismatches.append(KindMismatch(finding, value, wanted, call))


def settle_kind_choices(protocol: Protocol) -> None:
    """Once an entry has run: a declaration that also serves the other kind's calls is not
    redeclared (a DMA semaphore a copy signals stays one: the choice is the descriptor's
    `.wait()` instead of `pl.semaphore_wait`, where one named descriptor starts on it)."""
    for mismatch in protocol.kind_mismatches:
        decl = mismatch.sem.decl
        ledger = protocol.ledgers.get(id(decl.node)) if decl is not None else None
        if ledger is None:
            continue
        other = (Event.DMA_START, Event.DMA_WAIT) if mismatch.wanted == "REGULAR" else (Event.SIGNAL, Event.WAIT)
        if not any(ledger.elements(event) for event in other):
            continue
        starts = [at for (event, _), locs in ledger.events.items() if event is Event.DMA_START for at in locs]
        mismatch.finding.suggestions = _descriptor_wait(mismatch.call, starts) if mismatch.wanted == "REGULAR" else ()
        if mismatch.wanted == "REGULAR" and starts:   # redeclaring it would break the copy that signals it
            mismatch.finding.message = mismatch.finding.message.replace(_REDECLARE, _COPY_SIGNALS)


def _descriptor_wait(call: Loc | None, starts: list[Loc]) -> tuple[ContractSuggestion, ...]:
    """`pl.semaphore_wait(sem)` -> `copy.wait()`, where every start on the semaphore is
    `copy.start()` of one name in the wait's own block and the wait counts one."""
    node = call.node if call is not None else None
    if call is None or call.path is not None or not isinstance(node, ast.Call) or len(node.args) > 2 \
            or node.keywords or (len(node.args) == 2 and not _is_one(node.args[1])):
        return ()
    names = {_started_name(start) for start in starts if start.block is call.block and start.path is None}
    if len(names) != 1 or None in names or len(starts) != sum(s.block is call.block for s in starts):
        return ()
    wait = f"{names.pop()}.wait()"
    return (ContractSuggestion(f"Wait with the copy's descriptor: `{wait}`", (Edit(call, wait),)),)


def _started_name(start: Loc) -> str | None:
    node = start.node
    func = node.func if isinstance(node, ast.Call) else None
    if isinstance(func, ast.Attribute) and func.attr == "start" and isinstance(func.value, ast.Name):
        return func.value.id
    return None


def _is_one(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value == 1


def _retype(sem: Sem, kind: str) -> tuple[ContractSuggestion, ...]:
    """Declare the semaphore with the kind the call needs (a choice: the same declaration
    may serve other calls)."""
    decl = sem.decl
    node = decl.node if decl is not None else None
    target = node.func if isinstance(node, ast.Call) else node
    if decl is None or decl.path is not None or not isinstance(target, ast.Attribute) or target.attr != sem.kind:
        return ()
    text = decl.block.segment(target)
    new = text[: len(text) - len(sem.kind)] + kind
    return (ContractSuggestion(f"Declare it as `{new}`", (Edit(Loc(decl.block, target), new),)),)
