"""Calls: argument evaluation, the dispatch on the callee's abstract value, user functions
(parameter binding, memoising, recursion bounds, helper-call sites) and list methods.

Library names go to the context's domains (`interp.domain`), then to Python's builtins
(`interp.builtins`); anything else is unknown, and user functions handed to it are still
analysed (`callbacks_unknown_call`)."""

from __future__ import annotations

import ast
from abc import ABC, abstractmethod
from contextlib import ExitStack
from collections.abc import Iterable
from typing import Any

from ..values import (
    UNKNOWN,
    Api,
    Bound,
    Choice,
    ClassV,
    Const,
    DomainValue,
    Func,
    Instance,
    Iter,
    Mapping,
    Partial,
    Seq,
    SeqOf,
    join_all,
)
from . import builtins
from .dicts import DICT_METHODS, dict_call
from .lists import LIST_METHODS, list_call
from .mutation import fresh, in_place, rebind, settled, unknown_changed
from .binding import bind
from .domain import NOT_MINE, Domain, answering, told_to_domains
from .envs import ActiveCall, Memoised, closes_over_a_call, join_envs, signature
from .frame import (
    ANY_KWARGS,
    FOREIGN_STEP_BUDGET,
    MAX_DEPTH,
    STAR,
    Arg,
    ArgOrStar,
    CallArgs,
    Context,
    ForeignBudget,
    Frame,
    Yields,
    binds_in,
    maybe_runs,
    unsure_after,
)
from .functions import resolve_lazy
from .operators import truth
from .summaries import NOT_REMEMBERED, CallWatch, Summary, call_key, copied, portable, redo, unchanged_inputs
from .syntax import generator_kind, nonlocal_names



class CallingInterpreter(ABC):
    """The calling half of the interpreter (the statements and expressions build on it)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.domains: tuple[Domain, ...] = ctx.domains
        # the domains told of each argument entering a helper, and of an unknown one
        self.entering = answering(ctx.domains, "entering_helper")
        self.unknown_arguments = answering(ctx.domains, "unknown_argument")

    @abstractmethod
    def eval(self, node: ast.AST, frame: Frame) -> Any: ...

    @abstractmethod
    def run_body(self, stmts: list[ast.stmt], frame: Frame) -> bool: ...

    @abstractmethod
    def instantiate(self, cls: ClassV, args: list[ArgOrStar], kwargs: dict[str, Arg], node: ast.AST | None,
                    frame: Frame) -> Any: ...

    @abstractmethod
    def lookup(self, name: str, frame: Frame) -> Any: ...

    @abstractmethod
    def attribute_in(self, obj: Any, attr: str, frame: Frame) -> Any:
        """`obj.attr` read in `frame` (a property runs there)."""

    @abstractmethod
    def note(self, node: ast.AST, value: Any, frame: Frame) -> None: ...

    def truth(self, value: Any) -> bool | None:
        return truth(value)

    def condition(self, node: ast.expr, frame: Frame) -> bool | None:
        """The truth of `node` where Python asks it, when static; the domains are told
        when it is one of their values."""
        if type(node) is ast.BoolOp:
            return self.bool_truth(node, frame)
        return self.truth_of(self.eval(node, frame), node, frame)

    def truth_of(self, value: Any, node: ast.expr, frame: Frame) -> bool | None:
        """The truth Python asks of `value`, the value of `node`."""
        if isinstance(value, DomainValue):
            for d in self.domains:
                d.truth_asked(self, value, node, frame)
        return truth(value)

    def bool_truth(self, node: ast.BoolOp, frame: Frame) -> bool | None:
        """The truth of `a and b` / `a or b` (known where one operand decides it, even
        when which one gives the value is not).  The operands after one that decides do
        not run; after one whose truth is not known, they may not."""
        decides = isinstance(node.op, ast.Or)   # `or` is decided by a true operand, `and` by a false one
        known = True
        binds = binds_in(node, frame)
        ends: list[dict] = []   # with `:=` in it, the states it may end in
        with unsure_after(self.ctx) as unsure:
            for operand in node.values:
                t = self.condition(operand, frame)
                if t is decides:
                    return self.ended(binds, ends, decides)
                if t is None and binds is not None:
                    ends.append(dict(binds.env))
                if t is None and known:
                    known = False
                    unsure.begin()
        return self.ended(binds, ends, (not decides) if known else None)

    def ended(self, binds: Frame | None, ends: list[dict], value: Any) -> Any:
        """`value`, with the frame `:=` binds in (`binds`) left in the join of the states
        an expression may end in (`ends`, and the state now)."""
        if binds is not None and ends:
            binds.env = join_envs([*ends, binds.env], self.ctx.merged)
        return value

    # ------------------------------------------------------------------ arguments
    def eval_args(self, node: ast.Call, frame: Frame) -> tuple[list[ArgOrStar], dict[str, Arg]] | None:
        """Evaluated arguments; None when two `*` of unknown length make positions unknown."""
        args: list[ArgOrStar] = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.eval(a.value, frame)
                if isinstance(v, Seq):
                    args.extend(Arg(x, None) for x in v.items)
                elif STAR not in args:
                    args.append(STAR)
                else:
                    return None
            else:
                args.append(Arg(self.eval(a, frame), a))
        kwargs: dict[str, Arg] = {}
        for kw in node.keywords:
            v = self.eval(kw.value, frame)
            if kw.arg is None:
                if isinstance(v, Mapping) and all(isinstance(k, str) for k in v.items):
                    kwargs.update({k: Arg(x, None) for k, x in v.items.items()})
                else:
                    kwargs["**"] = Arg(UNKNOWN, None)
            else:
                kwargs[kw.arg] = Arg(v, kw.value)
        return args, kwargs

    def eval_call(self, node: ast.Call, frame: Frame) -> Any:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in CONTAINER_METHODS:
            return self.container_method(node, func, frame)
        return self.call_value(node, self.eval(func, frame), frame)

    def call_value(self, node: ast.Call, callee: Any, frame: Frame) -> Any:
        """The call `node` of `callee` (its function's value)."""
        func = node.func
        method = func.attr if callee is UNKNOWN and isinstance(func, ast.Attribute) else None
        if method is not None:   # `obj.name(...)` of an unknown `obj`: the domains get its name
            for d in self.domains:
                d.unknown_method(self, method)
        evaluated = self.eval_args(node, frame)
        if evaluated is None:
            if method is None and not isinstance(callee, Api):
                self.unresolved()
            self.callbacks_unknown_call([], {}, frame)
            return UNKNOWN
        if method is not None:
            self.callbacks_unknown_call(evaluated[0], evaluated[1], frame)
            return UNKNOWN
        result = self.call(callee, evaluated[0], evaluated[1], node, frame)
        if not (isinstance(callee, Api) and callee.qname == "next"):
            _forget_iterators(evaluated[0], frame)
            if evaluated[1]:
                _forget_iterators(evaluated[1].values(), frame)
        if isinstance(result, DomainValue) and result.noted:   # hover on the call
            self.note(node, result, frame)
        return result

    # ------------------------------------------------------------------ dispatch
    def call(self, callee: Any, args: list[ArgOrStar], kwargs: dict[str, Arg], node: ast.AST | None, frame: Frame,
             helper: bool = True) -> Any:
        """Call an abstract callable.  `helper`: a direct call from user code (the
        domains see the arguments entering it: `Domain.entering_helper`)."""
        if isinstance(callee, Func):
            return self.call_function(callee, args, kwargs, node, frame, helper=helper)
        if isinstance(callee, Api):
            return self.call_api(callee.qname, CallArgs(args, kwargs, node, frame))
        if isinstance(callee, Choice):
            return join_all([self.call(o, args, kwargs, node, frame, helper=helper) for o in callee.options])
        if isinstance(callee, Partial):
            merged = dict(callee.kwargs)
            merged.update(kwargs)
            return self.call(callee.func, list(callee.args) + args, merged, node, frame, helper=helper)
        if isinstance(callee, Bound):
            return self.call_function(callee.func, [Arg(callee.self_value, None), *args], kwargs, node, frame,
                                      helper=helper)
        if isinstance(callee, ClassV):
            return self.instantiate(callee, args, kwargs, node, frame)
        if isinstance(callee, Instance):
            method = callee.cls.lookup("__call__")
            if isinstance(method, Func):
                return self.call_function(method, [Arg(callee, None), *args], kwargs, node, frame, helper=helper)
            return UNKNOWN
        if isinstance(callee, DomainValue):
            call = CallArgs(args, kwargs, node, frame)
            for d in self.domains:
                result = d.call_value(self, callee, call)
                if result is not NOT_MINE:
                    return result
        self.unresolved()
        self.callbacks_unknown_call(args, kwargs, frame)
        return UNKNOWN

    def call_api(self, name: str, call: CallArgs) -> Any:
        """A library name: a domain's answer, a builtin's, or unknown."""
        for d in self.domains:
            result = d.call_name(self, name, call)
            if result is not NOT_MINE:
                return result
        builtin = builtins.BUILTINS.get(name)
        if builtin is not None:
            return builtin(self, call)
        self.callbacks_unknown_call(call.args, call.kwargs, call.frame)
        return UNKNOWN

    def callbacks_unknown_call(self, args: list[ArgOrStar], kwargs: dict[str, Arg], frame: Frame) -> None:
        """A user function handed to something we do not model (jax.jit, shard_map, ...)
        may still be called: analyse it with unknown arguments."""
        if not args and not kwargs:
            return
        escaped = []
        ctx = self.ctx
        for a in [*args, *kwargs.values()]:
            if not isinstance(a, Arg):
                continue
            value = a.value
            if leans_on_own_entry(ctx, value):
                ctx.leaned_on.add(value.block)   # its own entry runs it so, and certainly
            elif isinstance(value, (Func, Partial)):
                with maybe_runs(ctx):   # called any number of times, or never
                    self.call(value, [STAR], ANY_KWARGS, None, frame, helper=False)
            else:
                escaped.append(value)
        if escaped:
            self.escape(escaped)

    def unresolved(self) -> None:
        for d in self.domains:
            d.unresolved_call(self)

    def escape(self, values: list[Any]) -> None:
        """Values handed to code not followed: what it does with them is unknown."""
        values = [v for v in values if told_to_domains(v)]
        if values:
            for d in self.domains:
                d.escape(self, values)

    # ------------------------------------------------------------------ user functions
    def call_function(self, func: Func, args: list[ArgOrStar], kwargs: dict[str, Arg], node: ast.AST | None,
                      frame: Frame, helper: bool = True, loop_body: bool = False) -> Any:
        ctx = self.ctx
        if func.path is not None and frame.path is None and not ctx.in_foreign:
            return self._call_foreign(func, args, kwargs, node, frame, helper, loop_body)
        func.analysed = True
        if func.node is None and resolve_lazy(func) is None:  # a top-level def parsed on first call
            self._unfollowed(args, kwargs)   # it does not parse: what it does is unknown
            return UNKNOWN
        if frame.depth >= MAX_DEPTH:
            self._unfollowed(args, kwargs)
            return UNKNOWN
        fnode = func.node
        key = None
        if func.frame is not None and func.frame.parent is None and not isinstance(fnode, ast.Lambda) \
                and ctx.memoise and not _given_a_closure(args, kwargs):
            # A top-level function: the same arguments from the same call site give the
            # same result and findings (memoised: repeated helper calls cost nothing).
            key = (fnode, id(node), helper, loop_body, signature(args), signature(tuple(sorted(kwargs.items()))))
            hit = ctx.memo.get(key)
            if hit is not None:
                if ctx.remembering:   # what a run of it costs, reads and did, for `ctx.summaries`
                    ctx.memo_steps += hit.steps
                    ctx.memo_skips += hit.touched
                    if hit.deps:
                        ctx.deps.update(hit.deps)
                return fresh(hit.result)
        env = bind(self, fnode, func, args, kwargs, node, frame, helper)
        active = ActiveCall(fnode, tuple(env.items()), frame, func)
        if active.repeats(ctx.active):
            self._unfollowed(args, kwargs)
            return UNKNOWN  # the same call again inside itself: unbounded recursion
        if key is None:
            return self._run_function(func, env, frame, loop_body, active)
        if ctx.remembering:
            return self._run_memoised(func, env, frame, loop_body, active, key, (args, kwargs))
        effects = ctx.effects
        result = self._run_function(func, env, frame, loop_body, active)
        if ctx.effects == effects:
            # the arguments are kept with the result: values signed by identity (objects)
            # stay alive, so that no later value of the run takes their `id`
            ctx.memo[key] = Memoised(result, (args, kwargs))
        return result

    def _run_memoised(self, func: Func, env: dict[str, Any], frame: Frame, loop_body: bool, active: ActiveCall,
                      key: tuple, given: tuple) -> Any:
        """Within a call to remember, run a call of a top-level function and memoise it
        with what `summaries` needs of a call that takes it: the steps a run of it takes
        (those the memo saved inside it included), the names it reads, and whether it
        changed the entry's record (a call memoised elsewhere is taken as changed)."""
        ctx = self.ctx
        effects, watch = ctx.effects, CallWatch(ctx)
        try:
            result = self._run_function(func, env, frame, loop_body, active)
        finally:
            watch.close()
        if ctx.effects == effects:
            touched = not watch.record_kept() or any(g is not None for g in watch.gained())
            ctx.memo[key] = Memoised(result, given, watch.cost, watch.read, touched)
        return result

    def _call_foreign(self, func: Func, args: list[ArgOrStar], kwargs: dict[str, Arg], node: ast.AST | None,
                      frame: Frame, helper: bool, loop_body: bool) -> Any:
        """Call another module's function from the entry's module, within what is left
        of FOREIGN_STEP_BUDGET; past it, the call's value is unknown. A call an earlier
        run made with the same inputs gives what it gave (`summaries`)."""
        ctx = self.ctx
        left = FOREIGN_STEP_BUDGET - ctx.foreign_steps
        if left <= 0:
            ctx.cut = True
            return UNKNOWN
        if func.node is None:
            resolve_lazy(func)   # a top-level def parsed on its first call: the key names it
        key = call_key(ctx, func, args, kwargs, frame, helper, loop_body)
        kept = ctx.summaries.get(key) if key is not None else NOT_REMEMBERED
        if key is None or kept is NOT_REMEMBERED:
            return self._foreign_run(func, args, kwargs, node, frame, helper, loop_body)
        if kept is not None and kept.steps <= left and ctx.steps + kept.steps <= ctx.budget:
            ctx.summary_hits += 1
            func.analysed = True
            redo(ctx, kept)
            return copied(kept.result)
        return self._remembered_call(func, args, kwargs, node, frame, helper, loop_body, key)

    def _foreign_run(self, func: Func, args: list[ArgOrStar], kwargs: dict[str, Arg], node: ast.AST | None,
                     frame: Frame, helper: bool, loop_body: bool) -> Any:
        ctx = self.ctx
        left = FOREIGN_STEP_BUDGET - ctx.foreign_steps
        start, ctx.limit, ctx.in_foreign = ctx.steps, min(ctx.budget, ctx.steps + left), True
        try:
            return self.call_function(func, args, kwargs, node, frame, helper, loop_body)
        except ForeignBudget:
            ctx.cut = True
            self._unfollowed(args, kwargs)
            return UNKNOWN
        finally:
            ctx.foreign_steps += ctx.steps - start
            ctx.limit, ctx.in_foreign = ctx.budget, False

    def _remembered_call(self, func: Func, args: list[ArgOrStar], kwargs: dict[str, Arg], node: ast.AST | None,
                         frame: Frame, helper: bool, loop_body: bool, key: tuple) -> Any:
        """Run a call of another module's function and remember it when its result was all
        it did (the other modules' names it read are noted with it)."""
        ctx = self.ctx
        left, skips = FOREIGN_STEP_BUDGET - ctx.foreign_steps, ctx.memo_skips
        watch, ctx.remembering = CallWatch(ctx), True
        try:
            result = self._foreign_run(func, args, kwargs, node, frame, helper, loop_body)
        finally:
            watch.close()
            ctx.remembering = False
        if not 0 < watch.steps <= left:
            return result   # taken from the in-run memo, or cut short
        # not when the memo skipped what a call inside did to the record: a run of its own
        # might do it
        if ctx.memo_skips == skips and watch.record_kept() and portable(result) \
                and unchanged_inputs(args, kwargs, key[1]):
            # counted as a run of its own counts it: every step, the memo's help aside
            ctx.summaries.put(key, Summary(copied(result), watch.cost, watch.read, watch.gained()))
        else:
            ctx.summaries.put(key, NOT_REMEMBERED)
        return result

    def _unfollowed(self, args: list[ArgOrStar], kwargs: dict[str, Arg]) -> None:
        """A call not followed: what it does with what it is given is unknown."""
        self.unresolved()
        values = [a.value for a in [*args, *kwargs.values()] if isinstance(a, Arg)]
        if values:
            self.escape(values)

    def _run_function(self, func: Func, env: dict[str, Any], frame: Frame, loop_body: bool, active: ActiveCall) -> Any:
        fnode = func.node
        callee_frame = Frame(env, func.frame, func.block, func, frame.depth + 1, func.path)
        callee_frame.scope = fnode
        ctx = self.ctx
        if callee_frame.depth > ctx.deepest:
            ctx.deepest = callee_frame.depth
        callee_frame.level = ctx.uncertain - ctx.staged + ctx.summarising   # (`traced_uncertainty`, inlined)
        text = func.block.text if func.block is not None else None
        nonlocals = nonlocal_names(fnode, text)
        if nonlocals:
            callee_frame.nonlocals = nonlocals
            for name in nonlocals:
                env.pop(name, None)
        if loop_body and fnode.args.args:
            callee_frame.loops.append(fnode.args.args[0].arg)
        kind = generator_kind(fnode, text)
        if kind is not None:
            callee_frame.yields = Yields(self.ctx.summarising, kind == "static")
        self.ctx.active.append(active)
        try:
            if isinstance(fnode, ast.Lambda):
                result = self.eval(fnode.body, callee_frame)
            else:
                falls = self.run_body(fnode.body, callee_frame)
                rets = callee_frame.returns
                if falls:
                    rets = [*rets, Const(None)]
                result = join_all(rets) if callee_frame.yields is None else _generated(callee_frame.yields)
            self.flush_created(callee_frame)
        finally:
            self.ctx.active.pop()
            self.ctx.uncertain -= callee_frame.uncertain
        return result

    def flush_created(self, frame: Frame) -> None:
        """Closures and classes defined in `frame` that were never called: analyse them
        with unknown arguments, so the DMAs inside them are still checked."""
        if not frame.created:
            return
        if frame.func is None:   # top-level definitions: entries, called by the program's users
            self._flush(frame)
            return
        if not any(map(_left_to_flush, frame.created)):   # (most often: every closure was called)
            return
        self.ctx.uncalled += 1
        try:
            with ExitStack() as stack:
                for d in self.domains:
                    stack.enter_context(d.uncalled(self))
                self._flush(frame)
        finally:
            self.ctx.uncalled -= 1

    def _flush(self, frame: Frame) -> None:
        for obj in frame.created:
            if isinstance(obj, Func):
                if not obj.analysed:
                    self.call_function(obj, [STAR], ANY_KWARGS, None, frame, helper=False)
            elif isinstance(obj, ClassV):
                for m in obj.attrs.values():
                    if _never_run(m):
                        self.call_function(m, [Arg(Instance(obj), None), STAR], ANY_KWARGS, None, frame,
                                           helper=False)

    # ------------------------------------------------------------------ list and dict methods
    def container_method(self, node: ast.Call, func: ast.Attribute, frame: Frame) -> Any:
        """`scratch.append(x)`, `options.update(...)`, `.pop()`, ... on a list or dict:
        every holder takes the container after it.  On anything else the method is called
        as any other."""
        target = func.value
        owner = name = None
        if isinstance(target, ast.Name):
            name = target.id
            base = self.lookup(name, frame)
        elif isinstance(target, ast.Attribute):
            owner, name = self.eval(target.value, frame), target.attr
            if isinstance(owner, Instance) and name in owner.fields:
                base = owner.fields[name]
            else:
                base = self.attribute_in(owner, name, frame)
        else:   # `pairs[0].append(x)`: the list's other holders see it (not `pairs`)
            base = self.eval(target, frame)
        if not in_place(base) or type(base) is not Mapping and func.attr not in LIST_METHODS:
            result = self.call_value(node, self.attribute_in(base, func.attr, frame), frame)
            if base is UNKNOWN and func.attr in CHANGING_METHODS:
                unknown_changed(self.ctx, frame)
            return result
        evaluated = self.eval_args(node, frame)
        args, kwargs = evaluated if evaluated is not None else ([], {})
        values = [a.value for a in args if isinstance(a, Arg)] if all(isinstance(a, Arg) for a in args) else None
        given = {k: a.value for k, a in kwargs.items()}
        done = dict_call(base, func.attr, values, given) if type(base) is Mapping else \
            list_call(base, func.attr, values, given)
        if isinstance(owner, Instance):
            owner.fields[name] = done.after
        elif isinstance(target, ast.Name):
            holder = frame.holder(target.id) or frame
            holder.env[target.id] = settled(self.ctx, holder, base, done.after)
        if func.attr in CHANGING_METHODS:   # the container itself changed: every holder sees it
            rebind(self.ctx, frame, base, done.after)
        return done.result


CONTAINER_METHODS = LIST_METHODS | DICT_METHODS
CHANGING_METHODS = CONTAINER_METHODS - {"get"}


def leans_on_own_entry(ctx: Context, value: Any) -> bool:
    """Whether `value` is a top-level function of the document that runs as an entry of its
    own: handed to code not followed, it is not run again with unknown arguments there."""
    return isinstance(value, Func) and value.block in ctx.run_alone and value.block is not ctx.entry_block \
        and value.path is None and value.frame is not None and value.frame.parent is None


def _given_a_closure(args: list[ArgOrStar], kwargs: dict[str, Arg]) -> bool:
    """Whether a call is given a closure (in a container, an object or a partial): two calls
    given it alike may still differ, so the call is not memoised."""
    return any(closes_over_a_call(a) for a in (*args, *kwargs.values()))


def _never_run(value: Any) -> bool:
    """A function no call has run yet."""
    return isinstance(value, Func) and not value.analysed


def _left_to_flush(obj: Any) -> bool:
    """A closure or class made in a frame that `flush_created` would still run."""
    return _never_run(obj) or isinstance(obj, ClassV) and any(map(_never_run, obj.attrs.values()))


def _forget_iterators(args: Iterable[ArgOrStar], frame: Frame) -> None:
    """An iterator a call was given by name may have been advanced there: the name now
    holds some of its items, in an unknown number."""
    for a in args:
        if isinstance(a, Arg) and isinstance(a.value, Iter) and isinstance(a.node, ast.Name):
            holder = frame.holder(a.node.id)
            if holder is not None:
                holder.env[a.node.id] = SeqOf(join_all(a.value.items))


def _generated(yields: Yields) -> Any:
    """What calling a generator function gives: an iterator over its items when they are
    exact, else a sequence of their join (its body runs when it is called, not lazily)."""
    if yields.exact:
        return Iter(tuple(yields.values))
    return SeqOf(join_all(yields.values))
