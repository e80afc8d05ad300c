"""Semaphore kinds (rule PAL301): `pl.semaphore_signal` / `semaphore_wait` take a REGULAR
or BARRIER semaphore, a DMA's wait takes a DMA semaphore (JAX checks both when it
traces for TPU: `Must signal semaphores of the following types: ...`, `dma_wait requires
a DMA semaphore, but got a regular semaphore`)."""

from __future__ import annotations

import ast
from typing import Any

from ..interp.frame import Context
from ..report import ContractFinding, ContractNote, ContractSuggestion, Edit
from ..values import Loc
from .sems import Sem

_DECLARED_AS = {"DMA": "a DMA semaphore", "REGULAR": "a REGULAR semaphore", "BARRIER": "a BARRIER semaphore"}


def check_kind(ctx: Context, value: Any, kinds: frozenset[str] | None, verb: str, at: Loc | None) -> None:
    """Record a PAL301 finding when `value` is a semaphore of a kind `kinds` excludes."""
    if ctx.silent or kinds is None or at is None or at.path is not None or not isinstance(value, Sem) \
            or value.kind not in _DECLARED_AS or value.kind in kinds:
        return
    what = f"`{at.block.segment(at.node)}` is {_DECLARED_AS[value.kind]}"
    notes: tuple[ContractNote, ...] = ()
    if value.decl is not None:
        notes = (ContractNote(value.decl, f"declared as {_DECLARED_AS[value.kind]} here"),)
    if "DMA" in kinds:
        head = "dma_wait requires a DMA semaphore, but got a regular semaphore"
        tail = "; wait on it with `pl.semaphore_wait`, or give the DMA a DMA semaphore."
    else:
        head = f"Must {verb} semaphores of the following types: {', '.join(sorted(kinds))}"
        tail = ("; a DMA semaphore is signalled by its DMA and waited by the descriptor's `.wait()`, "
                "or declare a REGULAR semaphore for this.")
    ctx.rule_findings.append(ContractFinding("PAL301", at, f"{head} — {what}{tail}", notes,
                                             _retype(value, "DMA" if "DMA" in kinds else "REGULAR")))


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
