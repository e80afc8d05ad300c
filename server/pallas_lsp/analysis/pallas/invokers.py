"""The Pallas APIs that run user functions, and the callables they return: each one
calls the function it is given the way JAX does (`model.Binding`), with the refs Pallas
allocates for its scratch types (`sems.allocate`)."""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from ..arrays.loops import check_carry
from ..arrays.values import loop_index
from ..interp.frame import (
    STAR,
    Arg,
    ArgOrStar,
    CallArgs,
    Context,
    Evaluator,
    maybe_runs,
)
from ..values import (
    UNKNOWN,
    Api,
    Choice,
    Const,
    Func,
    Iter,
    Loc,
    Mapping,
    Partial,
    Seq,
    SeqOf,
    SeqTail,
    join,
)
from . import sharding
from .buffers import array_of_spec, array_spec_of, block_buffer, io_buffers, scratch_buffer
from .counting import MAX_TRIPS, replay_would_help, unroll_trips
from .handlers import unseen_events
from .kernel_runs import made_before, note_run, outside_changes, run_key
from .model import Binding, Invoker
from .sems import Sem, SemType, Site, allocate, holds_sem, map_sems
from .values import (
    ArraySpecV,
    CompilerParamsV,
    CoreMapDecorator,
    GridSpecV,
    LoopDecorator,
    PallasCall,
    PallasCallable,
    Pipeline,
    WhenDecorator,
    WithScoped,
    WithScopedDecorator,
    function_nodes,
)


@contextlib.contextmanager
def grid_of(ctx: Context, record: PallasCall | None) -> Iterator[None]:
    """Run the block as code that sees `record`'s grid (None: another grid, or none)."""
    ctx.grids.append(record)
    try:
        yield
    finally:
        ctx.grids.pop()


def _allocated(value: Any) -> Any:
    """What Pallas passes for a scratch / scoped type: a semaphore or buffer ref (pytrees kept)."""
    return allocate(value, leaf=scratch_buffer)


def _declared_where(refs: list[Arg], scratch: Loc | None) -> list[Arg]:
    """Bare scratch types (`pltpu.SemaphoreType.DMA`) are declared by their entry of a
    literal `scratch_shapes` list: where messages point, and what the protocol pairs by."""
    node = scratch.node if scratch is not None else None
    if scratch is None or not isinstance(node, (ast.List, ast.Tuple)) or len(node.elts) != len(refs) \
            or any(isinstance(e, ast.Starred) for e in node.elts):
        return refs
    return [Arg(replace(a.value, decl=Loc(scratch.block, e, scratch.path)))
            if isinstance(a.value, Sem) and a.value.decl is None else a
            for a, e in zip(refs, node.elts)]


def _declare_scratch(ctx: Context, refs: list, owner: PallasCall | None) -> None:
    """Scratch semaphores live for `owner`'s kernel (or the scope): the protocol checks them."""
    if ctx.protocol is not None and not ctx.silent:
        ctx.protocol.declare(Seq(tuple(refs)), owner)


def _kwarg(call: CallArgs, *names: str) -> Any:
    for name in names:
        if name in call.kwargs:
            return call.kwargs[name].value
    return None


def pallas_call(ev: Evaluator, spec: Invoker, call: CallArgs) -> Any:
    """`pl.pallas_call(kernel, out_shape, ...)` / `pl.kernel(body, out_type, ...)`: the
    record of the call; the kernel runs when the result is applied (or at the end)."""
    kernel = call.value(0, spec.params[0])
    out_arg = call.positional(1)
    out = out_arg.value if out_arg is not None else _kwarg(call, *spec.outputs)
    locs = {name: call.frame.loc(a.node) for name, a in call.kwargs.items() if a.node is not None}
    if out_arg is not None and out_arg.node is not None:
        locs[spec.outputs[0]] = call.frame.loc(out_arg.node)
    kernel_arg = call.param(0, spec.params[0])
    if kernel_arg is not None and kernel_arg.node is not None:
        locs[spec.params[0]] = call.frame.loc(kernel_arg.node)
    gs = _kwarg(call, "grid_spec")
    layout = _Layout(_kwarg(call, *spec.scratch), _kwarg(call, "grid"), _kwarg(call, "in_specs"),
                     _kwarg(call, "out_specs"), 0)
    if isinstance(gs, GridSpecV):
        layout = _Layout(gs.scratch, gs.grid, gs.in_specs, gs.out_specs, gs.num_scalar_prefetch)
        locs.update(gs.arg_locs)
    elif gs is not None:   # a grid spec we cannot see
        layout = _Layout(UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, None)
    elif "**" in call.kwargs:   # what is not given by name may be in the `**` (scratch: assumed none)
        layout = _Layout(layout.scratch, _or_unknown(layout.grid), _or_unknown(layout.in_specs),
                         _or_unknown(layout.out_specs), None)
    params = _kwarg(call, "compiler_params")
    record = PallasCall(spec, kernel, UNKNOWN if out is None else out, _output_refs(out), isinstance(out, Seq),
                        layout.scratch if layout.scratch is not None else Seq(()), layout.grid, layout.in_specs,
                        layout.out_specs, layout.num_scalar_prefetch,
                        params if isinstance(params, CompilerParamsV) else None, call.node, call.frame, locs)
    ev.ctx.calls.append(record)
    callable_ = PallasCallable(record)
    ev.ctx.pending.append(callable_)
    return callable_


def _or_unknown(value: Any) -> Any:
    return UNKNOWN if value is None else value


@dataclass(unsafe_hash=True)
class _Layout:
    """Where the refs come from: given to pallas_call itself, or through a grid spec."""

    scratch: Any
    grid: Any
    in_specs: Any
    out_specs: Any
    num_scalar_prefetch: int | None


def _output_refs(out: Any) -> list | None:
    """The refs Pallas allocates for `out_shape` (None: how many is unknown)."""
    if isinstance(out, Seq):
        return [allocate(v) for v in out.items]  # semaphores (and tuples of them) become refs
    if isinstance(out, (SemType, Api, Mapping, ArraySpecV)):
        return [allocate(out)]  # one output
    return None


def apply_pallas_call(ev: Evaluator, callable_: PallasCallable, call: CallArgs) -> Any:
    record = callable_.call
    operands = None if call.has_star or "**" in call.kwargs else \
        [Arg(array_spec_of(a.value), a.node) for a in call.args if isinstance(a, Arg)]
    invoke_kernel(ev, callable_, operands)
    if record.outs is None:
        return UNKNOWN
    # what the caller gets: the arrays `out_shape` describes (semaphore outputs: the refs)
    shapes = record.out_shape.items if record.out_is_seq else (record.out_shape,)
    results = [array_of_spec(s) if isinstance(s, ArraySpecV) else v for s, v in zip(shapes, record.outs)]
    return Seq(tuple(results)) if record.out_is_seq else results[0]


def _scratch_refs(scratch: Any) -> tuple[list[Arg] | None, dict[str, Arg]]:
    """(positional scratch refs, keyword scratch refs); None: how many is unknown."""
    if isinstance(scratch, (Seq, SeqTail)):
        return [Arg(_allocated(v)) for v in scratch.items], {}
    if isinstance(scratch, Mapping):
        return [], {str(k): Arg(_allocated(v)) for k, v in scratch.items.items()}
    return None, {}


def invoke_kernel(ev: Evaluator, callable_: PallasCallable, operands: list[Arg] | None) -> None:
    """Run a pallas_call / pl.kernel body with its refs: operands (unknown), outputs,
    then scratch (dict scratch: keyword arguments)."""
    ctx = ev.ctx
    if callable_ in ctx.pending:
        ctx.pending.remove(callable_)
    if ctx.silent:
        return
    record = callable_.call
    if operands is not None:
        record.operands = operands
    tail, kw = _scratch_refs(record.scratch)
    if tail is not None:
        tail = _declared_where(tail, record.arg_locs.get(record.invoker.scratch[0]) if record.invoker.scratch else None)
    outs = None if isinstance(record.scratch, SeqTail) else record.outs  # a scratch tail binds from the end
    scratch = [a.value for a in [*(tail or []), *kw.values()]]
    reached = any(holds_sem(v) for v in [*scratch, *(a.value for a in operands or []), *(outs or [])])
    if not reached and not any(f.path is None for body, _ in _bodies(record) for f in _funcs(body)):
        # A kernel of another module that no semaphore reaches: what it computes is not shown here.
        return
    buffers = io_buffers(record)
    # Operands keep their values (a semaphore output of one pallas_call can be the
    # input of the next), but not the helper-call sites outside the kernel: a kernel
    # is where its refs are used.
    front: list[ArgOrStar] = [Arg(map_sems(a.value, lambda s: s.without_sites())) for a in operands or []]
    if buffers is not None:
        front, outs = _with_buffers(front, outs, buffers, record.num_scalar_prefetch or 0)
    if tail is None:
        args = [*front, STAR]
    elif outs is None or operands is None:
        # How many outputs (or operands) is unknown, but scratch refs are always the
        # last parameters: bind them from the end.
        known_outs = [Arg(v) for v in outs] if outs is not None and operands is None else []
        args = [*front, STAR, *known_outs, *tail]
    else:
        args = [*front, *(Arg(v) for v in outs), *tail]
    kernel_defs = function_nodes(record.kernel)
    ctx.kernel_nodes.update(kernel_defs)
    if ctx.certain:
        ctx.certain_kernels.update(kernel_defs)
    _declare_scratch(ctx, [a.value for a in (tail or [])] + [a.value for a in kw.values()], record)
    record.ran = True
    key = run_key(ctx, record, operands)
    if made_before(ctx, key, record):
        return   # the same run again (`kernel_runs`): it would see and do what the first did
    changes, deepest = outside_changes(ctx), ctx.deepest
    ctx.deepest = 0
    bodies = _bodies(record)
    for body, arg in bodies:
        site = _foreign_kernel_site(record, body, arg)
        body_args = [Arg(map_sems(a.value, site)) if site and isinstance(a, Arg) else a for a in args]
        body_kw = {k: Arg(map_sems(a.value, site)) for k, a in kw.items()} if site else kw
        with grid_of(ctx, record), _own_run(ctx, concurrent=len(bodies) > 1):
            ev.call(body, body_args, body_kw, record.node, record.frame, helper=False)
    if outside_changes(ctx) == changes:
        note_run(ctx, key, record, ctx.deepest)
    ctx.deepest = max(ctx.deepest, deepest)


def _bodies(record: PallasCall) -> list[tuple[Any, Loc | None]]:
    """The kernel bodies, each with where it is given. `pl.kernel(body=[f, g], mesh=[m, n])`
    (MPMD) runs every body, each on its own mesh, with the same refs."""
    kernel, arg = record.kernel, record.arg_locs.get(record.invoker.params[0])
    if record.invoker.binding is not Binding.KERNEL or not isinstance(kernel, Seq) or not kernel.items:
        return [(kernel, arg)]
    node = arg.node if arg is not None else None
    if arg is None or not isinstance(node, (ast.List, ast.Tuple)) or len(node.elts) != len(kernel.items) \
            or any(isinstance(e, ast.Starred) for e in node.elts):
        return [(body, arg) for body in kernel.items]
    return [(body, replace(arg, node=e)) for body, e in zip(kernel.items, node.elts)]


def _foreign_kernel_site(record: PallasCall, kernel: Any, arg: Loc | None) -> Callable[[Sem], Sem] | None:
    """A kernel defined in another module uses its refs there, where this document's
    findings cannot be shown: its semaphores enter it as through a helper call whose
    argument is the kernel given to `pallas_call` (a finding reports there)."""
    while isinstance(kernel, Partial):
        kernel = kernel.func
        if arg is not None and isinstance(arg.node, ast.Call) and arg.node.args:   # `partial(kernel, ...)`: `kernel`
            arg = replace(arg, node=arg.node.args[0])
    funcs = _funcs(kernel)
    if arg is None or not funcs or any(f.path is None for f in funcs):
        return None
    names = " or ".join(dict.fromkeys(f.name for f in funcs))   # a kernel chosen by a branch: each
    site = Site(arg, arg, record.loc() or arg, names, False, funcs[0].node)
    return lambda sem: sem.through(site)


def _funcs(kernel: Any, depth: int = 0) -> list[Func]:
    """The functions a kernel value stands for (through partials and choices); [] when
    one of them is not a function."""
    if isinstance(kernel, Partial) and depth < 4:
        return _funcs(kernel.func, depth + 1)
    if isinstance(kernel, Choice) and depth < 4:
        options = [_funcs(o, depth + 1) for o in kernel.options]
        return [f for o in options for f in o] if all(options) else []
    return [kernel] if isinstance(kernel, Func) else []


@contextlib.contextmanager
def _own_run(ctx: Context, concurrent: bool = False) -> Iterator[None]:
    """A kernel's semaphores are its own: whether its caller surely runs it (a branch, a
    function handed to `shard_map`) does not change what one run of it counts. Bodies
    that run `concurrent`ly (MPMD) interleave their events in an order no run decides."""
    saved = ctx.uncertain, ctx.summarising, ctx.staged
    ctx.uncertain, ctx.summarising, ctx.staged = int(concurrent), 0, 0
    try:
        yield
    finally:
        ctx.uncertain, ctx.summarising, ctx.staged = saved


def _with_buffers(front: list[ArgOrStar], outs: list | None, buffers: tuple[list, list],
                  n_prefetch: int) -> tuple[list[ArgOrStar], list | None]:
    """The kernel's refs: scalar-prefetch arrays whole, input and output blocks, each
    unknown one (or array) replaced by its buffer ref (outside the kernel the outputs stay
    arrays: `outs` is not changed in place)."""
    inputs, outputs = buffers
    if len(front) == n_prefetch + len(inputs):
        prefetch = [Arg(block_buffer(a.value, None, True, prefetch=True))
                    if isinstance(a, Arg) and isinstance(a.value, ArraySpecV) else a for a in front[:n_prefetch]]
        front = prefetch + [Arg(buf) if isinstance(a, Arg) and (a.value is UNKNOWN or isinstance(
                                a.value, ArraySpecV)) and buf is not UNKNOWN else a
                            for a, buf in zip(front[n_prefetch:], inputs)]
    if outs is not None and len(outs) == len(outputs):
        outs = [buf if v is UNKNOWN else v for v, buf in zip(outs, outputs)]
    return front, outs


def run_scoped(ev: Evaluator, spec: Invoker, call: CallArgs) -> Any:
    first = call.positional(0)
    if first is None:
        return UNKNOWN
    refs: list[ArgOrStar] = [_scoped(a, call) if isinstance(a, Arg) else STAR for a in call.args[1:]]
    kw = {k: _scoped(v, call) for k, v in call.kwargs.items() if k != "collective_axes"}
    _declare_scratch(ev.ctx, [a.value for a in refs if isinstance(a, Arg)] + [a.value for a in kw.values()],
                     ev.ctx.grids[-1] if ev.ctx.grids else None)
    return ev.call(first.value, refs, kw, call.node, call.frame, helper=False)


def _scoped(arg: Arg, call: CallArgs) -> Arg:
    """The ref `run_scoped` allocates for one type; a bare semaphore type
    (`pltpu.SemaphoreType.DMA`) is declared by its argument."""
    value = _allocated(arg.value)
    if isinstance(value, Sem) and value.decl is None and arg.node is not None:
        value = replace(value, decl=call.frame.loc(arg.node))
    return Arg(value)


def with_scoped(ev: Evaluator, spec: Invoker, call: CallArgs) -> Any:
    return WithScopedDecorator(list(call.args), dict(call.kwargs))


def core_map(ev: Evaluator, spec: Invoker, call: CallArgs) -> Any:
    return CoreMapDecorator(call.kwargs.get("scratch_shapes"))


def emit_pipeline(ev: Evaluator, spec: Invoker, call: CallArgs) -> Any:
    return Pipeline(call.value(0, "body"))


def when(ev: Evaluator, spec: Invoker, call: CallArgs) -> Any:
    first = call.positional(0)
    return WhenDecorator(ev.truth(first.value) if first is not None else None)


def loop(ev: Evaluator, spec: Invoker, call: CallArgs) -> Any:
    return LoopDecorator(call.value(0, "lower"), call.value(1, "upper"), call.kwargs["step"].value
                         if "step" in call.kwargs else Const(1))


def fori_loop(ev: Evaluator, spec: Invoker, call: CallArgs) -> Any:
    vals = call.values()
    if len(vals) < 4:
        return UNKNOWN
    trips = unroll_trips(ev.ctx, vals[0], vals[1])
    if trips is not None:
        return _unrolled(ev, vals[2], trips, call, vals[3])
    index, carry = loop_index((vals[0], vals[1])), traced_carry(vals[3])
    with maybe_runs(ev.ctx, staged=True):   # an unknown number of times; JAX traces it once
        if isinstance(vals[2], Func):
            carried = ev.call_function(vals[2], [Arg(index), Arg(carry)], {}, call.node, call.frame,
                                       helper=False, loop_body=True)
        else:
            carried = ev.call(vals[2], [Arg(UNKNOWN), Arg(carry)], {}, call.node, call.frame, helper=False)
    static = all(isinstance(b, Const) and type(b.value) is int for b in vals[:2])
    check_carry(ev, call, vals[3], _node(call, 3, "init_val"), carried, "scan" if static else "while_loop")
    # JAX traces the body once and requires the carry it returns to be of the initial
    # carry's type: the loop's value is that type (the join is exact where they agree).
    return join(vals[3], carried)


def _node(call: CallArgs, i: int, name: str) -> ast.AST | None:
    arg = call.param(i, name)
    return arg.node if arg is not None else None


def _unrolled(ev: Evaluator, body: Any, trips: range, call: CallArgs, carry: Any = None) -> Any:
    """Run a loop body once per index (a replay): `carry` threads through when given."""
    for i in trips:
        with ev.ctx.replay.iteration(i):
            args: list[ArgOrStar] = [Arg(Const(i)), *([Arg(carry)] if carry is not None else [])]
            result = ev.call(body, args, {}, call.node, call.frame, helper=False)
        carry = result if carry is not None else None
    return carry if carry is not None else UNKNOWN


def traced_carry(value: Any, depth: int = 0) -> Any:
    """A loop carry as the body sees it: JAX traces it, so a Python int in it is any
    (weak) int32, whatever its first value."""
    if isinstance(value, Const) and type(value.value) is int:
        return loop_index((value,))
    if isinstance(value, Seq) and not isinstance(value, Iter) and depth < 4:
        return Seq(tuple(traced_carry(v, depth + 1) for v in value.items), value.is_list)
    return value


def while_loop(ev: Evaluator, spec: Invoker, call: CallArgs) -> Any:
    vals = call.values()
    if len(vals) < 3:
        return UNKNOWN
    carry = _stepped(ev, vals[0], vals[1], vals[2], call)
    if carry is not None:   # a replay ran it to its end
        return carry
    with maybe_runs(ev.ctx, staged=True):
        ev.call(vals[0], [Arg(traced_carry(vals[2]))], {}, call.node, call.frame, helper=False)
        carried = ev.call(vals[1], [Arg(traced_carry(vals[2]))], {}, call.node, call.frame, helper=False)
    check_carry(ev, call, vals[2], _node(call, 2, "init_val"), carried, "while_loop")
    return join(vals[2], carried)   # the initial carry's type, as for `fori_loop`


def _stepped(ev: Evaluator, cond: Any, body: Any, carry: Any, call: CallArgs) -> Any:
    """In a replay, a `while_loop` whose condition each trip decides, run trip by trip
    (its final carry); None where the first condition is not decided.  A condition not
    decided later, or more than MAX_TRIPS trips: the counts are not known."""
    ctx = ev.ctx
    truth = ev.truth(ev.call(cond, [Arg(carry)], {}, call.node, call.frame, helper=False))
    if truth is None:
        return None
    if ctx.replay is None:
        replay_would_help(ctx)
        return None
    for trip in range(MAX_TRIPS + 1):
        if not truth:
            return carry
        with ctx.replay.iteration(trip):
            carry = ev.call(body, [Arg(carry)], {}, call.node, call.frame, helper=False)
        truth = ev.truth(ev.call(cond, [Arg(carry)], {}, call.node, call.frame, helper=False))
        if truth is None:
            break
    unseen_events(ctx)
    return UNKNOWN


def cond(ev: Evaluator, spec: Invoker, call: CallArgs) -> Any:
    vals = call.values()
    operands: list[ArgOrStar] = [Arg(v) for v in vals[3:]]
    branches = vals[1:3]
    taken = ev.truth(vals[0]) if vals else None
    if taken is not None and len(branches) == 2 and not _replay_decides(ev.ctx):   # one branch runs
        ev.call(branches[0 if taken else 1], operands, {}, call.node, call.frame, helper=False)
        return UNKNOWN
    with maybe_runs(ev.ctx, staged=True):   # JAX traces every branch
        for f in branches:
            ev.call(f, operands, {}, call.node, call.frame, helper=False)
    return UNKNOWN


def _replay_decides(ctx: Context) -> bool:
    """Whether to run every branch although the choice is static: JAX traces them all,
    so a first run does too (and notes that a replay, which runs only the one taken,
    would count better); a replay does not."""
    if ctx.replay is not None:
        return False
    replay_would_help(ctx)
    return True


def switch(ev: Evaluator, spec: Invoker, call: CallArgs) -> Any:
    vals = call.values()
    if len(vals) < 2 or not isinstance(vals[1], Seq) or not vals[1].items:
        unseen_events(ev.ctx)   # branches not known: what they do is not either
        return UNKNOWN
    branches, operands = vals[1].items, [Arg(v) for v in vals[2:]]
    index = vals[0].value if isinstance(vals[0], Const) and type(vals[0].value) is int else None
    if index is not None and not _replay_decides(ev.ctx):   # JAX clamps the index
        ev.call(branches[min(max(index, 0), len(branches) - 1)], list(operands), {}, call.node, call.frame,
                helper=False)
        return UNKNOWN
    with maybe_runs(ev.ctx, staged=True):
        for f in branches:
            ev.call(f, list(operands), {}, call.node, call.frame, helper=False)
    return UNKNOWN


def tree_map(ev: Evaluator, spec: Invoker, call: CallArgs) -> Any:
    """`jax.tree.map(f, tree, *rest)`: `f` on each leaf (a ref, a descriptor: anything but
    a tuple, list or dict; `None` is an empty subtree), the results in `tree`'s structure."""
    vals = call.values()
    if len(vals) < 2 or call.has_star:
        return UNKNOWN
    return _map_leaves(ev, vals[0], vals[1:], call, 0)


def _map_leaves(ev: Evaluator, f: Any, trees: list, call: CallArgs, depth: int) -> Any:
    first = trees[0]
    if depth < 6 and isinstance(first, Seq) and not isinstance(first, Iter) \
            and all(isinstance(t, Seq) and len(t.items) == len(first.items) for t in trees):
        return Seq(tuple(_map_leaves(ev, f, [t.items[i] for t in trees], call, depth + 1)
                         for i in range(len(first.items))), first.is_list)
    if depth < 6 and isinstance(first, SeqOf) and all(isinstance(t, SeqOf) for t in trees):
        return SeqOf(_map_leaves(ev, f, [t.item for t in trees], call, depth + 1))
    if depth < 6 and isinstance(first, Mapping) and all(isinstance(t, Mapping) and t.items.keys() == first.items.keys()
                                                        for t in trees):
        return Mapping({k: _map_leaves(ev, f, [t.items[k] for t in trees], call, depth + 1) for k in first.items})
    if isinstance(first, Const) and first.value is None:
        return first
    if isinstance(first, (Seq, SeqOf, SeqTail, Mapping)):   # structures that do not line up
        return UNKNOWN
    return ev.call(f, [Arg(t) for t in trees], {}, call.node, call.frame, helper=False)


INVOKER_HANDLERS = {
    Binding.PALLAS_CALL: pallas_call,
    Binding.KERNEL: pallas_call,
    Binding.CORE_MAP: core_map,
    Binding.RUN_SCOPED: run_scoped,
    Binding.WITH_SCOPED: with_scoped,
    Binding.EMIT_PIPELINE: emit_pipeline,
    Binding.WHEN: when,
    Binding.LOOP: loop,
    Binding.FORI_LOOP: fori_loop,
    Binding.WHILE_LOOP: while_loop,
    Binding.COND: cond,
    Binding.SWITCH: switch,
    Binding.TREE_MAP: tree_map,
    Binding.SHARD_MAP: sharding.shard_map,
}


# --------------------------------------------------------------------------- the callables

def apply_when(ev: Evaluator, value: WhenDecorator, call: CallArgs) -> Any:
    first = call.positional(0)
    if first is not None:
        if value.condition is False:
            # `pl.when(False)`: JAX never traces the body
            if isinstance(first.value, Func):
                first.value.analysed = True
        elif value.condition is True:
            ev.call(first.value, [], {}, call.node, call.frame, helper=False)
        else:
            with maybe_runs(ev.ctx, staged=True):   # JAX traces the body either way
                ev.call(first.value, [], {}, call.node, call.frame, helper=False)
    return UNKNOWN


def apply_loop(ev: Evaluator, value: LoopDecorator, call: CallArgs) -> Any:
    first = call.positional(0)
    if first is None:
        return UNKNOWN
    trips = unroll_trips(ev.ctx, value.lower, value.upper, value.step)
    if trips is not None:
        _unrolled(ev, first.value, trips, call)
        return UNKNOWN
    with maybe_runs(ev.ctx, staged=True):
        if isinstance(first.value, Func):
            index = loop_index((value.lower, value.upper, value.step))
            ev.call_function(first.value, [Arg(index)], {}, call.node, call.frame, helper=False, loop_body=True)
        else:
            ev.call(first.value, [Arg(UNKNOWN)], {}, call.node, call.frame, helper=False)
    return UNKNOWN


def apply_with_scoped_decorator(ev: Evaluator, value: WithScopedDecorator, call: CallArgs) -> Any:
    first = call.positional(0)
    if first is None:
        return UNKNOWN
    refs: list[ArgOrStar] = [Arg(_allocated(a.value)) if isinstance(a, Arg) else STAR
                             for a in value.types]
    kwrefs = {k: Arg(_allocated(v.value)) for k, v in value.kwtypes.items()}
    return WithScoped(first.value, refs, kwrefs)


def apply_with_scoped(ev: Evaluator, value: WithScoped, call: CallArgs) -> Any:
    merged = dict(call.kwargs)
    merged.update(value.kwrefs)
    return ev.call(value.func, [*call.args, *value.refs], merged, call.node, call.frame, helper=False)


def apply_core_map(ev: Evaluator, value: CoreMapDecorator, call: CallArgs) -> Any:
    first = call.positional(0)
    if first is None:
        return UNKNOWN
    scratch = value.scratch.value if value.scratch is not None else Seq(())
    if isinstance(scratch, Mapping):
        ev.call(first.value, [], {str(k): Arg(_allocated(v)) for k, v in scratch.items.items()},
                call.node, call.frame, helper=False)
    elif isinstance(scratch, Seq):
        ev.call(first.value, [Arg(_allocated(v)) for v in scratch.items], {}, call.node,
                call.frame, helper=False)
    else:
        ev.call(first.value, [STAR], {}, call.node, call.frame, helper=False)
    return UNKNOWN


def apply_pipeline(ev: Evaluator, value: Pipeline, call: CallArgs) -> Any:
    scratches = call.kwargs.get("scratches")
    args: list[ArgOrStar] = [STAR]
    if scratches is not None and isinstance(scratches.value, Seq):
        args += [Arg(v) for v in scratches.value.items]
    with grid_of(ev.ctx, None), maybe_runs(ev.ctx):   # the pipeline's own grid, its steps
        ev.call(value.body, args, {}, call.node, call.frame, helper=False)
    return UNKNOWN


__all__ = ["INVOKER_HANDLERS", "GridSpecV"]
