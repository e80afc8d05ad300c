"""Binding a call's arguments to a function's parameters, and telling the domains about
the arguments that enter a helper (the Pallas domain marks the call site on every
semaphore passed: a DMA inside a helper reports at the outermost call)."""

from __future__ import annotations

import ast
import weakref
from typing import Any

from ..caches import CACHES
from ..values import UNKNOWN, Func, Mapping, Seq, SeqTail
from .domain import Domain, HelperCall, told_to_domains
from .frame import STAR, Arg, ArgOrStar, Binding, Evaluator, Frame


def bind(ev: Evaluator, fnode: Any, func: Func, args: list[ArgOrStar], kwargs: dict[str, Arg],
         call_node: ast.AST | None, frame: Frame, helper: bool) -> dict[str, Any]:
    """Parameters of `fnode` bound to the call's arguments.  Arguments after a STAR
    bind to the last positional parameters (Pallas puts scratch refs last)."""
    params = parameters(fnode)
    positional = params.positional
    env: dict[str, Any] = {}
    kw = dict(kwargs)
    unknown_kwargs = kw.pop("**", None) is not None
    # Parameters given by keyword cannot take positional arguments: drop them from
    # the end of the positional list (functools.partial(kernel, n=...) style).
    slots = positional
    while slots and slots[-1] in kw:
        slots = slots[:-1]
    front, back = _split_at_star(args)
    for name, arg in zip(slots, front):
        env[name] = arg.value
    if back is not None:
        has_defaults = bool(params.defaults) and params.first_default < len(slots)
        if back and params.vararg is None and not has_defaults and len(front) + len(back) <= len(slots):
            for name, arg in zip(slots[len(slots) - len(back):], back):
                env[name] = arg.value
    if len(env) < len(positional):
        for i, name in enumerate(positional):
            if name not in env:
                if name in kw:
                    env[name] = kw.pop(name).value
                elif back is None and not unknown_kwargs and i >= params.first_default:
                    env[name] = _default(ev, name, params.defaults[i - params.first_default], func)
                else:
                    env[name] = UNKNOWN
    if params.vararg is not None:
        env[params.vararg] = _varargs(front[len(slots):], back, len(front) <= len(slots))
    for name, d in params.kwonly:
        if name in kw:
            env[name] = kw.pop(name).value
        elif d is not None and not unknown_kwargs:
            env[name] = _default(ev, name, d, func)
        else:
            env[name] = UNKNOWN
    if params.kwarg is not None:
        env[params.kwarg] = Mapping({k: v.value for k, v in kw.items()}) if not unknown_kwargs else UNKNOWN
    if helper and call_node is not None:
        if ev.entering:
            enter_helper(ev, ev.entering, env, args, kwargs, fnode, func, call_node, frame)
        if ev.unknown_arguments:
            _unknown_arguments(ev, [*zip(slots, front), *kwargs.items()], fnode, frame)
    return env


class Parameters:
    """A function's parameters as `bind` reads them (one record per def node)."""

    __slots__ = ("defaults", "first_default", "kwarg", "kwonly", "positional", "vararg")

    def __init__(self, a: ast.arguments) -> None:
        self.positional = tuple(p.arg for p in a.posonlyargs + a.args)
        self.defaults = tuple(a.defaults)
        self.first_default = len(self.positional) - len(a.defaults)
        self.vararg = a.vararg.arg if a.vararg is not None else None
        self.kwonly = tuple((p.arg, d) for p, d in zip(a.kwonlyargs, a.kw_defaults))
        self.kwarg = a.kwarg.arg if a.kwarg is not None else None


def parameters(fnode: Any) -> Parameters:
    """`fnode`'s parameters (memoised per def node)."""
    memo = CACHES.parameters
    params = memo.data.get(weakref.ref(fnode))
    if params is None:
        params = memo[fnode] = Parameters(fnode.args)
    return params


def _unknown_arguments(ev: Evaluator, placed: list[tuple[str, Arg]], fnode: Any, frame: Frame) -> None:
    """The domains told of each parameter given an unknown value written at the call."""
    for name, arg in placed:
        if arg.value is UNKNOWN and arg.node is not None:
            for d in ev.unknown_arguments:
                d.unknown_argument(ev, Binding(fnode, name), arg.node, frame)


def _split_at_star(args: list[ArgOrStar]) -> tuple[list[Arg], list[Arg] | None]:
    """(arguments before the `*` of unknown length, after it); after is None without one."""
    if STAR not in args:
        return args, None   # type: ignore[return-value]   # all `Arg`
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
    params = parameters(fnode)
    if not params.defaults and not params.kwonly:
        return {}
    pairs = [*zip(params.positional[params.first_default:], params.defaults),
             *((name, d) for name, d in params.kwonly if d is not None)]
    return {name: ev.eval(d, frame) for name, d in pairs}


def enter_helper(ev: Evaluator, domains: tuple[Domain, ...], env: dict[str, Any], args: list[ArgOrStar],
                 kwargs: dict[str, Arg], fnode: Any, func: Func, call_node: ast.AST, frame: Frame) -> None:
    """Each argument written at the call, as it enters the helper: the domains' fold
    (`Domain.entering_helper`), item by item for `*args` / `**kwargs`.  Python's constants
    and unknown values enter unchanged: the domains are not asked of them."""
    by_value: dict[int, Arg] = {}
    for arg in [*args, *kwargs.values()]:
        if type(arg) is Arg and arg.node is not None and told_to_domains(arg.value):
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
