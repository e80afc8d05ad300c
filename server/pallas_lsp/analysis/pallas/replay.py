"""Replay a kernel at every point of its static grid (bounded) and judge its semaphore
counts (`counting.Replay`): the errors of rules PAL302-PAL304.  The declarations a
replay decides are no longer judged by pairing (`protocol.Protocol.findings`)."""

from __future__ import annotations

import itertools
import logging
import math
from dataclasses import dataclass, field
from typing import Any

from ..contract.revisits import grid_sizes
from ..interp.core import Interpreter
from ..interp.frame import Budget, Context
from ..report import ContractFinding, ContractNote
from .counting import Hang, Increment, Replay
from .folding import ReplayFolding
from .invokers import invoke_kernel
from .model import Binding
from .protocol import Event, Protocol, wait_after
from .values import PallasCall, PallasCallable

log = logging.getLogger(__name__)

MAX_POINTS = 32           # grid points a kernel is replayed at
REPLAY_STEPS = 30_000     # interpreter steps for all the replays of one entry


@dataclass
class Verdicts:
    findings: list[ContractFinding] = field(default_factory=list)
    decided: set[int] = field(default_factory=set)     # id() of the declarations judged here


def replay_kernels(module: Any, protocol: Protocol, domains: tuple) -> Verdicts:
    """Judge the kernels whose scratch semaphores saw events.  When every event of a
    kernel ran on a certain path with a known element and amount, its run was the same at
    every grid point, and the entry's own run is counted (once: what one step leaves
    over, every step does); otherwise the kernel is replayed, within REPLAY_STEPS."""
    out = Verdicts()
    left = REPLAY_STEPS
    for record in protocol.owners():
        counted = _count_log(record, protocol)
        grid = _static_grid(record) if counted.undecided or counted.blind else None
        if grid is not None and left > 0:
            replay = Replay(record, grid)
            ctx = Context(module, (ReplayFolding(), *domains), budget=left, limit=left, memoise=False,
                          interrupted=module.interrupted)
            ctx.protocol = ctx.replay = replay
            try:
                _run(Interpreter(ctx), replay)
                counted = replay
            except (Budget, RecursionError):
                pass
            except Exception:
                log.exception("pallas-lsp: replaying a kernel failed")
            finally:
                left -= ctx.steps
        _judge(counted, out)
    return out


def _count_log(record: PallasCall, protocol: Protocol) -> Replay:
    """The entry's run of `record`'s kernel, counted as one grid step."""
    counted = Replay(record, (), every_step=record.grid is not None and grid_sizes(record.grid) != [])
    counted.blind = bool(protocol.blind)
    counted.decls.update({key: ledger.decl for key, ledger in protocol.ledgers.items()
                          if ledger.owner is record and key not in protocol.escaped})
    for e in protocol.log:
        counted.record(e.event, e.sem, e.at, e.remote, e.amount, e.certain)
    return counted


def _static_grid(record: PallasCall) -> tuple[int, ...] | None:
    """The grid to replay `record`'s kernel at, when static, small, and worth it."""
    if record.invoker.binding is not Binding.PALLAS_CALL or not record.ran:
        return None
    sizes = grid_sizes(record.grid) if record.grid is not None else []
    if sizes is None:
        return None
    grid = tuple(n for n in sizes if n is not None)
    if len(grid) != len(sizes) or math.prod(grid) > MAX_POINTS:
        return None
    if not record.replay_helps and not (record.axis_uses and math.prod(grid) > 1):
        return None   # a replay would run it as its first run did
    return grid


def _run(interp: Interpreter, replay: Replay) -> None:
    """The kernel at each grid point in order (the last axis fastest, as Pallas runs it)."""
    for point in itertools.product(*(range(n) for n in replay.grid)):
        replay.point = point
        invoke_kernel(interp, PallasCallable(replay.call), replay.call.operands)
        if replay.hang is not None:
            return


def _judge(replay: Replay, out: Verdicts) -> None:
    decided = set() if replay.blind else set(replay.decls) - replay.undecided
    hang = replay.hang
    if hang is not None:
        key = id(hang.decl.node)
        if key in decided:   # the kernel stops there: nothing else is known
            out.decided.add(key)
            out.findings.append(_hang_finding(hang))
        return
    out.decided |= decided
    for (key, element), queue in replay.pending.items():
        if key in decided and queue:
            out.findings.append(_leak_finding(queue[0], replay.decls[key], sum(i.amount for i in queue),
                                              (key, element) not in replay.waited))


def _element_text(element: tuple) -> str:
    return f" (element {', '.join(map(str, element))} of the array)" if element else ""


def _hang_finding(hang: Hang) -> ContractFinding:
    if hang.event is Event.DMA_WAIT:
        message = (f"DMA waited but never started: in {hang.where} this wait takes more than the DMAs started "
                   f"before it have signalled on its semaphore{_element_text(hang.element)}, so it hangs (JAX's TPU "
                   "interpreter waits forever). Start the copy before waiting on it: a copy the previous step "
                   "prefetches needs a first-step prologue (`@pl.when(step == 0)`).")
    else:
        message = (f"`pl.semaphore_wait` waits for more than is signalled: in {hang.where} this wait takes more "
                   f"than the signals before it have added to its semaphore{_element_text(hang.element)}, so it "
                   "hangs (JAX's TPU interpreter waits forever). Signal as much before it, or wait for less.")
    return ContractFinding("PAL303", hang.at, message, (ContractNote(hang.decl, "the semaphore is declared here"),))


def _leak_finding(first: Increment, decl: Any, left: int, never_waited: bool) -> ContractFinding:
    note = (ContractNote(decl, "the semaphore is declared here"),)
    exit_text = ("so the kernel ends with a non-zero semaphore (JAX's TPU interpreter: `Semaphore ... has non-zero "
                 "count ... at kernel exit`)")
    if first.event is Event.DMA_START:
        message = (f"DMA started and never waited: the copy started here in {first.where} is not waited by any "
                   f"later `.wait()` on its semaphore{_element_text(first.element)}, {exit_text}. Wait on it before "
                   "the kernel ends, or do not start it when no later step waits for it.")
        # Waiting right after the start is right only when nothing waits on the semaphore
        # at all (else a later wait would find nothing left): a choice even then.
        return ContractFinding("PAL302", first.at, message, note, wait_after(first.at) if never_waited else ())
    message = (f"`pl.semaphore_signal` without a matching `pl.semaphore_wait`: a count of {left} on its semaphore"
               f"{_element_text(first.element)} is never waited (the first signal left over: here, in "
               f"{first.where}), {exit_text}. Wait for the whole count (`pl.semaphore_wait(sem, n)`), or signal less.")
    return ContractFinding("PAL304", first.at, message, note)
