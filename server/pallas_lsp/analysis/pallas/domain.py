"""The Pallas domain: what Pallas and JAX give meaning to, as the generic interpreter asks
it (`interp.domain`).  Library names and Pallas values go to the registry's handlers
(`dispatch.py`); `.at[...]` views to `indexing.py` (semaphores) and `buffers.py` (array
refs); helper calls mark the call site on the semaphores they are given; unknown names
feed the arrays known by their use (`indexed_use.py`)."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from ..interp.domain import NOT_MINE, Domain, HelperCall
from ..interp.frame import Binding, CallArgs, Context, Evaluator, Frame
from ..values import SCALAR, UNKNOWN, Api
from ..arrays.values import ArrayValue
from . import dispatch, handlers
from .buffers import read, view
from .captures import check_capture
from .indexing import index_sem, is_at
from .invokers import grid_of
from .protocol import holds_callable
from .registry import library_fields, semaphore_member
from .sems import Sem, SemType, Site, holds_sem, map_sems
from .stores import check_store
from .values import AtProperty, BufferRef


@dataclass(unsafe_hash=True, slots=True)
class NamedSem:
    """A semaphore named somewhere in the analysed document (what hover shows)."""

    block: Any
    node: ast.AST
    sem: Sem
    scope: ast.AST | None

    def __init__(self, block: Any, node: ast.AST, sem: Sem, scope: ast.AST | None) -> None:   # native (`records`)
        self.block = block
        self.node = node
        self.sem = sem
        self.scope = scope


class PallasDomain(Domain):
    """Stateless: what it learns of an entry goes to the entry's `Context`."""

    # the registry's handlers (`dispatch.py`: a library call costs one dict lookup); methods,
    # not attributes holding functions, which mypyc's calls of `Domain` methods would not see
    def call_name(self, ev: Evaluator, qname: str, call: CallArgs) -> Any:
        return dispatch.call_entry(ev, qname, call)

    def call_value(self, ev: Evaluator, callee: Any, call: CallArgs) -> Any:
        return dispatch.call_value(ev, callee, call)

    def attribute(self, ev: Evaluator, obj: Any, attr: str) -> Any:
        return dispatch.attribute(ev, obj, attr)

    def subscript(self, ev: Evaluator, base: Any, node: ast.Subscript, frame: Frame) -> Any:
        """`x.at[...]` views; an element read from a ref (`idx_ref[i]`: a number)."""
        if type(base) is AtProperty:
            if isinstance(base.ref, Sem):
                return index_sem(ev, base.ref, node.slice, frame)
            return view(ev, base.ref, node.slice, frame)
        if base is UNKNOWN and is_at(node):   # `x.at[...]` of an unknown `x`
            ev.eval(node.slice, frame)
            return UNKNOWN
        if type(base) is BufferRef:
            return read(ev, base, node, frame)
        if base is UNKNOWN and not isinstance(node.slice, (ast.Slice, ast.Tuple)):
            ev.eval(node.slice, frame)
            return SCALAR
        return NOT_MINE

    def binop(self, ev: Evaluator, left: Any, op: ast.operator, right: Any,
              node: ast.AST | None = None, frame: Frame | None = None) -> Any:
        """`SemaphoreType.DMA @ mesh` is one semaphore; `DMA((2, n)) @ mesh` keeps its
        shape (MemoryRef.__matmul__ only replaces the memory space)."""
        if isinstance(op, ast.MatMult):
            member = semaphore_member(left.qname) if isinstance(left, Api) else None
            if member is not None:
                return SemType(member, (), None)
            if isinstance(left, SemType):
                return left
        return NOT_MINE

    def store(self, ev: Evaluator, base: Any, node: ast.Subscript, value: Any, frame: Frame) -> None:
        """A value stored into an array ref (PAL401, PAL402)."""
        if type(base) is BufferRef:
            check_store(ev, base, node, value, frame)

    def note(self, ev: Evaluator, node: ast.AST, value: Any, frame: Frame) -> None:
        if type(value) is Sem:
            ev.ctx.views.append(NamedSem(frame.block, node, value, frame.scope))
        elif type(value) is ArrayValue and value.origin is not None and type(node) is ast.Name:
            check_capture(ev, node, value, frame)   # a module-level array, read in a kernel?

    def record_size(self, ctx: Context) -> Any:
        """The entry's record: findings, calls and kernels, helper-call sites, indexed
        semaphores, the protocol's changes, the semaphore uses of the evidence."""
        return (len(ctx.findings), len(ctx.rule_findings), ctx.reports, len(ctx.calls), len(ctx.pending),
                len(ctx.kernel_nodes), len(ctx.certain_kernels), len(ctx.sites), len(ctx.indexed_decls),
                len(ctx.indexed_sites),
                (ctx.protocol.changes, len(ctx.protocol.kind_mismatches)) if ctx.protocol is not None else None,
                ctx.evidence.notes if ctx.evidence is not None else None)

    def mark(self, ctx: Context) -> Any:
        """The grid's axis uses (`pl.program_id`) and the evidence's flows so far."""
        grid, evidence = ctx.grids[-1] if ctx.grids else None, ctx.evidence
        return (len(grid.axis_uses) if grid is not None else 0,
                (len(evidence.flows), len(evidence.aliases)) if evidence is not None else (0, 0))

    def since(self, ctx: Context, mark: Any) -> Any:
        grid, evidence = ctx.grids[-1] if ctx.grids else None, ctx.evidence
        uses, (flows, aliases) = mark
        gained = (tuple(grid.axis_uses[uses:]) if grid is not None else (),
                  tuple(evidence.flows[flows:]) if evidence is not None else (),
                  tuple(evidence.aliases[aliases:]) if evidence is not None else ())
        return gained if any(gained) else None

    def redo(self, ctx: Context, gained: Any) -> None:
        uses, flows, aliases = gained
        if uses:
            ctx.grids[-1].axis_uses.extend(uses)
        if flows or aliases:
            ctx.evidence.flows.extend(flows)
            ctx.evidence.aliases.extend(aliases)

    def unknown_method(self, ev: Evaluator, name: str) -> None:
        dispatch.unknown_method(ev, name)

    def escape(self, ev: Evaluator, values: Iterable[Any]) -> None:
        """What unknown code does with a semaphore is unknown: its ledger is not judged."""
        protocol = ev.ctx.protocol
        if protocol is not None:
            values = list(values)
            for v in values:
                protocol.escape(v)
            if any(holds_callable(v) for v in values):   # it may call them
                handlers.unseen_events(ev.ctx)

    def unresolved_call(self, ev: Evaluator) -> None:
        handlers.unseen_events(ev.ctx)

    def unknown_argument(self, ev: Evaluator, param: Binding, node: ast.AST, frame: Frame) -> None:
        evidence = ev.ctx.evidence
        if evidence is not None:   # may be a semaphore array
            evidence.note_argument(param, node, frame, ev.lookup)

    def unknown_assigned(self, ev: Evaluator, name: str, node: ast.AST, frame: Frame) -> None:
        evidence = ev.ctx.evidence
        if evidence is not None:   # `recv_sem = sems.at[0]`
            evidence.note_alias(name, node, frame, ev.lookup)

    def uncalled(self, ev: Evaluator) -> AbstractContextManager[Any]:
        """Closures nothing calls JAX never traces: no grid, no protocol."""
        return grid_of(ev.ctx, None)

    def entering_helper(self, ev: Evaluator, value: Any, call: HelperCall) -> Any:
        """Semaphores passed to a helper remember the call site (unless they already came
        through an outer one): a DMA inside the helper reports there."""
        if not holds_sem(value):
            return value
        direct = isinstance(value, Sem)
        key = (id(call.arg), id(call.call), id(call.callee_node), direct)
        sites = ev.ctx.sites
        site = sites.get(key)
        if site is None:  # one Site per call site: repeated calls memoise alike
            f = call.frame
            site = sites[key] = Site(f.loc(call.arg), f.loc(call.call), f.loc(call.stmt), call.callee, direct,
                                     call.callee_node)
        return map_sems(value, lambda s: s.through(site))

    def class_attrs(self, qname: str) -> dict[str, Any]:
        """A library class's semaphore fields (`pltpu.BufferedRef`)."""
        return {f.name: Sem(f.kind, f.dims, None, library=qname) for f in library_fields(qname)}
