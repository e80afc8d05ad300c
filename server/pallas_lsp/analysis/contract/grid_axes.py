"""`pl.program_id(axis)` / `pl.num_programs(axis)` inside a kernel (or a helper it calls)
against the grid's rank: JAX raises `Axis a is out of bounds for grid g` when tracing."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

from ..interp.frame import Evaluator, Frame
from ..interp.functions import resolve_lazy
from ..report import ContractFinding, ContractNote
from ..values import Api, Const, Func, Loc, Partial
from .layout import Layout

_AXIS_APIS = {"pl.program_id", "pl.num_programs"}
_AXIS_WORDS = {"program_id", "num_programs"}
_MAX_HELPER_DEPTH = 3
# Decorators whose function runs in the kernel, at the same grid point.
_GRID_BODY_DECORATORS = {"pl.when", "pl.loop"}


def _kernel_func(value: Any) -> Func | None:
    while isinstance(value, Partial):
        value = value.func
    if isinstance(value, Func) and (value.node is not None or resolve_lazy(value) is not None):
        return value
    return None


def axis_calls(ev: Evaluator, func: Func, depth: int = 0, seen: set | None = None) -> Iterator[tuple[Loc, str, int]]:
    """(where, API, axis) of every static-axis program_id / num_programs call in `func`,
    in the `pl.when` / `pl.loop` bodies it defines, and in the functions of this module it
    calls (a few levels deep).  Other nested functions are skipped: an `emit_pipeline`
    body, for one, has a grid of its own.  Only calls that spell an axis API, or a helper
    whose text does, are evaluated."""
    seen = set() if seen is None else seen
    if id(func.node) in seen or func.path is not None:
        return
    seen.add(id(func.node))
    frame = func.frame if func.frame is not None else Frame({}, None, func.block)
    for node in _own_nodes(ev, func.node, frame):
        if not isinstance(node, ast.Call):
            continue
        target = node.func
        word = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
        if word in _AXIS_WORDS and node.args:
            callee = ev.eval(target, frame)
            if isinstance(callee, Api) and callee.qname in _AXIS_APIS:
                axis = ev.eval(node.args[0], frame)
                if isinstance(axis, Const) and type(axis.value) is int:
                    yield Loc(func.block, node), callee.qname, axis.value
        elif isinstance(target, ast.Name) and depth < _MAX_HELPER_DEPTH:
            callee = ev.eval(target, frame)
            if isinstance(callee, Func) and _spells_an_axis(callee) \
                    and (callee.node is not None or resolve_lazy(callee) is not None):
                yield from axis_calls(ev, callee, depth + 1, seen)


def _may_name_an_axis(ev: Evaluator, func: Func) -> bool:
    """Whether the kernel's text spells an axis API, or the name of a function of this
    module that does (a cheap test before walking the kernel)."""
    if _spells_an_axis(func):
        return True
    module = ev.ctx.module
    text = func.block.text if func.block is not None else ""
    return any(name in text for word in _AXIS_WORDS for name in module.names_of_blocks_spelling(word))


def _spells_an_axis(func: Func) -> bool:
    text = func.block.text if func.block is not None else ""
    return any(word in text for word in _AXIS_WORDS)


def _own_nodes(ev: Evaluator, fnode: ast.AST, frame: Frame) -> Iterator[ast.AST]:
    """The nodes of a function's body, with its `pl.when` / `pl.loop` bodies but not its
    other nested functions."""
    stack = list(ast.iter_child_nodes(fnode))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not any(_is_grid_body_decorator(ev, d, frame) for d in node.decorator_list):
                continue
        elif isinstance(node, (ast.Lambda, ast.ClassDef)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _is_grid_body_decorator(ev: Evaluator, decorator: ast.expr, frame: Frame) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if not isinstance(target, (ast.Name, ast.Attribute)):
        return False
    callee = ev.eval(target, frame)
    return isinstance(callee, Api) and callee.qname in _GRID_BODY_DECORATORS


def grid_axes(ev: Evaluator, layout: Layout) -> Iterator[ContractFinding]:
    rank = layout.grid_rank
    call = layout.call
    if rank is None:
        return
    if call.ran:   # its kernel was interpreted: the uses seen running it
        uses: Any = [(u.at, u.api, u.axis) for u in call.axis_uses]
    else:
        func = _kernel_func(call.kernel)
        if func is None or not _may_name_an_axis(ev, func):
            return
        uses = axis_calls(ev, func)
    call_loc = call.loc()
    notes = (ContractNote(call_loc, "the pallas_call and its grid"),) if call_loc is not None else ()
    for loc, api, axis in uses:
        if 0 <= axis < rank:
            continue
        grid = "no grid (grid ())" if rank == 0 else f"a grid of rank {rank} (axes 0 to {rank - 1})"
        yield ContractFinding("PAL107", loc, f"Axis {axis} is out of bounds for the grid: `{api}({axis})` in a "
                              f"kernel launched with {grid}.", notes)
