"""The interpreter: expressions on top of statements and calls.

It computes `values.py` values instead of real ones, through closures, helpers, tuples,
dicts and classes; what Python alone does not say (a library name called, a domain's
value used) it asks the context's domains (`interp.domain`).  Precision policy: whatever
it cannot model becomes UNKNOWN, and the checks are silent on UNKNOWN.  Branches are
joined; loop bodies run to a fixpoint; calls are followed to a bounded depth; a step
budget bounds the work per entry."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from ..symbols import child
from ..values import (
    SCALAR,
    SLICE,
    UNKNOWN,
    Api,
    Bound,
    ClassV,
    Const,
    DomainValue,
    Func,
    Instance,
    Iter,
    Mapping,
    ModuleV,
    Partial,
    Seq,
    SeqOf,
    SeqTail,
    SuperProxy,
    element,
    join_all,
    sequence,
)
from .binding import defaults_of
from .domain import NOT_MINE
from .envs import join_envs, join_held
from .frame import (
    INTERRUPT_EVERY,
    MAX_UNROLL,
    MAX_UNROLL_NESTING,
    Arg,
    Comprehension,
    Context,
    Frame,
    binds_in,
    maybe_runs,
    unsure_after,
    walrus_frame,
)
from .builtins import CONSTANTS
from .operators import PLAIN, binop, compare
from .statements import StatementInterpreter
from .syntax import walrus_targets



_DICT_VIEWS = ("keys", "values", "items")
_ABSENT = object()   # a name not bound in the frame itself


class Interpreter(StatementInterpreter):
    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self._frame_hint: Frame | None = None  # the frame of the attribute being evaluated (properties run there)

    def eval(self, node: ast.AST, frame: Frame) -> Any:
        ctx = self.ctx
        steps = ctx.steps = ctx.steps + 1   # Context.tick, inlined: the hottest line
        if steps > ctx.limit or not steps % INTERRUPT_EVERY:
            ctx.checkpoint()
        handler = _EXPRESSIONS.get(type(node))
        # f-strings, await, ...: values we do not model
        return handler(self, node, frame) if handler is not None else UNKNOWN

    # ------------------------------------------------------------------ names and attributes
    def _name(self, node: ast.Name, frame: Frame) -> Any:
        v = frame.env.get(node.id, _ABSENT)   # a local name: `lookup`'s first step, inlined
        if v is _ABSENT or v is UNKNOWN:
            v = self.lookup(node.id, frame)
        if isinstance(v, DomainValue) and v.noted:
            self.note(node, v, frame)
        return v

    def _attribute(self, node: ast.Attribute, frame: Frame) -> Any:
        base = self.eval(node.value, frame)
        self._frame_hint = frame
        v = self.attribute(base, node.attr)
        if isinstance(v, DomainValue) and v.noted:
            self.note(node, v, frame)
        return v

    def attribute_in(self, obj: Any, attr: str, frame: Frame) -> Any:
        self._frame_hint = frame
        return self.attribute(obj, attr)

    def attribute(self, obj: Any, attr: str) -> Any:
        if isinstance(obj, DomainValue):   # a domain's value: its domain says
            for d in self.domains:
                v = d.attribute(self, obj, attr)
                if v is not NOT_MINE:
                    return v
            return UNKNOWN
        if isinstance(obj, ModuleV):
            ws = self.ctx.module.workspace
            return ws.resolve(f"{obj.name}.{attr}", obj.from_path, self.ctx) if ws is not None else UNKNOWN
        if isinstance(obj, Api):
            name = child(obj.qname, attr)
            constant = CONSTANTS.get(name)
            return Api(name) if constant is None else Const(constant)
        if isinstance(obj, Instance):
            if attr in obj.fields:
                return obj.fields[attr]
            v = obj.cls.lookup(attr)
            if isinstance(v, Func):
                if v.is_property and self._frame_hint is not None:
                    return self.call_function(v, [Arg(obj, None)], {}, None, self._frame_hint, helper=False)
                return Bound(v, obj)
            if v is None and attr == "_replace" and obj.cls.is_dataclass:  # a named tuple's
                return Partial(Api("dataclasses.replace"), (Arg(obj, None),))
            return v if v is not None else UNKNOWN
        if isinstance(obj, ClassV):
            v = obj.lookup(attr)
            return v if v is not None else UNKNOWN
        if isinstance(obj, Mapping) and attr in _DICT_VIEWS:   # `d.values()`: bound to the dict
            return Partial(Api(f"dict.{attr}"), (Arg(obj, None),))
        if isinstance(obj, SuperProxy):
            for base in obj.owner.bases:
                v = base.lookup(attr)
                if isinstance(v, Func):
                    return Bound(v, obj.self_value)
                if v is not None:
                    return v
        return UNKNOWN

    # ------------------------------------------------------------------ subscripts
    def _noted(self, node: ast.AST, value: Any, frame: Frame) -> Any:
        """A domain's value computed by an expression of the document: the domains are told
        (hover on any expression)."""
        if isinstance(value, DomainValue) and value.noted:
            self.note(node, value, frame)
        return value

    def _subscript(self, node: ast.Subscript, frame: Frame) -> Any:
        return self._noted(node, self.item(self.eval(node.value, frame), node, frame), frame)

    def item(self, base: Any, node: ast.Subscript, frame: Frame) -> Any:
        """`base[...]` read: a domain's answer, else Python's on known containers."""
        for d in self.domains:
            v = d.subscript(self, base, node, frame)
            if v is not NOT_MINE:
                return v
        return self.item_of(base, self.eval(node.slice, frame), node.slice, frame)

    def item_of(self, base: Any, idx: Any, index: ast.expr, frame: Frame) -> Any:
        """`base[idx]` of a known container, `idx` the value of the expression `index`."""
        if isinstance(base, Seq):
            return self._item(base, idx, index, frame)
        if isinstance(base, SeqTail):
            if isinstance(idx, Const) and type(idx.value) is int and -len(base.items) <= idx.value < 0:
                return base.items[idx.value]
            return UNKNOWN
        if isinstance(base, SeqOf):
            return base if isinstance(index, ast.Slice) else base.item
        if isinstance(base, Mapping) and isinstance(idx, Const):
            return base.items.get(idx.value, UNKNOWN)
        return UNKNOWN

    def _item(self, base: Seq, idx: Any, index: ast.expr, frame: Frame) -> Any:
        if isinstance(idx, Const) and type(idx.value) is int:
            i = idx.value
            return base.items[i] if -len(base.items) <= i < len(base.items) else UNKNOWN
        if isinstance(index, ast.Slice):
            bounds = [self.eval(p, frame) if p is not None else Const(None)
                      for p in (index.lower, index.upper, index.step)]
            if all(isinstance(p, Const) and (p.value is None or type(p.value) is int) for p in bounds):
                lo, hi, st = (p.value for p in bounds)
                return type(base)(base.items[lo:hi:st], base.is_list)   # a range's slice: a range
            return UNKNOWN
        return join_all(base.items) if base.items else UNKNOWN

    # ------------------------------------------------------------------ displays
    def _constant(self, node: ast.Constant, frame: Frame) -> Any:
        return Const(node.value)

    def _sequence(self, node: ast.Tuple | ast.List, frame: Frame) -> Any:
        items = self.eval_items(node.elts, frame)
        if items is not None:
            return sequence(tuple(items), isinstance(node, ast.List))
        # `[*unknown, a, b]`: keep the known tail
        last = max(i for i, e in enumerate(node.elts) if isinstance(e, ast.Starred))
        tail = self.eval_items(node.elts[last + 1:], frame)
        return SeqTail(tuple(tail)) if tail else UNKNOWN

    def eval_items(self, elts: list[ast.expr], frame: Frame) -> list[Any] | None:
        """Evaluate a tuple/list display; None when a starred part has unknown length."""
        items: list[Any] = []
        for e in elts:
            if isinstance(e, ast.Starred):
                v = self.eval(e.value, frame)
                if not isinstance(v, Seq):
                    return None
                items.extend(v.items)
            else:
                items.append(self.eval(e, frame))
        return items

    def _dict(self, node: ast.Dict, frame: Frame) -> Any:
        """`{k: v, **other}`: every part evaluated in order, as Python does; known when
        every key is and every `**` part is a known dict."""
        items: dict | None = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                other = self.eval(v, frame)
                if items is not None and type(other) is Mapping:
                    items.update(other.items)
                else:
                    items = None
                continue
            key, value = self.eval(k, frame), self.eval(v, frame)
            if items is not None and isinstance(key, Const):
                items[key.value] = value
            else:
                items = None
        return Mapping(items) if items is not None else UNKNOWN

    def _comprehension(self, node: Comprehension, frame: Frame) -> Any:
        """`[f(x) for x in xs if c]`: evaluated item by item where the iterables are short
        static tuples (Python runs it so while JAX traces), else once for an abstract item."""
        inner = Frame({}, frame, frame.block, frame.func, frame.depth, frame.path)
        inner.stmt = frame.stmt
        inner.scope = node  # a comprehension is a scope of its own
        inner.level = self.ctx.traced_uncertainty
        out: list[Any] = []
        binds = binds_in(node, frame)
        lazy = isinstance(node, ast.GeneratorExp)
        before = dict(binds.env) if binds is not None and not lazy else None
        exact = self._generate(node, node.generators, inner, out)
        if binds is not None and lazy:
            # items are made as they are taken, and `any`, `next`, ... may not take them all
            binds.env.update((name, UNKNOWN) for name in walrus_targets(node))
        elif binds is not None and before is not None and not exact:   # `:=` in items that may not run
            binds.env = join_envs([before, binds.env], self.ctx.merged)
        frame.created.extend(inner.created)
        if isinstance(node, ast.DictComp):
            keys = [k for k, _ in out]
            if exact and all(isinstance(k, Const) for k in keys):
                return Mapping({k.value: v for k, v in out})
            return UNKNOWN
        if exact and isinstance(node, ast.ListComp):
            return Seq(tuple(out), True)
        if exact and isinstance(node, ast.GeneratorExp):
            return Iter(tuple(out))
        return SeqOf(join_all(out))

    def _generate(self, node: Comprehension, gens: list[ast.comprehension], inner: Frame, out: list[Any]) -> bool:
        """Append the elements for the items of `gens` to `out`; True when `out` is exactly
        the comprehension's items (every level unrolled, every condition static)."""
        if not gens:
            if isinstance(node, ast.DictComp):
                out.append((self.eval(node.key, inner), self.eval(node.value, inner)))
            else:
                out.append(self.eval(node.elt, inner))
            return True
        gen = gens[0]
        it = self.eval(gen.iter, inner)
        if isinstance(gen.target, ast.Name) and gen.target.id not in inner.loops:
            inner.loops.append(gen.target.id)
        ctx = self.ctx
        if not (isinstance(it, Seq) and len(it.items) <= MAX_UNROLL and ctx.unrolling < MAX_UNROLL_NESTING):
            with maybe_runs(ctx):   # one sample of an unknown number of items
                self._generate_item(node, gens, element(it), inner, out)
            return False
        ctx.unrolling += 1
        try:
            exact = True
            for item in it.items:
                exact = self._generate_item(node, gens, item, inner, out) and exact
            return exact
        finally:
            ctx.unrolling -= 1

    def _generate_item(self, node: Comprehension, gens: list[ast.comprehension], item: Any, inner: Frame,
                       out: list[Any]) -> bool:
        gen = gens[0]
        self.assign(gen.target, item, inner)
        conds = [self.condition(c, inner) for c in gen.ifs]
        if False in conds:
            return True
        if None in conds:
            with maybe_runs(self.ctx):
                self._generate(node, gens[1:], inner, out)
            return False
        return self._generate(node, gens[1:], inner, out)

    def _yield(self, node: ast.Yield, frame: Frame) -> Any:
        value = self.eval(node.value, frame) if node.value is not None else Const(None)
        self._yielded((value,), True, frame)
        return UNKNOWN  # what the consumer sends back

    def _yield_from(self, node: ast.YieldFrom, frame: Frame) -> Any:
        it = self.eval(node.value, frame)
        if isinstance(it, Seq):
            self._yielded(it.items, True, frame)
        else:
            self._yielded((element(it),), False, frame)
        return UNKNOWN

    def _yielded(self, values: tuple, exact: bool, frame: Frame) -> None:
        """Record items a generator yields (a bounded number: past MAX_UNROLL, their join)."""
        y = frame.yields
        if y is None:
            return
        y.values.extend(values)
        if not exact or self.ctx.summarising != y.summarising:
            y.exact = False  # inside a loop run to a fixpoint: some number of these
        if len(y.values) > MAX_UNROLL:
            y.values[:] = [join_all(y.values)]
            y.exact = False

    # ------------------------------------------------------------------ operators
    def _binop(self, node: ast.BinOp, frame: Frame) -> Any:
        left, right = self.eval(node.left, frame), self.eval(node.right, frame)
        return self._noted(node, self.binop(left, node.op, right, node, frame), frame)


    def binop(self, left: Any, op: ast.operator, right: Any,
              node: ast.AST | None = None, frame: Frame | None = None) -> Any:
        """`left op right`: Python's arithmetic, or a domain's where an operand is its own
        (`node` in `frame`: the expression or statement, where there is one)."""
        if type(left) not in PLAIN or type(right) not in PLAIN:
            for d in self.domains:
                v = d.binop(self, left, op, right, node, frame)
                if v is not NOT_MINE:
                    return v
        return binop(left, op, right)

    def _if_exp(self, node: ast.IfExp, frame: Frame) -> Any:
        cond = self.condition(node.test, frame)
        if cond is True:
            return self.eval(node.body, frame)
        if cond is False:
            return self.eval(node.orelse, frame)
        with maybe_runs(self.ctx):
            binds = binds_in(node, frame)
            if binds is None:
                return self.joined((self.eval(node.body, frame), self.eval(node.orelse, frame)))
            # `:=` on one side: each side from the same state
            base = binds.env
            binds.env = dict(base)
            body = self.eval(node.body, frame)
            after_body, binds.env = binds.env, dict(base)
            orelse = self.eval(node.orelse, frame)
            binds.env = join_envs([after_body, binds.env], self.ctx.merged)
            return self.joined((body, orelse))

    def joined(self, values: tuple) -> Any:
        """What one of these values gives, not known which (a list or dict joined is
        noted as being one of them: `Context.merged`)."""
        return join_held(values, {}, self.ctx.merged)

    def _unary(self, node: ast.UnaryOp, frame: Frame) -> Any:
        if isinstance(node.op, ast.Not):
            t = self.condition(node.operand, frame)
            return Const(not t) if t is not None else UNKNOWN
        v = self.eval(node.operand, frame)
        if type(v) not in PLAIN:
            for d in self.domains:
                r = d.unary(self, node.op, v)
                if r is not NOT_MINE:
                    return r
        if v is SCALAR:
            return SCALAR
        if isinstance(v, Const) and isinstance(v.value, (int, float, bool)):
            if isinstance(node.op, ast.USub):
                return Const(-v.value)
            if isinstance(node.op, ast.UAdd):
                return v
        return UNKNOWN

    def _compare(self, node: ast.Compare, frame: Frame) -> Any:
        """`a < b < c` is `a < b and b < c` (`b` evaluated once): it stops at the first
        comparison that is false; those after one not known may not run."""
        left = self.eval(node.left, frame)
        if len(node.ops) == 1:   # (most comparisons)
            r = self.compare(node.ops[0], left, self.eval(node.comparators[0], frame), node, frame)
            return r if isinstance(r, DomainValue) else Const(r) if r is not None else UNKNOWN
        result: bool | None = True
        binds = binds_in(node, frame)
        ends: list[dict] = []
        with unsure_after(self.ctx) as unsure:
            for op, c in zip(node.ops, node.comparators):
                right = self.eval(c, frame)
                r = self.compare(op, left, right, node, frame)
                if isinstance(r, DomainValue):   # elementwise, in a chain (`0 <= x < n`)
                    return self.ended(binds, ends, UNKNOWN)
                if r is False:
                    return self.ended(binds, ends, Const(False))
                if r is None and result is True:
                    result = None
                    if binds is not None:
                        ends.append(dict(binds.env))
                    unsure.begin()
                left = right
        return self.ended(binds, ends, Const(result) if result is not None else UNKNOWN)

    def compare(self, op: ast.cmpop, left: Any, right: Any,
                node: ast.AST | None = None, frame: Frame | None = None) -> Any:
        """A comparison decided statically (True, False, None: not static): a domain's
        answer where an operand is its own (a domain value where it compares elementwise),
        else Python's on known values."""
        if type(left) not in PLAIN or type(right) not in PLAIN:
            for d in self.domains:
                r = d.compare(self, op, left, right, node, frame)
                if r is not NOT_MINE:
                    return r
        return compare(op, left, right)

    def _bool_op(self, node: ast.BoolOp, frame: Frame) -> Any:
        """`a or b` gives the first true operand (`and`: the first false one), else the
        last, as it is; the join of those that may, when truths are not known."""
        decides = isinstance(node.op, ast.Or)
        may_give: list[Any] = []
        # With `:=` in it, the states it may end in: after each operand from the first
        # whose truth is not known on (those after it may not run).
        binds = binds_in(node, frame)
        ends: list[dict] = []
        with unsure_after(self.ctx) as unsure:
            for operand in node.values[:-1]:
                value = self.eval(operand, frame)
                t = self.truth_of(value, operand, frame)
                if t is decides:
                    return self.ended(binds, ends, self.joined((*may_give, value)))
                if t is None:
                    may_give.append(value)
                    if binds is not None:
                        ends.append(dict(binds.env))
                    if len(may_give) == 1:   # the operands after it may not run
                        unsure.begin()
            return self.ended(binds, ends, self.joined((*may_give, self.eval(node.values[-1], frame))))

    # ------------------------------------------------------------------ the rest
    def _lambda(self, node: ast.Lambda, frame: Frame) -> Any:
        func = Func(node, frame, frame.block, "<lambda>", frame.path, defaults=defaults_of(self, node, frame))
        frame.created.append(func)
        return func

    def _named_expr(self, node: ast.NamedExpr, frame: Frame) -> Any:
        """`(n := v)` binds `n` in the function around it, also from a comprehension."""
        v = self.eval(node.value, frame)
        self.assign(node.target, v, walrus_frame(frame))
        return v

    def _formatted(self, node: ast.JoinedStr, frame: Frame) -> Any:
        """An f-string: its parts evaluated in order (they may call and bind); the text
        where each is a known constant formatted plainly."""
        texts: list[str] = []
        known = True
        for part in node.values:
            text = part.value if isinstance(part, ast.Constant) and isinstance(part.value, str) else None
            if isinstance(part, ast.FormattedValue):
                text = _plain_format(self.eval(part.value, frame), part.conversion)
                if part.format_spec is not None:
                    self.eval(part.format_spec, frame)
                    text = None
            if text is None:
                known = False
            else:
                texts.append(text)
        return Const("".join(texts)) if known else UNKNOWN

    def _unmodelled(self, node: ast.expr, frame: Frame) -> Any:
        """An expression whose value is not modelled (`{a, b}`, `await x`): what it
        evaluates still runs, in order."""
        for part in ast.iter_child_nodes(node):
            if isinstance(part, ast.expr):
                self.eval(part, frame)
        return UNKNOWN

    def _starred(self, node: ast.Starred, frame: Frame) -> Any:
        return self.eval(node.value, frame)

    def _slice(self, node: ast.Slice, frame: Frame) -> Any:
        return SLICE


_EXPRESSIONS: dict[type, Callable[[Interpreter, Any, Frame], Any]] = {
    ast.Name: Interpreter._name,
    ast.Attribute: Interpreter._attribute,
    ast.Call: Interpreter.eval_call,
    ast.Subscript: Interpreter._subscript,
    ast.Constant: Interpreter._constant,
    ast.Tuple: Interpreter._sequence,
    ast.List: Interpreter._sequence,
    ast.BinOp: Interpreter._binop,
    ast.IfExp: Interpreter._if_exp,
    ast.Dict: Interpreter._dict,
    ast.Lambda: Interpreter._lambda,
    ast.NamedExpr: Interpreter._named_expr,
    ast.UnaryOp: Interpreter._unary,
    ast.Compare: Interpreter._compare,
    ast.BoolOp: Interpreter._bool_op,
    ast.Starred: Interpreter._starred,
    ast.ListComp: Interpreter._comprehension,
    ast.GeneratorExp: Interpreter._comprehension,
    ast.SetComp: Interpreter._comprehension,
    ast.DictComp: Interpreter._comprehension,
    ast.Yield: Interpreter._yield,
    ast.YieldFrom: Interpreter._yield_from,
    ast.Slice: Interpreter._slice,
    ast.JoinedStr: Interpreter._formatted,
    ast.Set: Interpreter._unmodelled,
    ast.Await: Interpreter._unmodelled,
}


def _plain_format(value: Any, conversion: int) -> str | None:
    """`f"{v}"` (`!s`, `!r`, `!a`) of a known constant; None for anything else."""
    if not isinstance(value, Const) or type(value.value) not in (int, float, bool, str, type(None)):
        return None
    v = value.value
    return repr(v) if conversion == ord("r") else ascii(v) if conversion == ord("a") else str(v)
