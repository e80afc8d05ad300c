"""Semaphore counts of one kernel run at concrete grid points (rules PAL302-PAL304 as
errors).  `Replay` stands in for the entry's ledger (`protocol.Protocol`) while the
kernel is run again, once per grid point, with `pl.program_id` a number, `fori_loop` /
`pl.loop` unrolled and `pl.when` decided: it keeps, per semaphore, the increments not yet
waited for, in order, as JAX's TPU interpreter does (DMA semaphores in bytes).

A declaration is *decided* when every event on it ran on a known path with a known
element and amount, and nothing it was given to is unknown code.  Only decided
declarations are judged: a wait that takes more than is there hangs (PAL303), what is
left at the end leaks (PAL302, PAL304)."""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..values import SCALAR, Const, Loc
from .protocol import Event, counted_sems, escaped_decls
from .sems import Sem

MAX_TRIPS = 32            # iterations a replay unrolls per loop
_ONE = Const(1)


@dataclass
class Increment:
    """A start or signal whose amount is not all waited for yet."""

    event: Event
    at: Loc
    element: tuple
    amount: int
    where: str            # the grid point and loop indices it happened at (for messages)


@dataclass(unsafe_hash=True)
class Hang:
    """A wait that takes more than was signalled before it: the kernel stops there."""

    event: Event
    at: Loc
    element: tuple
    decl: Loc
    where: str


@dataclass
class Replay:
    """The counts of a concrete run of `call`'s kernel (at each point of `grid`; an empty
    grid: one run that stands for every step).  It takes the ledger's place in the
    `Context` (`declare`, `record`, `escape`)."""

    call: Any                                     # the PallasCall replayed
    grid: tuple[int, ...]
    point: tuple[int, ...] = ()
    indices: list[int] = field(default_factory=list)                    # of the unrolled loops being run
    pending: dict[tuple[int, tuple], deque[Increment]] = field(default_factory=dict)
    waited: set[tuple[int, tuple]] = field(default_factory=set)        # (declaration, element) waited at all
    decls: dict[int, Loc] = field(default_factory=dict)                 # id(declaration node) -> where
    undecided: set[int] = field(default_factory=set)
    blind: bool = False                           # an event on a semaphore we do not know
    every_step: bool = False                      # the run counted stands for each step of a grid
    hang: Hang | None = None

    # ---------------------------------------------------------------- the ledger's interface
    def declare(self, value: Any, owner: Any = None) -> None:
        for _, decl in counted_sems(value):
            self.decls.setdefault(id(decl.node), decl)

    def escape(self, value: Any) -> None:
        self.undecided |= escaped_decls(value)

    def record(self, event: Event, value: Any, at: Loc | None, remote: bool, amount: int | None,
               certain: bool) -> None:
        if self.hang is not None:
            return                                # the kernel stopped at the hang
        if not isinstance(value, Sem) or value.decl is None:
            self.blind = True
            return
        key = id(value.decl.node)
        element = value.element
        if key not in self.decls or key in self.undecided:
            return
        if remote or not certain or at is None or amount is None or element is None or not value.scalar \
                or any(type(i) is not int or i < 0 for i in element):
            self.undecided.add(key)
            return
        queue = self.pending.setdefault((key, element), deque())
        if event in (Event.DMA_START, Event.SIGNAL):
            queue.append(Increment(event, at, element, amount, self.where()))
            return
        self.waited.add((key, element))
        if not self._take(queue, amount):
            self.hang = Hang(event, at, element, self.decls[key], self.where())

    @staticmethod
    def _take(queue: deque[Increment], amount: int) -> bool:
        if sum(i.amount for i in queue) < amount:
            return False
        while amount:
            first = queue[0]
            used = min(first.amount, amount)
            first.amount -= used
            amount -= used
            if not first.amount:
                queue.popleft()
        return True

    # ---------------------------------------------------------------- concrete control
    def grid_value(self, total: bool, axis: int) -> Any:
        """`pl.num_programs(axis)` (total) or `pl.program_id(axis)` at the current point."""
        if not 0 <= axis < len(self.grid):
            return SCALAR
        return Const(self.grid[axis] if total else self.point[axis])

    @contextlib.contextmanager
    def iteration(self, index: int) -> Iterator[None]:
        self.indices.append(index)
        try:
            yield
        finally:
            self.indices.pop()

    def where(self) -> str:
        parts = [f"grid step {self.point}"] if self.grid else ["each grid step"] if self.every_step else []
        parts += [f"loop index {i}" for i in self.indices]
        return ", ".join(parts) or "the kernel"


def unroll_trips(ctx: Any, lower: Any, upper: Any, step: Any = _ONE) -> range | None:
    """A loop's iterations when a replay is running and can unroll it, else None (and
    the kernel being run is noted as one a replay helps, when it could)."""
    if ctx.replay is not None:
        return trips(lower, upper, step)
    if trips(lower, upper, step) is not None:
        replay_would_help(ctx)
    return None


def replay_would_help(ctx: Any) -> None:
    """Note that a replay of the kernel being run could decide what its first run cannot."""
    if ctx.grids and ctx.grids[-1] is not None:
        ctx.grids[-1].replay_helps = True


def trips(lower: Any, upper: Any, step: Any) -> range | None:
    """The iterations of a loop with static bounds, when few enough to unroll."""
    bounds = [v.value if isinstance(v, Const) and type(v.value) is int else None for v in (lower, upper, step)]
    if None in bounds or bounds[2] == 0:
        return None
    loop = range(*bounds)   # type: ignore[arg-type]
    return loop if len(loop) <= MAX_TRIPS else None
