"""Statements: assignments, definitions, branches (joined), loops (unrolled when short
and static, else run to a fixpoint), `try`, `with`, `match`, imports.

Each statement type has its handler (`_HANDLERS`); a handler returns False when control
cannot fall off the end of the statement (`return`, `raise`, `break`, ...)."""

from __future__ import annotations

import ast
import os
from abc import abstractmethod
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

from ..symbols import canonical
from ..values import (
    UNKNOWN,
    Api,
    ClassV,
    Const,
    DomainValue,
    Func,
    Instance,
    Partial,
    Seq,
    SeqOf,
    SeqTail,
    element,
)
from .binding import defaults_of
from .calls import CallingInterpreter
from .envs import CONTAINERS, env_same, join_envs, read_changed, same, tracked_changed
from .mutation import in_place, item_deleted, item_written, rebind, settled, unknown_changed, write_field
from .frame import (
    INTERRUPT_EVERY,
    MAX_LOOP_ROUNDS,
    MAX_UNROLL,
    MAX_UNROLL_NESTING,
    STAR,
    Arg,
    ArgOrStar,
    Binding,
    Frame,
    LoopExits,
    forked,
)
from .syntax import catches_import_error, loop_facts, pattern_names

_DATACLASS_DECORATORS = ("dataclasses.dataclass", "flax.struct.dataclass", "jax.tree_util.register_dataclass")
_LAZY = frozenset({"zip", "enumerate", "map", "filter", "reversed", "iter"})   # iterators reading a list as it goes


class StatementInterpreter(CallingInterpreter):
    """Statements, on top of calls (expressions come in `core.Interpreter`)."""

    @abstractmethod
    def item(self, base: Any, node: ast.Subscript, frame: Frame) -> Any: ...

    @abstractmethod
    def item_of(self, base: Any, idx: Any, index: ast.expr, frame: Frame) -> Any: ...

    @abstractmethod
    def binop(self, left: Any, op: ast.operator, right: Any,
              node: ast.AST | None = None, frame: Frame | None = None) -> Any: ...

    def note(self, node: ast.AST, value: Any, frame: Frame) -> None:
        """Tell the domains of their value named (read or assigned) in the analysed
        document (for hover and inlay hints)."""
        if frame.path is None and not self.ctx.silent:
            for d in self.domains:
                d.note(self, node, value, frame)

    def lookup(self, name: str, frame: Frame) -> Any:
        f: Frame | None = frame
        while f is not None:
            if name in f.env:
                v = f.env[name]
                if v is UNKNOWN and self.ctx.overrides and f.scope is not None:
                    return self.ctx.overrides.get(Binding(f.scope, name), v)
                return v
            if f.parent is None:
                return (f.module or self.ctx.module).global_value(name, self.ctx, f)
            f = f.parent
        return UNKNOWN

    def run_body(self, stmts: list[ast.stmt], frame: Frame) -> bool:
        """Execute statements; False when control cannot fall off the end."""
        for stmt in stmts:
            if not self.exec_stmt(stmt, frame):
                return False
        return True

    def exec_stmt(self, s: ast.stmt, frame: Frame) -> bool:
        ctx = self.ctx
        steps = ctx.steps = ctx.steps + 1   # Context.tick, inlined
        if steps > ctx.limit or not steps % INTERRUPT_EVERY:
            ctx.checkpoint()
        frame.stmt = s
        handler = _HANDLERS.get(type(s))
        return handler(self, s, frame) if handler is not None else True

    # ------------------------------------------------------------------ simple statements
    def _expr(self, s: ast.Expr, frame: Frame) -> bool:
        self.eval(s.value, frame)
        return True

    def _assign(self, s: ast.Assign, frame: Frame) -> bool:
        v = self.eval(s.value, frame)
        for target in s.targets:
            self.assign(target, v, frame)
        if v is UNKNOWN and isinstance(s.targets[0], ast.Name) and len(s.targets) == 1:
            for d in self.domains:
                d.unknown_assigned(self, s.targets[0].id, s.value, frame)
        return True

    def _ann_assign(self, s: ast.AnnAssign, frame: Frame) -> bool:
        if s.value is not None:
            self.assign(s.target, self.eval(s.value, frame), frame)
        return True

    def _aug_assign(self, s: ast.AugAssign, frame: Frame) -> bool:
        target = s.target
        if isinstance(target, ast.Subscript):   # `o_ref[...] += x`: read, operate, store
            base = self.eval(target.value, frame)
            if type(base) in CONTAINERS:
                self._add_to_item(s, base, target, frame)
                return True
            new = self.binop(self.item(base, target, frame), s.op, self.eval(s.value, frame), s, frame)
            self.store(base, target, new, frame)
            return True
        old = self.eval(target, frame) if isinstance(target, (ast.Name, ast.Attribute)) else UNKNOWN
        new = self.binop(old, s.op, self.eval(s.value, frame), s, frame)
        self.assign(target, new, frame)
        if isinstance(s.op, (ast.Add, ast.Mult)):   # `xs += ...` extends the list itself
            if _a_list(old):
                rebind(self.ctx, frame, old, new)
            elif old is UNKNOWN:
                unknown_changed(self.ctx, frame)
                if type(new) in CONTAINERS:   # the list not known that grew may be held elsewhere
                    self.ctx.merged.note(UNKNOWN, {id(new): new})
        return True

    def _add_to_item(self, s: ast.AugAssign, base: Any, target: ast.Subscript, frame: Frame) -> None:
        """`xs[k] += v` on a list or dict: `k` evaluated once, and the item read from and
        written to the container as that left it, as Python does."""
        base, key = self._keyed(base, target, frame)
        new = self.binop(self.item_of(base, key, target.slice, frame), s.op, self.eval(s.value, frame), s, frame)
        if in_place(base):
            rebind(self.ctx, frame, base, item_written(base, key, new))

    def _return(self, s: ast.Return, frame: Frame) -> bool:
        frame.returns.append(self.eval(s.value, frame) if s.value is not None else Const(None))
        return False

    def _def(self, s: ast.FunctionDef, frame: Frame) -> bool:
        self.define_function(s, frame)
        return True

    def _class(self, s: ast.ClassDef, frame: Frame) -> bool:
        frame.env[s.name] = self.define_class(s, frame)
        return True

    def _with(self, s: ast.With, frame: Frame) -> bool:
        for item in s.items:
            self.eval(item.context_expr, frame)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, UNKNOWN, frame)
        return self.run_body(s.body, frame)

    def _import(self, s: ast.Import, frame: Frame) -> bool:
        for name, value in (frame.module or self.ctx.module).import_values(s, frame, self.ctx):
            frame.env[name] = value
        return True

    def _raise(self, s: ast.Raise, frame: Frame) -> bool:
        if s.exc is not None:
            self.eval(s.exc, frame)
        return False

    def _break(self, s: ast.Break, frame: Frame) -> bool:
        if frame.exits:
            frame.exits[-1].breaks.append(dict(frame.env))
        return False

    def _continue(self, s: ast.Continue, frame: Frame) -> bool:
        if frame.exits:
            frame.exits[-1].continues.append(dict(frame.env))
        return False

    def _delete(self, s: ast.Delete, frame: Frame) -> bool:
        for target in s.targets:
            if isinstance(target, ast.Name):
                frame.env[target.id] = UNKNOWN
            elif isinstance(target, ast.Subscript):   # `del xs[0]`, `del d["k"]`
                base = self.eval(target.value, frame)
                if in_place(base):
                    base, key = self._keyed(base, target, frame)
                    rebind(self.ctx, frame, base, item_deleted(base, key))
                elif base is UNKNOWN:
                    unknown_changed(self.ctx, frame)
        return True

    def _assert(self, s: ast.Assert, frame: Frame) -> bool:
        """`assert x.shape == ()` (our guard fix) narrows `x`: the author asserts it is one
        semaphore, and JAX will stop at the assertion if it is not."""
        t = s.test
        if (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq)
                and isinstance(t.left, ast.Attribute) and t.left.attr == "shape"
                and isinstance(t.comparators[0], ast.Tuple) and not t.comparators[0].elts):
            self.assign(t.left.value, UNKNOWN, frame)
            return True
        # An assertion known to fail stops the path (JAX never traces past it).
        return self.condition(t, frame) is not False

    # ------------------------------------------------------------------ control flow
    def _if(self, s: ast.If, frame: Frame) -> bool:
        cond = self.condition(s.test, frame)
        if cond is True:
            return self.run_body(s.body, frame)
        if cond is False:
            return self.run_body(s.orelse, frame)
        base = frame.env
        with forked(self.ctx, frame):
            frame.env = dict(base)
            a_falls = self.run_body(s.body, frame)
            env_a = frame.env
            frame.env = dict(base)
            b_falls = self.run_body(s.orelse, frame)
            env_b = frame.env
        live = [e for e, falls in ((env_a, a_falls), (env_b, b_falls)) if falls]
        if len(live) == 1 and not _raises(s.orelse if a_falls else s.body):
            # One branch left the function (or loop): what follows may not run.
            self.ctx.uncertain += 1
            frame.uncertain += 1
            frame.level += 1   # (`forked` left it at the depth before) its own changes on its path are certain
        frame.env = join_envs(live, self.ctx.merged) if live else env_a
        return bool(live)

    def _for(self, s: ast.For, frame: Frame) -> bool:
        it = self.eval(s.iter, frame)
        loop_var = isinstance(s.target, ast.Name) and not (
            isinstance(it, Seq) and not all(isinstance(x, Const) for x in it.items))
        if loop_var:
            assert isinstance(s.target, ast.Name)
            frame.loops.append(s.target.id)
        try:
            return self.exec_for(s, it, frame)
        finally:
            if loop_var:
                frame.loops.pop()

    def exec_for(self, s: ast.For, it: Any, frame: Frame) -> bool:
        """Run a `for` loop; False when no path leaves it (every one returned)."""
        ctx = self.ctx
        if not (isinstance(it, Seq) and 0 < len(it.items) <= MAX_UNROLL and ctx.unrolling < MAX_UNROLL_NESTING) \
                or isinstance(s.iter, ast.Name) and s.iter.id in loop_facts(s).changed:   # a list changed as it goes
            item = element(it)
            self.exec_loop(s, frame, lambda: self.assign(s.target, item, frame))
            return True
        # A Python loop over a tuple is unrolled when JAX traces it: every item goes
        # through the body (two nested levels at most; deeper loops are summarised).
        leaving: list[dict] = []   # the states in which the loop is left
        live = [it]   # Python goes over a list as it is at each step: changed in place, as it is now
        sources = self._lazy_sources(s, frame)   # ... and so do `zip(t, xs)` and the like
        ctx.unrolling += 1
        ctx.live += [live, *sources]   # (a tuple's cell never changes)
        try:
            for k in range(MAX_UNROLL + 1):
                items = live[0].items if isinstance(live[0], Seq) else None
                moved = any(cell[0] is not cell[1] for cell in sources)
                if items is not None and k >= len(items) and not moved:   # (a list shortened as it goes too)
                    break
                if items is None or k == MAX_UNROLL or moved:   # changed past what unrolling follows
                    rest = UNKNOWN if moved else element(live[0])
                    self.exec_loop(s, frame, lambda: self.assign(s.target, rest, frame))
                    return self._leave([frame.env, *leaving], frame)
                self.assign(s.target, items[k], frame)   # each pass changes the state the last one left
                going_on, breaks = self.loop_body(s.body, frame)
                leaving += breaks
                if not going_on:   # every path broke out or returned: no later item runs
                    return self._leave(leaving, frame)
                frame.env = join_envs(going_on, self.ctx.merged)
        finally:
            ctx.unrolling -= 1
            del ctx.live[-1 - len(sources):]
        if not s.orelse or self.run_body(s.orelse, frame):   # `else`: the items ran out
            leaving.append(frame.env)
        return self._leave(leaving, frame)

    def _lazy_sources(self, s: ast.For, frame: Frame) -> list[list]:
        """Cells ([as it is now, as it was]) of the lists named in a `zip` / `enumerate` /
        `map` / `filter` / `reversed` / `iter` a `for` loop goes over: Python reads them at
        each step, so once one changes, what the loop goes over is no longer known."""
        call = s.iter
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in _LAZY):
            return []
        cells = []
        for arg in call.args:
            value = self.lookup(arg.id, frame) if isinstance(arg, ast.Name) else None
            if _a_list(value):
                cells.append([value, value])
        return cells

    def loop_body(self, body: list[ast.stmt], frame: Frame) -> tuple[list[dict], list[dict]]:
        """Run a loop's body once: the states that go on to the next round (its end, its
        `continue`s) and those that leave the loop (its `break`s)."""
        exits = LoopExits()
        if frame.exits is None:
            frame.exits = []
        frame.exits.append(exits)
        try:
            falls = self.run_body(body, frame)
        finally:
            frame.exits.pop()
        return ([frame.env] if falls else []) + exits.continues, exits.breaks

    def _leave(self, leaving: list[dict], frame: Frame) -> bool:
        """After a loop left in these states (none: every path returned)."""
        if leaving:
            frame.env = join_envs(leaving, self.ctx.merged)
        return bool(leaving)

    def exec_loop(self, s: ast.For | ast.While, frame: Frame, bind_target: Callable[[], None] | None) -> None:
        """A loop whose trip count is unknown: run the body until the joined state is
        stable (a few rounds at most); what still changes becomes UNKNOWN."""
        state = frame.env
        breaks: list[dict] = []
        for _ in range(MAX_LOOP_ROUNDS):
            frame.env = dict(state)
            if bind_target:
                bind_target()
            self.ctx.summarising += 1
            frame.level = self.ctx.traced_uncertainty   # a round changes a state of its own
            try:
                going_on, broke = self.loop_body(s.body, frame)
            finally:
                self.ctx.summarising -= 1
                frame.level = self.ctx.traced_uncertainty
            breaks += broke
            new = join_envs([state, *going_on], self.ctx.merged)
            if env_same(state, new) or not (tracked_changed(state, new) or read_changed(state, new, loop_facts(s).reads)):
                # What changed is read nowhere in the loop: the join already says all there is.
                state = new
                break
            state = new
        else:
            state = {k: (v if same(v, frame.env.get(k, UNKNOWN)) else UNKNOWN) for k, v in state.items()}
        frame.env = state
        if s.orelse:
            with forked(self.ctx, frame) if breaks else nullcontext():   # runs when no `break` does
                self.run_body(s.orelse, frame)
        self._leave([frame.env, *breaks], frame)

    def _while(self, s: ast.While, frame: Frame) -> bool:
        # A condition known at trace time is how JAX sees the loop: follow it exactly.
        leaving: list[dict] = []
        for _ in range(MAX_UNROLL):
            cond = self.condition(s.test, frame)
            if cond is False:
                if not s.orelse or self.run_body(s.orelse, frame):
                    leaving.append(frame.env)
                return self._leave(leaving, frame)
            if cond is not True:
                break
            going_on, breaks = self.loop_body(s.body, frame)
            leaving += breaks
            if not going_on:
                return self._leave(leaving, frame)
            frame.env = join_envs(going_on, self.ctx.merged)
        self.exec_loop(s, frame, None)
        return self._leave([frame.env, *leaving], frame)

    def _try(self, s: Any, frame: Frame) -> bool:
        base = frame.env
        frame.env = dict(base)
        body_falls = self.run_body(s.body, frame) and self.run_body(s.orelse, frame)
        envs = [frame.env] if body_falls else []
        for h in s.handlers:
            if body_falls and catches_import_error(h):
                continue  # `except ImportError:` fallbacks: kernels only run when the import worked
            frame.env = join_envs([base, frame.env], self.ctx.merged) if envs else dict(base)
            if h.name:
                frame.env[h.name] = UNKNOWN
            with forked(self.ctx, frame):
                if self.run_body(h.body, frame):
                    envs.append(frame.env)
        frame.env = join_envs(envs, self.ctx.merged) if envs else dict(base)
        if s.finalbody:
            return self.run_body(s.finalbody, frame) and bool(envs)
        return bool(envs)

    def _match(self, s: Any, frame: Frame) -> bool:
        self.eval(s.subject, frame)
        envs = []
        base = frame.env
        for case in s.cases:
            frame.env = dict(base)
            for name in pattern_names(case.pattern):
                frame.env[name] = UNKNOWN
            with forked(self.ctx, frame):
                falls = self.run_body(case.body, frame)
            if falls:
                envs.append(frame.env)
        envs.append(base)
        frame.env = join_envs(envs, self.ctx.merged)
        return True

    # ------------------------------------------------------------------ assignment
    def assign(self, target: ast.AST, value: Any, frame: Frame) -> None:
        t = type(target)
        if t is ast.Name:
            assert isinstance(target, ast.Name)
            self._assign_name(target.id, value, frame)
            if isinstance(value, DomainValue) and value.noted:
                self.note(target, value, frame)
        elif t in (ast.Tuple, ast.List):
            assert isinstance(target, (ast.Tuple, ast.List))
            self._assign_unpack(target.elts, value, frame)
        elif t is ast.Attribute:
            assert isinstance(target, ast.Attribute)
            obj = self.eval(target.value, frame)
            if isinstance(obj, Instance):
                write_field(self.ctx, obj, target.attr, value)
        elif t is ast.Starred:
            assert isinstance(target, ast.Starred)
            self.assign(target.value, value, frame)
        elif t is ast.Subscript:
            assert isinstance(target, ast.Subscript)
            self.store(self.eval(target.value, frame), target, value, frame)

    def store(self, base: Any, target: ast.Subscript, value: Any, frame: Frame) -> None:
        """`base[...] = value`: a write into a ref the domains may check, or into a list
        or dict, which every holder of it sees."""
        for d in self.domains:
            d.store(self, base, target, value, frame)
        if in_place(base):
            base, key = self._keyed(base, target, frame)
            rebind(self.ctx, frame, base, item_written(base, key, value))
        elif base is UNKNOWN:
            unknown_changed(self.ctx, frame)

    def _keyed(self, base: Any, target: ast.Subscript, frame: Frame) -> tuple[Any, Any]:
        """The item a write or `del` on the list or dict `base` names (UNKNOWN: a slice),
        and `base` as evaluating it left it (Python changes the container itself)."""
        if isinstance(target.slice, ast.Slice):
            return base, UNKNOWN
        cell = [base]
        self.ctx.live.append(cell)
        try:
            key = self.eval(target.slice, frame)
        finally:
            self.ctx.live.pop()
        return cell[0], key

    def _assign_name(self, name: str, value: Any, frame: Frame) -> None:
        if name in frame.nonlocals:
            f = frame.parent
            while f is not None and name not in f.env:
                f = f.parent
            if f is not None:
                f.env[name] = settled(self.ctx, f, f.env[name], value)
                self.ctx.effects += 1   # a change outside the frame: the call is not memoised
                return
        frame.env[name] = value   # (a `:=` where it may not run: `CallingInterpreter.ended`)

    def _assign_unpack(self, elts: list[ast.expr], value: Any, frame: Frame) -> None:
        star = next((i for i, e in enumerate(elts) if isinstance(e, ast.Starred)), None)
        items = value.items if isinstance(value, Seq) else None
        if isinstance(value, SeqTail) and star is None:
            # `a, b, sems, one = refs` with only the tail of `refs` known
            n = len(value.items)
            for i, e in enumerate(elts):
                j = len(elts) - i
                self.assign(e, value.items[n - j] if j <= n else UNKNOWN, frame)
            return
        if star is None:
            fits = items is not None and len(items) == len(elts)
            for i, e in enumerate(elts):
                self.assign(e, items[i] if fits and items is not None else UNKNOWN, frame)
            return
        n_after = len(elts) - star - 1
        ok = items is not None and len(items) >= len(elts) - 1
        for i, e in enumerate(elts):
            if not ok or items is None:
                v: Any = UNKNOWN
            elif i < star:
                v = items[i]
            elif i == star:
                v = Seq(items[star:len(items) - n_after], True)
            else:
                v = items[len(items) - (len(elts) - i)]
            self.assign(e.value if i == star and isinstance(e, ast.Starred) else e, v, frame)

    # ------------------------------------------------------------------ definitions
    def define_function(self, s: ast.FunctionDef | ast.AsyncFunctionDef, frame: Frame) -> Func:
        func = Func(s, frame, frame.block, s.name, frame.path, defaults=defaults_of(self, s, frame))
        value: Any = func
        for dec in reversed(s.decorator_list):
            d = self.eval(dec, frame)
            value = self.call(d, [Arg(value, None)], {}, dec, frame, helper=False)
        frame.env[s.name] = value
        frame.created.append(func)
        return func

    def define_class(self, s: ast.ClassDef, frame: Frame) -> ClassV:
        cls = ClassV(s, frame, frame.block, path=frame.path)
        base_values = [self.eval(x, frame) for x in s.bases]
        cls.bases = tuple(b for b in base_values if isinstance(b, ClassV))
        cls.frozen = any(isinstance(b, Api) and b.qname == "typing.NamedTuple" for b in base_values)
        cls.is_dataclass = cls.frozen or any(b.is_dataclass for b in cls.bases)
        # What JAX gives every instance of a library class (`pltpu.BufferedRef`'s semaphores),
        # in its subclasses and in the class itself (JAX's own source, when analysed).
        for name in [self._qualified(s.name, frame), *(b.qname for b in base_values if isinstance(b, Api))]:
            if name is not None:
                for d in self.domains:
                    cls.attrs.update(d.class_attrs(name))
        for dec in s.decorator_list:
            name = _callable_name(self.eval(dec.func if isinstance(dec, ast.Call) else dec, frame))
            if name in _DATACLASS_DECORATORS:
                cls.is_dataclass = True
                cls.frozen |= name == "flax.struct.dataclass" or _frozen_keyword(dec)
        self._class_body(cls, s, frame)
        frame.created.append(cls)
        return cls

    def _qualified(self, name: str, frame: Frame) -> str | None:
        """The canonical name of a top-level definition of this module, when the module's
        own name is known."""
        state = frame.module or self.ctx.module
        if frame.parent is not None or state is None or not state.path:
            return None
        stem = os.path.splitext(os.path.basename(state.path))[0]
        return canonical(f"{state.package}.{stem}.{name}" if state.package else f"{stem}.{name}")

    def _class_body(self, cls: ClassV, s: ast.ClassDef, frame: Frame) -> None:
        body_frame = Frame({}, frame, frame.block, depth=frame.depth, path=frame.path)
        body_frame.level = self.ctx.traced_uncertainty
        fields = []
        for stmt in s.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                method = Func(stmt, frame, frame.block, stmt.name, frame.path, owner=cls)
                decos = [d.id if isinstance(d, ast.Name) else getattr(d, "attr", None) for d in stmt.decorator_list]
                method.is_property = "property" in decos or "cached_property" in decos
                if "setter" in decos or "deleter" in decos:
                    continue
                cls.attrs[stmt.name] = method
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                fields.append(stmt.target.id)
                if stmt.value is not None:
                    cls.attrs[stmt.target.id] = self.eval(stmt.value, body_frame)
            elif isinstance(stmt, ast.Assign):
                v = self.eval(stmt.value, body_frame)
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        cls.attrs[target.id] = v
        cls.fields = tuple(fields)

    def instantiate(self, cls: ClassV, args: list[ArgOrStar], kwargs: dict[str, Arg], node: ast.AST | None,
                    frame: Frame) -> Any:
        inst = Instance(cls, level=self.ctx.traced_uncertainty)
        init = cls.lookup("__init__")
        if isinstance(init, Func):
            self.call_function(init, [Arg(inst, None), *args], kwargs, node, frame, helper=True)
        elif cls.is_dataclass:
            for name, a in zip(cls.fields, args):
                inst.fields[name] = a.value if isinstance(a, Arg) else UNKNOWN
            for name, kw in kwargs.items():
                inst.fields[name] = kw.value
            if STAR in args:
                inst.fields.clear()
        return inst


def _raises(stmts: list[ast.stmt]) -> bool:
    """Whether a branch ends by raising (JAX's trace stops there: not a path a kernel runs)."""
    return bool(stmts) and isinstance(stmts[-1], ast.Raise)


def _frozen_keyword(dec: ast.expr) -> bool:
    """`@dataclass(frozen=True)`."""
    return isinstance(dec, ast.Call) and any(
        k.arg == "frozen" and isinstance(k.value, ast.Constant) and k.value.value is True for k in dec.keywords)


def _callable_name(v: Any) -> str | None:
    if isinstance(v, Api):
        return v.qname
    if isinstance(v, Partial) and isinstance(v.func, Api):
        return v.func.qname
    return None


_Handler = Callable[[StatementInterpreter, Any, Frame], bool]
_HANDLERS: dict[type, _Handler] = {
    ast.Expr: StatementInterpreter._expr,
    ast.Assign: StatementInterpreter._assign,
    ast.AnnAssign: StatementInterpreter._ann_assign,
    ast.AugAssign: StatementInterpreter._aug_assign,
    ast.Return: StatementInterpreter._return,
    ast.FunctionDef: StatementInterpreter._def,
    ast.AsyncFunctionDef: StatementInterpreter._def,
    ast.ClassDef: StatementInterpreter._class,
    ast.If: StatementInterpreter._if,
    ast.For: StatementInterpreter._for,
    ast.AsyncFor: StatementInterpreter._for,
    ast.While: StatementInterpreter._while,
    ast.With: StatementInterpreter._with,
    ast.AsyncWith: StatementInterpreter._with,
    ast.Try: StatementInterpreter._try,
    getattr(ast, "TryStar", ast.Try): StatementInterpreter._try,   # Python 3.11+
    ast.Assert: StatementInterpreter._assert,
    ast.Import: StatementInterpreter._import,
    ast.ImportFrom: StatementInterpreter._import,
    ast.Raise: StatementInterpreter._raise,
    ast.Break: StatementInterpreter._break,
    ast.Continue: StatementInterpreter._continue,
    ast.Delete: StatementInterpreter._delete,
    ast.Match: StatementInterpreter._match,
}


def _a_list(value: Any) -> bool:
    """A list (of known items or not), not a tuple or a dict."""
    return type(value) is SeqOf or type(value) is Seq and value.is_list
