"""Calls of other modules' functions, remembered across the runs of one document.

Another module's function does not change while the document is edited (a change of the
workspace starts a new table), so a call of it with the same inputs, in the same setting,
does the same thing. A call is remembered only when what it did can be done again: it
left the entry's record as it was but for what the domains can add again (`Domain.mark`,
`since`, `redo`: the grid axes `pl.program_id` names, say), changed none of the values it
was given, and returned a value that holds nothing of one run (no ref, semaphore or object
that is not frozen). A call that did more is noted, and later just run. The names of other
modules a remembered call read are kept with it and noted again. It counts every step a
run of its own takes (those the in-run memo saved it included), so a run that takes calls
from the table counts at least the steps of a run without it: where a budget ran out in
such a run, the run without the table decides (the engine).

Keys hold the syntax nodes they name (not their `id`), so no later node takes their place."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..values import SCALAR, UNKNOWN, Api, Const, DomainValue, Instance, Mapping, Range, Seq, SeqOf, SeqTail, SliceV
from .frame import Arg, ArgOrStar, Context, Frame

MAX_SUMMARIES = 512
_MAX_NESTING = 8


class _Unstable(Exception):
    """A value whose signature would differ between runs, or that a call could change."""


@dataclass(frozen=True, slots=True)
class Summary:
    result: Any
    steps: int          # the interpreter steps its run took
    deps: dict          # the other modules' names it read (`Context.deps` entries)
    gained: tuple       # per domain, what it added that another run adds again (`Domain.since`)


# Kept for a call that did more than can be done again: a later one just runs it.
NOT_REMEMBERED = Summary(None, 0, {}, ())


class Summaries:
    """One document's remembered calls (bounded: the oldest go first), valid for one
    generation of the workspace. A call is taken only by a later analysis than the one
    that ran it: the first analysis of a text runs every call (as the CLI does)."""

    def __init__(self) -> None:
        self._table: dict[tuple, Summary] = {}
        self._recorded: dict[tuple, Summary] = {}   # by the analysis under way
        self.generation: Any = None

    def renew(self, generation: Any) -> None:
        """Before an analysis: what the last one ran becomes available; all is forgotten
        when the other modules may have changed."""
        if generation != self.generation:
            self._table.clear()
            self.generation = generation
        else:
            self._table.update(self._recorded)
            for key in list(self._table)[:max(0, len(self._table) - MAX_SUMMARIES)]:
                del self._table[key]
        self._recorded = {}

    def get(self, key: tuple) -> Summary | None:
        return self._table.get(key)

    def put(self, key: tuple, summary: Summary) -> None:
        if len(self._recorded) < MAX_SUMMARIES:
            self._recorded[key] = summary


def stable_signature(value: Any, depth: int = 0) -> Any:
    """A hashable summary of `value` that another run gives the same value; raises
    `_Unstable` for values made afresh by each run (functions, refs' views, iterators)."""
    if depth > _MAX_NESTING:
        raise _Unstable
    if value is UNKNOWN or value is SCALAR or value is None or type(value) in (str, int, bool):
        return value
    if type(value) is Arg:
        return stable_signature(value.value, depth)
    if type(value) is Const:
        try:
            hash(value.value)
        except TypeError:
            raise _Unstable from None
        return (Const, type(value.value), value.value)
    if isinstance(value, DomainValue):
        sig = value.stable_signature()
        if sig is None:
            raise _Unstable
        return sig
    if type(value) is Api:
        return (Api, value.qname)
    if type(value) is SliceV:
        return value
    if type(value) in (Seq, Range, SeqTail):
        return (type(value), getattr(value, "is_list", False),
                tuple(stable_signature(v, depth + 1) for v in value.items))
    if type(value) is SeqOf:
        return (SeqOf, stable_signature(value.item, depth + 1))
    if type(value) is Mapping:
        return (Mapping, tuple((k, stable_signature(v, depth + 1)) for k, v in value.items.items()))
    if type(value) is Instance and value.cls.node is not None:
        return (Instance, value.cls.node, tuple((k, stable_signature(v, depth + 1)) for k, v in value.fields.items()))
    if type(value) in (tuple, list):
        return tuple(stable_signature(v, depth + 1) for v in value)
    raise _Unstable


def portable(value: Any, depth: int = 0) -> bool:
    """Whether `value` holds nothing of the run that made it and nothing can change it (a
    result another run may take)."""
    if depth > _MAX_NESTING:
        return False
    if value is UNKNOWN or value is SCALAR or type(value) in (Const, Api, SliceV):
        return True
    if isinstance(value, DomainValue):
        return value.portable
    if type(value) in (Seq, Range, SeqTail):
        return all(portable(v, depth + 1) for v in value.items)
    if type(value) is SeqOf:
        return portable(value.item, depth + 1)
    if type(value) is Mapping:
        return all(portable(v, depth + 1) for v in value.items.values())
    if type(value) is Instance and value.cls.frozen:   # a frozen dataclass, a named tuple
        return all(portable(v, depth + 1) for v in value.fields.values())
    return False


def copied(value: Any, depth: int = 0) -> Any:
    """A portable value with objects of its own (a run may set their fields, or change
    its lists): what a run of the call would give afresh."""
    if depth > _MAX_NESTING:
        return value
    if type(value) is Instance:
        return Instance(value.cls, {k: copied(v, depth + 1) for k, v in value.fields.items()})
    if type(value) is SeqTail or \
            type(value) is Seq and (value.is_list or any(type(v) is not Const for v in value.items)):
        items = tuple(copied(v, depth + 1) for v in value.items)
        return Seq(items, value.is_list) if type(value) is Seq else SeqTail(items)
    if type(value) is SeqOf:
        return SeqOf(copied(value.item, depth + 1))
    if type(value) is Mapping:
        return Mapping({k: copied(v, depth + 1) for k, v in value.items.items()})
    return value


def call_key(ctx: Context, func: Any, args: list[ArgOrStar], kwargs: dict[str, Arg], frame: Frame,
             helper: bool, loop_body: bool) -> tuple | None:
    """What a call of another module's `func` depends on, or None when some input is made
    afresh by each run (it is then not remembered)."""
    if ctx.summaries is None or not ctx.memoise or ctx.silent or ctx.overrides or func.node is None:
        return None
    try:
        given = stable_signature(args), stable_signature(tuple(kwargs.items()))
    except _Unstable:
        return None
    grid = ctx.grids[-1] if ctx.grids else None
    try:
        shape = stable_signature(grid.grid) if grid is not None else None
    except _Unstable:
        return None
    setting = (ctx.uncertain, ctx.staged, ctx.summarising, ctx.unrolling, ctx.uncalled, len(ctx.grids),
               grid is not None, shape, ctx.evidence is None, frame.depth, helper, loop_body)
    return (func.node, given, setting)


def _record_size(ctx: Context) -> tuple:
    """How much the entry's record holds so far: a call that leaves it so did nothing but
    what the domains can do again."""
    return (ctx.effects, len(ctx.views), len(ctx.leaned_on), *(d.record_size(ctx) for d in ctx.domains))


class CallWatch:
    """What one call does to the entry, watched around its run (`close` when it ends):
    the steps it took, those the in-run memo saved inside it, the other modules' names it
    read (kept apart from the entry's, then added to them), whether it left the record as
    it was, and what the domains can add again of it."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.size = _record_size(ctx)
        self.marks = tuple(d.mark(ctx) for d in ctx.domains)
        self.start, self.saved, self.outer = ctx.steps, ctx.memo_steps, ctx.deps
        self.read: dict = {}
        ctx.deps = self.read

    def close(self) -> None:
        self.ctx.deps = self.outer
        self.outer.update(self.read)

    @property
    def steps(self) -> int:
        return self.ctx.steps - self.start

    @property
    def cost(self) -> int:
        """The steps a run of it takes on its own: those it took and those the memo saved."""
        return self.steps + self.ctx.memo_steps - self.saved

    def record_kept(self) -> bool:
        return _record_size(self.ctx) == self.size

    def gained(self) -> tuple:
        """Per domain, what it added that another run adds again (`Domain.since`)."""
        return tuple(d.since(self.ctx, m) for d, m in zip(self.ctx.domains, self.marks))


def redo(ctx: Context, summary: Summary) -> None:
    """What a remembered call did beyond its result, done again in this run."""
    ctx.steps += summary.steps
    ctx.foreign_steps += summary.steps
    ctx.deps.update(summary.deps)
    for d, gained in zip(ctx.domains, summary.gained):
        if gained is not None:
            d.redo(ctx, gained)


def unchanged_inputs(args: list[ArgOrStar], kwargs: dict[str, Arg], given: tuple) -> bool:
    """The call's arguments still have the signature they were called with."""
    try:
        return (stable_signature(args), stable_signature(tuple(kwargs.items()))) == given
    except _Unstable:
        return False
