"""What the non-invoking Pallas APIs mean to the interpreter: checked calls and DMA
descriptors, semaphore declarations, index keepers, selectors, and spec constructors."""

from __future__ import annotations

import ast
from typing import Any

from .. import checks
from ..arrays.values import dtype_attribute, dtype_of_name, float_scalar_type, traced_int32
from ..interp.frame import Arg, CallArgs, Evaluator, Frame
from ..values import SCALAR, SLICE, UNKNOWN, Api, Const, Loc, Seq, SliceV, join
from .buffers import check_copy, copy_bytes
from .kinds import check_kind
from .model import (
    Action,
    CheckedCall,
    DescriptorMethod,
    MemorySpace,
    SemaphoreType,
    SemEffect,
    SemRole,
    Simple,
    Spec,
)
from .protocol import Event
from .registry import DESCRIPTOR_METHODS, semaphore_member
from .sems import Descriptor, Sem, SemType, allocate
from .values import (
    ArraySpecV,
    AxisUse,
    BlockSpecV,
    BufferRef,
    CompilerParamsV,
    GridSpecV,
)


def _loc(frame: Frame, node: ast.AST | None) -> Loc | None:
    return frame.loc(node) if node is not None else None


# --------------------------------------------------------------------------- semaphores

def checked_call(ev: Evaluator, spec: CheckedCall, call: CallArgs) -> Any:
    frame = call.frame
    by_role: dict[SemRole, Arg] = {}
    for p in spec.sems:
        arg = call.param(spec.position(p.name), p.name)
        if arg is not None:
            by_role[p.role] = arg
            if arg.value is UNKNOWN and ev.ctx.evidence is not None:
                ev.ctx.evidence.note_semaphore(arg.node, frame, ev.lookup)
    call_loc = _loc(frame, call.node)
    if spec.action is Action.CHECK:
        arg = by_role.get(SemRole.SEM)
        if arg is not None and spec.rule is not None:
            use = checks.SemUse(spec.rule, spec.verb, spec.name, arg.value, _loc(frame, arg.node), call_loc)
            checks.check_semaphore(ev.ctx, use, frame)
            if isinstance(arg.value, Sem) and arg.value.scalar:   # JAX checks the shape first
                check_kind(ev.ctx, arg.value, spec.kinds, spec.verb, use.at, call_loc)
            if spec.effect is not None:
                note_event(ev.ctx, Event.SIGNAL if spec.effect is SemEffect.SIGNAL else Event.WAIT, arg.value,
                           call_loc, _elsewhere(spec, call), _count(spec, call))
        return traced_int32() if spec.reads_count else UNKNOWN
    nbytes = None
    if spec.copies is not None:
        copy_src, copy_dst = (call.param(spec.position(name), name) for name in spec.copies)
        if copy_src is not None and copy_dst is not None and isinstance(copy_src.value, BufferRef) \
                and isinstance(copy_dst.value, BufferRef):
            check_copy(ev.ctx, copy_src.value, copy_dst.value, _loc(frame, copy_src.node), _loc(frame, copy_dst.node),
                       call_loc)
        nbytes = copy_bytes(copy_src.value if copy_src else None, copy_dst.value if copy_dst else None)
    dst, src = by_role.get(SemRole.DST), by_role.get(SemRole.SRC)
    desc = Descriptor(
        dst=dst.value if dst else UNKNOWN,
        src=(src.value if src else UNKNOWN) if spec.remote else None,
        dst_loc=_loc(frame, dst.node) if dst else None,
        src_loc=_loc(frame, src.node) if src else None,
        call=call_loc, remote=spec.remote,
        stmt=frame.loc(frame.stmt) if frame.stmt is not None else call_loc,
        context=checks.call_context(call_loc, frame), nbytes=nbytes,
    )
    if spec.action is Action.START:
        descriptor_method(ev, desc, DESCRIPTOR_METHODS["start"], frame, call.node)
    return desc


def _count(spec: CheckedCall, call: CallArgs) -> int | None:
    """The amount a `semaphore_signal` / `semaphore_wait` adds or takes, when static."""
    if spec.count is None:
        return None
    arg = call.param(spec.position(spec.count), spec.count)
    if arg is None:
        return 1 if not call.has_star else None
    return arg.value.value if isinstance(arg.value, Const) and type(arg.value.value) is int else None


def _elsewhere(spec: CheckedCall, call: CallArgs) -> bool:
    """Whether the call's count is another device's or core's (or is not taken)."""
    return "**" in call.kwargs or any(
        not (isinstance(a.value, Const) and a.value.value in (None, True))
        for a in (call.kwargs.get(k) for k in spec.count_elsewhere) if a is not None)


def note_event(ctx: Any, event: Event, value: Any, at: Loc | None, remote: bool = False,
               amount: int | None = None) -> None:
    """Tell the entry's semaphore ledger (not in code JAX never traces, nor silently)."""
    if ctx.protocol is not None and not ctx.silent and not ctx.uncalled:
        ctx.effects += 1
        ctx.event_effects += 1
        ctx.protocol.record(event, value, at, remote, amount, ctx.certain)


def unseen_events(ctx: Any) -> None:
    """Code not followed ran in a kernel (an unknown callee, functions handed to unknown
    code): it may have started, waited or signalled on any semaphore.  Not an effect: a
    call that saw it once stays memoised (what it makes unknown stays so)."""
    if ctx.grids and ctx.protocol is not None and not ctx.silent and not ctx.uncalled:
        for event in Event:
            ctx.protocol.record(event, UNKNOWN, None, False, None, ctx.certain)


def descriptor_method(ev: Evaluator, desc: Descriptor, method: DescriptorMethod, frame: Frame,
                      node: ast.AST | None = None) -> None:
    for role in method.roles:
        value = desc.dst if role is SemRole.DST else desc.src
        if value is None:
            continue
        use = checks.SemUse(method.rule, method.verb, f"descriptor.{method.name}", value,
                            desc.dst_loc if role is SemRole.DST else desc.src_loc, desc.call,
                            stmt=desc.stmt, role=role, remote=desc.remote, context=desc.context)
        checks.check_semaphore(ev.ctx, use, frame)
        check_kind(ev.ctx, value, method.kinds, "wait", _loc(frame, node) or use.at)   # JAX raises at the wait
        note_event(ev.ctx, dma_event(method), value, _loc(frame, node) if node is not None else desc.call,
                   desc.remote, desc.nbytes)


def dma_event(method: DescriptorMethod) -> Event:
    """What a descriptor method does to its semaphore's count."""
    return Event.DMA_START if method.effect is SemEffect.SIGNAL else Event.DMA_WAIT


def declare(ev: Evaluator, spec: SemaphoreType, call: CallArgs) -> Any:
    """`SemaphoreType.X(shape)` -> a declaration with its dims (or UNKNOWN)."""
    shape_arg = call.param(0, "shape")
    if shape_arg is None:
        return UNKNOWN
    frame, node = call.frame, call.node
    dims = dims_of(shape_arg.value, shape_arg.node, frame)
    if dims is None:
        return UNKNOWN
    loc = _loc(frame, node)
    scalar_decl = None
    if dims == (1,) and isinstance(node, ast.Call):
        scalar_decl = (loc, frame.block.segment(node.func) if frame.block is not None else None)
    return SemType(spec.member, dims, loc, scalar_decl, gpu=spec.name.startswith("plgpu."))


def declare_space(ev: Evaluator, spec: Simple, call: CallArgs) -> Any:
    """`pltpu.SEMAPHORE(shape, SemaphoreType.X.dtype)`."""
    shape, dtype = call.param(0, "shape"), call.param(1, "dtype")
    if shape is None:
        return UNKNOWN
    dims = dims_of(shape.value, shape.node, call.frame)
    if dims is None:
        return UNKNOWN
    kind = "?"
    if dtype is not None and isinstance(dtype.value, Api) and dtype.value.qname.endswith(".dtype"):
        kind = semaphore_member(dtype.value.qname[: -len(".dtype")]) or "?"
    return SemType(kind, dims, _loc(call.frame, call.node))


def barrier(ev: Evaluator, spec: Simple, call: CallArgs) -> Any:
    return Sem("BARRIER", (), _loc(call.frame, call.node))


def dims_of(value: Any, node: ast.AST | None, frame: Frame) -> tuple | None:
    """A shape argument -> dims tuple (ints, or the source text of a length that is not
    static), or None when even the rank is unknown."""
    if isinstance(value, Const) and type(value.value) is int:
        return (value.value,)
    if not isinstance(value, Seq):
        return None
    texts = None
    if isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) == len(value.items) \
            and not any(isinstance(e, ast.Starred) for e in node.elts) and frame.block is not None:
        texts = [frame.block.segment(e) for e in node.elts]
    dims: list = []
    for i, item in enumerate(value.items):
        if isinstance(item, Const) and type(item.value) is int:
            dims.append(item.value)
        elif isinstance(item, Const) and item.value is None:
            dims.append(None)      # a squeezed block dimension
        else:
            dims.append(texts[i] if texts else "?")
    return tuple(dims)


# --------------------------------------------------------------------------- refs and indices

def index_keeper(ev: Evaluator, spec: Simple, call: CallArgs) -> Any:
    """`pl.ds(start, size)`: an index that keeps its dimension (with its static size);
    `slice(stop)` / `slice(start, stop[, step])`: its static bounds."""
    if not spec.params:
        vals = call.values()
        if not call.has_star and 1 <= len(vals) <= 3 and all(
                isinstance(b, Const) and (b.value is None or type(b.value) is int) for b in vals):
            bounds = tuple(b.value for b in vals)
            return SliceV(bounds=(None, *bounds) if len(bounds) == 1 else bounds)
        return SLICE
    start = call.param(0, "start")
    floating = float_scalar_type(start.value) if start is not None else None
    size = _static_int(call.param(1, "size"))
    if size is None:
        return SliceV(float_start=floating) if floating else SLICE
    stride = call.param(2, "stride")
    return SliceV(size, start=_static_int(start), stride=_static_int(stride) if stride else 1, float_start=floating)


def _static_int(arg: Arg | None) -> int | None:
    return arg.value.value if arg is not None and isinstance(arg.value, Const) and type(arg.value.value) is int \
        else None


def selector(ev: Evaluator, spec: Simple, call: CallArgs) -> Any:
    vals = [a.value for a in call.args[1:3] if isinstance(a, Arg)]
    return join(vals[0], vals[1]) if len(vals) == 2 else UNKNOWN


def empty_ref_like(ev: Evaluator, spec: Simple, call: CallArgs) -> Any:
    v = call.value(0)
    return allocate(v) if isinstance(v, (SemType, Api)) else UNKNOWN


def scalar_result(ev: Evaluator, spec: Simple, call: CallArgs) -> Any:
    ev.callbacks_unknown_call(call.args, call.kwargs, call.frame)
    return SCALAR


def library_class(ev: Evaluator, spec: Any, call: CallArgs) -> Any:
    """`pltpu.BufferedRef(...)` built directly: what it holds is JAX's business."""
    ev.callbacks_unknown_call(call.args, call.kwargs, call.frame)
    return UNKNOWN


def traced_index(ev: Evaluator, spec: Simple, call: CallArgs) -> Any:
    """`lax.axis_index(name)`: the device's index along a mesh axis, a traced int32."""
    return traced_int32()


def grid_index(ev: Evaluator, spec: Simple, call: CallArgs) -> Any:
    """`pl.program_id(axis)`: a traced int32; `pl.num_programs(axis)`: the grid's length
    there, a Python int where the grid gives it (else a number). A static axis is noted
    against the grid in force."""
    ctx = ev.ctx
    grid = ctx.grids[-1] if ctx.grids else None
    axis = call.value(0, "axis")
    if grid is not None and not ctx.silent and call.node is not None \
            and isinstance(axis, Const) and type(axis.value) is int:
        grid.axis_uses.append(AxisUse(call.frame.loc(call.node), spec.name, axis.value))
        replay = ctx.replay
        if replay is not None and grid is replay.call:   # a replay runs one grid point at a time
            return replay.grid_value(spec.name == "pl.num_programs", axis.value)
    if spec.name == "pl.num_programs":
        return _grid_length(grid.grid if grid is not None else None, axis)
    return traced_int32()


def _grid_length(grid: Any, axis: Any) -> Any:
    """JAX gives `num_programs` of a static grid dimension as a Python int."""
    items = (grid,) if isinstance(grid, Const) else grid.items if isinstance(grid, Seq) else None
    if items is None or not isinstance(axis, Const) or type(axis.value) is not int \
            or not -len(items) <= axis.value < len(items):
        return SCALAR
    length = items[axis.value]
    return length if isinstance(length, Const) and type(length.value) is int else SCALAR


def passthrough(ev: Evaluator, spec: Simple, call: CallArgs) -> Any:
    from ..values import Bound, Func, Partial
    from .values import PALLAS_CALLABLES, Passthrough

    first = call.value(0)
    if isinstance(first, (Func, Partial, Bound, *PALLAS_CALLABLES)):
        return first  # used directly as a decorator / wrapper: the same function
    return Passthrough()


# --------------------------------------------------------------------------- specs

def _text(call: CallArgs, arg: Arg | None) -> str | None:
    if arg is None or arg.node is None or call.frame.block is None:
        return None
    return call.frame.block.segment(arg.node)


def _dtype_text(call: CallArgs, arg: Arg | None) -> str | None:
    """A dtype argument as `jnp.<name>` when its value names one (`x.dtype` of a known
    array, `o_ref.dtype`), else its source text."""
    dtype = dtype_of_name(arg.value.qname) if arg is not None and isinstance(arg.value, Api) else None
    if dtype is not None:
        return f"jnp.{dtype_attribute(dtype)}"
    return _text(call, arg)


def array_spec(ev: Evaluator, spec: Spec, call: CallArgs) -> Any:
    shape = call.param(spec.params.index("shape"), "shape")
    dims = dims_of(shape.value, shape.node, call.frame) if shape is not None else None
    dtype = call.param(spec.params.index("dtype"), "dtype")
    return ArraySpecV(dims, _dtype_text(call, dtype), None, _loc(call.frame, call.node))


def memory_space_buffer(ev: Evaluator, spec: MemorySpace, call: CallArgs) -> Any:
    """`pltpu.VMEM((8, 128), jnp.float32)`: a buffer of that shape in that space."""
    shape = call.param(0, "shape")
    dims = dims_of(shape.value, shape.node, call.frame) if shape is not None else None
    return ArraySpecV(dims, _dtype_text(call, call.param(1, "dtype")), spec.space, _loc(call.frame, call.node))


def _space_name(value: Any) -> str | None:
    return value.qname.rsplit(".", 1)[-1] if isinstance(value, Api) else None


def block_spec(ev: Evaluator, spec: Spec, call: CallArgs) -> Any:
    shape = call.param(0, "block_shape")
    dims = dims_of(shape.value, shape.node, call.frame) if shape is not None else None
    index_map = call.param(1, "index_map")
    space = call.kwargs.get("memory_space")
    return BlockSpecV(dims, index_map.value if index_map is not None else None,
                      _space_name(space.value) or _text(call, space) if space is not None else None,
                      _loc(call.frame, call.node))


def grid_spec(ev: Evaluator, spec: Spec, call: CallArgs) -> Any:
    given = {name: call.param(i, name) for i, name in enumerate(spec.params)}
    n = given.get("num_scalar_prefetch")
    count: int | None = 0
    if n is not None:
        count = n.value.value if isinstance(n.value, Const) and type(n.value.value) is int else None

    def value(name: str, default: Any) -> Any:
        arg = given.get(name)
        return arg.value if arg is not None else default

    locs = {name: call.frame.loc(arg.node) for name, arg in given.items() if arg is not None and arg.node is not None}
    return GridSpecV(count, value("grid", Seq(())), value("in_specs", None), value("out_specs", None),
                     value("scratch_shapes", Seq(())), _loc(call.frame, call.node), locs)


def compiler_params(ev: Evaluator, spec: Spec, call: CallArgs) -> Any:
    sem = call.param(0, "dimension_semantics")
    return CompilerParamsV(sem.value if sem is not None else None, _loc(call.frame, call.node),
                           _loc(call.frame, sem.node) if sem is not None else None)
