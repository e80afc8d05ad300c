"""A kernel run made again in the same entry: one `pallas_call` callable applied twice to
operands alike (`run = jax.jit(lambda: call(*xs))` in one branch and `def run(): return
call(*xs)` in the other, on a condition not known: both run), or two `pallas_call`s made
alike by one line (a helper that builds the call, run twice), sees the same refs, reads
the same code and data, and makes the same findings, notes and semaphore events: it runs
once. (JAX traces such a call once too: the callable is jitted, and the second call takes
the first trace whatever changed in between. A run is skipped here only where nothing it
reads can have changed, so that the analysis gives what a second run would.)

Nothing can have changed where the kernel is a top-level function whose bound arguments
and operands are plain data (no function among them: a closure, or an active call it
could repeat), nothing outside a frame changed since the first run (`Context.effects`,
less the semaphore events counted there), nor in it, and the same top-level calls are
active around both (a call repeating one of them is cut as recursion). A closure is a
kernel alike only when no call is active (the kernels left to run at the end of an entry):
what it reads of the frames it was made in then changes only as an effect does. Two calls
made by one line are alike when every part of the call is (the types and specs by what
they hold, the refs as the memo signs a call's arguments, `envs.signature`) and the
statement their frames are at is the same (a capture is reported where the call is
applied at once); the second takes what its run would have written into the call record
(`axis_uses`, `replay_helps`). A run made at another depth than the first is alike where
neither reaches `MAX_DEPTH`."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..values import UNKNOWN, Api, Const, DomainValue, Func, Instance, Loc, Mapping, Partial, Seq, SeqTail
from ..interp.envs import signature
from ..interp.frame import MAX_DEPTH, Arg, Context
from ..records import record
from .values import PallasCall

_DEPTH = 6


@record(slots=True)
class KernelRun:
    """A run made: its call record, the depth of the frame it was made from, and how much
    deeper than that its calls went."""

    call: PallasCall
    depth: int
    reach: int


def run_key(ctx: Context, record: PallasCall, operands: list[Arg] | None) -> tuple | None:
    """What decides a run of `record`'s kernel with `operands`; None where a second run
    could differ from the first (or the run is a replay's, which counts each)."""
    if ctx.replay is not None or not ctx.memoise or ctx.in_foreign or ctx.remembering:
        return None
    kernel = _kernel_key(record.kernel, closures=not ctx.active)
    if kernel is None:
        return None
    given = _data_key(tuple(a.value for a in operands)) if operands is not None else "unknown operands"
    if given is None:
        return None
    around = tuple((id(a.node), a.signature) for a in ctx.active if not _closure(a.func))
    grids = tuple(id(g) for g in ctx.grids)
    return _call_key(record), kernel, given, around, outside_changes(ctx), grids, ctx.unrolling, ctx.uncalled


def made_before(ctx: Context, key: tuple | None, record: PallasCall) -> bool:
    """Whether the run `key` names was made (at a depth that decides alike); the record of
    a call made alike then takes what the run wrote into the first one."""
    if key is None:
        return False
    run = ctx.kernel_runs.get(key)
    depth = record.frame.depth
    if run is None or run.depth != depth and max(run.depth, depth) + run.reach >= MAX_DEPTH:
        return False
    first = run.call
    if first is not record:
        record.axis_uses = list(first.axis_uses)
        record.replay_helps = first.replay_helps
    return True


def note_run(ctx: Context, key: tuple | None, record: PallasCall, deepest: int) -> None:
    """Keep the run `key` names (`deepest`: the greatest frame depth its calls reached)."""
    if key is not None:
        depth = record.frame.depth
        ctx.kernel_runs[key] = KernelRun(record, depth, max(deepest - depth, 0))


def outside_changes(ctx: Context) -> int:
    """Changes made outside a frame so far: `Context.effects` less the semaphore events
    (which the ledger keeps per run and a kernel never reads)."""
    return ctx.effects - ctx.event_effects


def _call_key(record: PallasCall) -> Any:
    """The call a run is made for: one of the calls its line made, alike by every part."""
    described = tuple(_part_key(p) for p in (record.out_shape, record.scratch, record.grid, record.in_specs,
                                             record.out_specs, record.compiler_params))
    locs = tuple(sorted((name, id(loc.node)) for name, loc in record.arg_locs.items()))
    return (id(record.node), id(record.invoker), described, signature(record.outs), record.out_is_seq,
            record.num_scalar_prefetch, locs, id(getattr(record.frame, "stmt", None)))


def _part_key(value: Any) -> Any:
    """A part of a call that describes its refs (shapes, specs, scratch types, parameters):
    by what it holds where that is plain data, else as the memo signs it."""
    key = _data_key(value)
    return ("data", key) if key is not None else ("signed", signature(value))


def _closure(func: Any) -> bool:
    """A function defined inside a call (a top-level kernel cannot reach it from data)."""
    return isinstance(func, Func) and func.frame is not None and func.frame.parent is not None


def _kernel_key(kernel: Any, closures: bool) -> tuple | None:
    """A top-level function (or, where `closures`, one defined in a call) with the arguments
    partials bind (plain data only)."""
    bound: list[Any] = []
    for _ in range(_DEPTH):
        if not isinstance(kernel, Partial):
            break
        bound.append((_data_key(kernel.args), _data_key(tuple(sorted(kernel.kwargs.items())))))
        kernel = kernel.func
    if not isinstance(kernel, Func) or _closure(kernel) and not closures or any(None in b for b in bound):
        return None
    return id(kernel), tuple(bound)


def _data_key(value: Any, depth: int = 0) -> Any:
    """A hashable summary of plain data, alike exactly for values a run cannot tell apart;
    None for anything else (functions, classes, values signed by identity)."""
    if depth > _DEPTH:
        return None
    if value is UNKNOWN:
        return "?"
    if isinstance(value, Const):
        return ("C", type(value.value), value.value) if _hashable(value.value) else None
    if value is None or isinstance(value, (bool, int, float, str)):   # a record's own fields
        return type(value), value
    if isinstance(value, Api):
        return ("api", value.qname)
    if isinstance(value, (tuple, Seq, SeqTail)):
        items = value if isinstance(value, tuple) else value.items
        keys = tuple(_data_key(v, depth + 1) for v in items)
        return None if None in keys else (type(value).__name__, getattr(value, "is_list", False), keys)
    if isinstance(value, Mapping):
        return _data_key(tuple(value.items.items()), depth + 1)
    if isinstance(value, Instance):
        fields = _data_key(tuple(value.fields.items()), depth + 1)
        top_level = value.cls.frame is None or value.cls.frame.parent is None
        return ("I", id(value), fields) if fields is not None and top_level else None
    if isinstance(value, Arg):
        return _data_key(value.value, depth)
    if isinstance(value, Loc):
        return "L", id(value.block), id(value.node), value.path
    if isinstance(value, DomainValue):
        key = value.stable_signature()
        return ("D", key) if key is not None and _hashable(key) else _fields_key(value, depth)
    return None


def _fields_key(value: Any, depth: int) -> Any:
    """A domain's value made as a dataclass (`ArraySpecV`; none is changed once made) by
    its fields, each plain data."""
    if not dataclasses.is_dataclass(value):
        return None
    keys = tuple(_data_key(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value))
    return None if None in keys else (type(value), keys)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
