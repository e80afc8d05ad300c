"""Binding a call's arguments to a function's parameters, and telling the domains about
the arguments that enter a helper (the Pallas domain marks the call site on every
semaphore passed: a DMA inside a helper reports at the outermost call)."""

from __future__ import annotations

import ast
from typing import Any

from ..values import UNKNOWN, Const, Func, Mapping, Seq, SeqTail
from .domain import Domain, HelperCall
from .frame import STAR, Arg, ArgOrStar, Binding, Evaluator, Frame


def bind(ev: Evaluator, fnode: Any, func: Func, args: list[ArgOrStar], kwargs: dict[str, Arg],
         call_node: ast.AST | None, frame: Frame, helper: bool) -> dict[str, Any]:
    """Parameters of `fnode` bound to the call's arguments.  Arguments after a STAR
    bind to the last positional parameters (Pallas puts scratch refs last)."""
    a = fnode.args
    positional = [p.arg for p in a.posonlyargs + a.args]
    first_default = len(positional) - len(a.defaults)
    env: dict[str, Any] = {}
    kw = dict(kwargs)
    unknown_kwargs = kw.pop("**", None) is not None
    # Parameters given by keyword cannot take positional arguments: drop them from
    # the end of the positional list (functools.partial(kernel, n=...) style).
    slots = list(positional)
    while slots and slots[-1] in kw:
        slots.pop()
    front, back = _split_at_star(args)
    for name, arg in zip(slots, front):
        env[name] = arg.value
    if back is not None:
        has_defaults = bool(a.defaults) and first_default < len(slots)
        if back and a.vararg is None and not has_defaults and len(front) + len(back) <= len(slots):
            for name, arg in zip(slots[len(slots) - len(back):], back):
                env[name] = arg.value
    for i, name in enumerate(positional):
        if name not in env:
            if name in kw:
                env[name] = kw.pop(name).value
            elif back is None and not unknown_kwargs and i >= first_default:
                env[name] = _default(ev, name, a.defaults[i - first_default], func)
            else:
                env[name] = UNKNOWN
    if a.vararg is not None:
        env[a.vararg.arg] = _varargs(front[len(slots):], back, len(front) <= len(slots))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        if p.arg in kw:
            env[p.arg] = kw.pop(p.arg).value
        elif d is not None and not unknown_kwargs:
            env[p.arg] = _default(ev, p.arg, d, func)
        else:
            env[p.arg] = UNKNOWN
    if a.kwarg is not None:
        env[a.kwarg.arg] = Mapping({k: v.value for k, v in kw.items()}) if not unknown_kwargs else UNKNOWN
    if helper and call_node is not None:
        if ev.entering:
            enter_helper(ev, ev.entering, env, args, kwargs, fnode, func, call_node, frame)
        if ev.unknown_arguments:
            _unknown_arguments(ev, [*zip(slots, front), *kwargs.items()], fnode, frame)
    return env


def _unknown_arguments(ev: Evaluator, placed: list[tuple[str, Arg]], fnode: Any, frame: Frame) -> None:
    """The domains told of each parameter given an unknown value written at the call."""
    for name, arg in placed:
        if arg.value is UNKNOWN and arg.node is not None:
            for d in ev.unknown_arguments:
                d.unknown_argument(ev, Binding(fnode, name), arg.node, frame)


def _split_at_star(args: list[ArgOrStar]) -> tuple[list[Arg], list[Arg] | None]:
    """(arguments before the `*` of unknown length, after it); after is None without one."""
    if STAR not in args:
        return [a for a in args if isinstance(a, Arg)], None
    i = args.index(STAR)
    front = [a for a in args[:i] if isinstance(a, Arg)]
    back = args[i + 1:]
    if STAR in back:  # several runs of unknown length: only the front is placed
        return front, []
    return front, [a for a in back if isinstance(a, Arg)]


def _varargs(extra: list[Arg], back: list[Arg] | None, front_fits: bool) -> Any:
    if back is None:
        return Seq(tuple(x.value for x in extra))
    if back and front_fits:
        return SeqTail(tuple(x.value for x in back))  # `def kernel(*refs)`
    return UNKNOWN


def _default(ev: Evaluator, name: str, node: ast.AST, func: Func) -> Any:
    if func.defaults is not None and name in func.defaults:
        return func.defaults[name]
    return ev.eval(node, func.frame) if func.frame is not None else UNKNOWN


def defaults_of(ev: Evaluator, fnode: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
                frame: Frame) -> dict[str, Any]:
    """The values of a function's defaults, evaluated where the definition runs, as Python
    does (`lambda b, s=s: ...` made in a loop keeps each pass's `s`)."""
    a = fnode.args
    positional = a.posonlyargs + a.args
    pairs = [*zip(positional[len(positional) - len(a.defaults):], a.defaults),
             *((p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None)]
    return {p.arg: ev.eval(d, frame) for p, d in pairs}


def enter_helper(ev: Evaluator, domains: tuple[Domain, ...], env: dict[str, Any], args: list[ArgOrStar],
                 kwargs: dict[str, Arg], fnode: Any, func: Func, call_node: ast.AST, frame: Frame) -> None:
    """Each argument written at the call, as it enters the helper: the domains' fold
    (`Domain.entering_helper`), item by item for `*args` / `**kwargs`.  Python's constants
    and unknown values enter unchanged: the domains are not asked of them."""
    by_value: dict[int, Arg] = {}
    for arg in [*args, *kwargs.values()]:
        if type(arg) is Arg and arg.node is not None and arg.value is not UNKNOWN and type(arg.value) is not Const:
            by_value[id(arg.value)] = arg
    if not by_value:
        return
    stmt = frame.stmt if frame.stmt is not None else call_node

    def enter(value: Any) -> Any:
        arg = by_value.get(id(value))
        if arg is None or arg.node is None:
            return value
        call = HelperCall(arg.node, call_node, stmt, func.name, fnode, frame)
        for d in domains:
            value = d.entering_helper(ev, value, call)
        return value

    a = fnode.args
    packed = {a.vararg.arg if a.vararg else None, a.kwarg.arg if a.kwarg else None} - {None}
    for name, value in env.items():
        if name in packed and isinstance(value, Seq):
            env[name] = Seq(tuple(enter(v) for v in value.items), value.is_list)
        elif name in packed and isinstance(value, Mapping):
            env[name] = Mapping({k: enter(v) for k, v in value.items.items()})
        else:
            env[name] = enter(value)
