"""Abstract interpretation of kernels, helpers, closures and classes.

A small interpreter over Python's `ast` that computes `values.py` values instead of real
ones.  It follows semaphores from where they are declared (scratch_shapes, run_scoped,
...) into the kernel the Pallas API invokes, through closures, helper calls, tuples,
`.at[...]` views, descriptor objects and classes, and hands every semaphore argument of a
checked call to `checks.py`.

Precision policy: whatever the interpreter cannot model becomes UNKNOWN, and checks are
silent on UNKNOWN.  Branches are joined (`values.join`); loop bodies run once; calls are
followed to a bounded depth; a step budget bounds the work per entry.
"""

from __future__ import annotations

import ast
import weakref
from dataclasses import dataclass

from . import api, checks
from .symbols import LIBRARY_ROOTS, canonical, child
from .values import (
    SCALAR,
    SLICE,
    UNKNOWN,
    Api,
    Bound,
    Choice,
    ClassV,
    Const,
    Descriptor,
    Func,
    Instance,
    Loc,
    Mapping,
    ModuleV,
    Partial,
    Sem,
    SemType,
    Seq,
    SeqOf,
    SeqTail,
    Site,
    SliceV,
    Special,
    allocate,
    element,
    is_number,
    join,
    join_all,
    map_sems,
    semaphore_member,
)

MAX_DEPTH = 32
MAX_UNROLL = 16
MAX_UNROLL_NESTING = 2
MAX_LOOP_ROUNDS = 3
MAX_RANGE_UNROLL = 8
STEP_BUDGET = 150_000
# Steps an entry may spend in other modules' functions (helpers are small; a call into a
# large library, such as a test calling the analysis itself, would use the whole budget).
FOREIGN_STEP_BUDGET = 20_000


_LIST_METHODS = frozenset({"append", "extend", "insert"})


class Budget(Exception):
    """The entry used up its step budget: findings so far stand, the rest is unknown."""


class ForeignBudget(Exception):
    """Other modules' functions used up their steps: the pending call's value is unknown."""


class _Star:
    """Marks an unknown number of unknown positional arguments in an argument list."""

    def __repr__(self):
        return "STAR"


STAR = _Star()


@dataclass
class Arg:
    value: object
    node: ast.AST | None = None


# The keyword arguments of a caller we cannot see: any (so no default is assumed).
_ANY_KWARGS = {"**": Arg(UNKNOWN)}


class Frame:
    """One activation: a function call, or a module block being executed."""

    __slots__ = (
        "block",
        "created",
        "depth",
        "env",
        "func",
        "loops",
        "module",
        "nonlocals",
        "parent",
        "path",
        "returns",
        "scope",
        "stmt",
    )

    def __init__(self, env, parent, block, func=None, depth=0, path=None, module=None):
        self.env = env
        self.parent = parent        # enclosing (closure) frame; None for module level
        self.block = block
        self.func = func
        self.returns = []
        self.stmt = None
        self.depth = depth
        self.created = []           # Funcs defined here (run with unknown args if never called)
        self.loops = []             # names of the enclosing loop variables (index suggestions)
        self.nonlocals = ()         # names this frame assigns in an enclosing frame
        self.scope = None           # identity of the Python scope (for index hints)
        self.path = path
        # The module whose globals a module-level frame sees (None: inherit / the entry's).
        self.module = module if module is not None else (parent.module if parent is not None else None)

    def loc(self, node):
        return Loc(self.block, node, self.path)


class Context:
    """State for one analysis entry: where findings go, global lookups, budget."""

    def __init__(self, module, silent=False):
        self.module = module        # engine.ModuleState: global lookups (records deps)
        self.silent = silent        # evaluating a global's value: no findings, no kernels
        self.findings = []
        self.steps = 0
        self.limit = STEP_BUDGET    # lower while in another module's function
        self.foreign_steps = 0      # steps spent in other modules' functions
        self.in_foreign = False
        self.active = []            # (function node, argument signature) on the call stack
        self.memo = {}              # top-level function calls already analysed
        self.unrolling = 0          # nesting of unrolled loops
        self.pending = []           # pallas_call-like callables never applied yet
        self.deps = {}              # global name -> key of the block it resolved to
        self.indexed_decls = set()  # id() of declaration nodes whose arrays are indexed somewhere
        self.views = []             # (block, Name/Attribute node, Sem): what hover shows
        self.indexed_sites = set()  # id() of Sites whose arrays a helper indexes itself
        self.kernel_nodes = set()   # defs invoked as kernels (by pallas_call & co.)
        self.sites = {}             # (arg, call, callee) -> Site

    def tick(self):
        self.steps += 1
        if self.steps > self.limit:
            raise Budget() if self.steps > STEP_BUDGET else ForeignBudget()


class Interpreter:
    def __init__(self, ctx: Context):
        self.ctx = ctx
        self._frame_hint = None  # the frame of the attribute being evaluated (properties run there)

    # ------------------------------------------------------------------ names
    def lookup(self, name, frame):
        f = frame
        while f is not None:
            if name in f.env:
                return f.env[name]
            if f.parent is None:
                return (f.module or self.ctx.module).global_value(name, self.ctx, f)
            f = f.parent
        return UNKNOWN

    # ------------------------------------------------------------------ statements
    def run_body(self, stmts, frame) -> bool:
        """Execute statements; False when control cannot fall off the end."""
        for stmt in stmts:
            if not self.exec_stmt(stmt, frame):
                return False
        return True

    def exec_stmt(self, s, frame) -> bool:
        self.ctx.tick()
        frame.stmt = s
        t = type(s)
        if t is ast.Expr:
            self.eval(s.value, frame)
        elif t is ast.Assign:
            v = self.eval(s.value, frame)
            for target in s.targets:
                self.assign(target, v, frame)
        elif t is ast.AnnAssign:
            if s.value is not None:
                self.assign(s.target, self.eval(s.value, frame), frame)
        elif t is ast.AugAssign:
            old = self.eval(s.target, frame) if isinstance(s.target, (ast.Name, ast.Attribute)) else UNKNOWN
            v = self.binop(old, s.op, self.eval(s.value, frame))
            self.assign(s.target, v, frame)
        elif t is ast.Return:
            frame.returns.append(self.eval(s.value, frame) if s.value is not None else Const(None))
            return False
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef):
            self.define_function(s, frame)
        elif t is ast.ClassDef:
            frame.env[s.name] = self.define_class(s, frame)
        elif t is ast.If:
            return self.exec_if(s, frame)
        elif t in (ast.For, ast.AsyncFor):
            it = self.eval(s.iter, frame)
            loop_var = isinstance(s.target, ast.Name) and not (
                isinstance(it, Seq) and not all(isinstance(x, Const) for x in it.items))
            if loop_var:
                frame.loops.append(s.target.id)
            try:
                self.exec_for(s, it, frame)
            finally:
                if loop_var:
                    frame.loops.pop()
        elif t is ast.While:
            self.exec_while(s, frame)
        elif t in (ast.With, ast.AsyncWith):
            for item in s.items:
                self.eval(item.context_expr, frame)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, UNKNOWN, frame)
            return self.run_body(s.body, frame)
        elif t is ast.Try or t.__name__ == "TryStar":
            return self.exec_try(s, frame)
        elif t is ast.Assert:
            self.exec_assert(s, frame)
        elif t in (ast.Import, ast.ImportFrom):
            for name, value in (frame.module or self.ctx.module).import_values(s, frame, self.ctx):
                frame.env[name] = value
        elif t in (ast.Raise,):
            if s.exc is not None:
                self.eval(s.exc, frame)
            return False
        elif t in (ast.Break, ast.Continue):
            return False
        elif t is ast.Delete:
            for target in s.targets:
                if isinstance(target, ast.Name):
                    frame.env[target.id] = UNKNOWN
        elif t.__name__ == "Match":
            self.eval(s.subject, frame)
            envs = []
            base = frame.env
            for case in s.cases:
                frame.env = dict(base)
                for name in _pattern_names(case.pattern):
                    frame.env[name] = UNKNOWN
                if self.run_body(case.body, frame):
                    envs.append(frame.env)
            envs.append(base)
            frame.env = _join_envs(envs)
        # Pass, Global, Nonlocal, ...: nothing to do
        return True

    def exec_for(self, s, it, frame):
        ctx = self.ctx
        if isinstance(it, Seq) and 0 < len(it.items) <= MAX_UNROLL and ctx.unrolling < MAX_UNROLL_NESTING:
            # A Python loop over a tuple is unrolled when JAX traces it: every item goes
            # through the body (two nested levels at most; deeper loops are summarised).
            envs = []
            ctx.unrolling += 1
            try:
                for item in it.items:
                    self.assign(s.target, item, frame)
                    self.run_body(s.body, frame)
                    envs.append(frame.env)
                    frame.env = dict(frame.env)
            finally:
                ctx.unrolling -= 1
            frame.env = _join_envs(envs)
            if s.orelse:
                self.run_body(s.orelse, frame)
        else:
            item = element(it)
            self.exec_loop(s, frame, lambda: self.assign(s.target, item, frame))

    def exec_if(self, s, frame) -> bool:
        cond = self.truth(self.eval(s.test, frame))
        if cond is True:
            return self.run_body(s.body, frame)
        if cond is False:
            return self.run_body(s.orelse, frame)
        base = frame.env
        frame.env = dict(base)
        a_falls = self.run_body(s.body, frame)
        env_a = frame.env
        frame.env = dict(base)
        b_falls = self.run_body(s.orelse, frame)
        env_b = frame.env
        live = [e for e, falls in ((env_a, a_falls), (env_b, b_falls)) if falls]
        frame.env = _join_envs(live) if live else env_a
        return bool(live)

    def exec_loop(self, s, frame, bind_target):
        """A loop whose trip count is unknown: run the body until the joined state is
        stable (a few rounds at most); what still changes becomes UNKNOWN."""
        state = frame.env
        for _ in range(MAX_LOOP_ROUNDS):
            frame.env = dict(state)
            if bind_target:
                bind_target()
            self.run_body(s.body, frame)
            new = _join_envs([state, frame.env])
            if _env_same(state, new) or not _semaphores_changed(state, new):
                # Only numbers / unknowns changed: the join already says all that matters.
                state = new
                break
            state = new
        else:
            state = {k: (v if _same(v, frame.env.get(k, UNKNOWN)) else UNKNOWN) for k, v in state.items()}
        frame.env = state
        if s.orelse:
            self.run_body(s.orelse, frame)

    def exec_while(self, s, frame):
        # A condition known at trace time is how JAX sees the loop: follow it exactly.
        for _ in range(MAX_UNROLL):
            cond = self.truth(self.eval(s.test, frame))
            if cond is False:
                if s.orelse:
                    self.run_body(s.orelse, frame)
                return
            if cond is not True:
                break
            if not self.run_body(s.body, frame):
                return
        self.exec_loop(s, frame, None)

    def exec_try(self, s, frame) -> bool:
        base = frame.env
        frame.env = dict(base)
        body_falls = self.run_body(s.body, frame) and self.run_body(s.orelse, frame)
        envs = [frame.env] if body_falls else []
        for h in s.handlers:
            if body_falls and _catches_import_error(h):
                continue  # `except ImportError:` fallbacks: kernels only run when the import worked
            frame.env = _join_envs([base, frame.env]) if envs else dict(base)
            if h.name:
                frame.env[h.name] = UNKNOWN
            if self.run_body(h.body, frame):
                envs.append(frame.env)
        frame.env = _join_envs(envs) if envs else dict(base)
        if s.finalbody:
            return self.run_body(s.finalbody, frame) and bool(envs)
        return bool(envs)

    def exec_assert(self, s, frame):
        """`assert x.shape == ()` (our guard fix) narrows `x`: the author asserts it is one
        semaphore, and JAX will stop at the assertion if it is not."""
        t = s.test
        if (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq)
                and isinstance(t.left, ast.Attribute) and t.left.attr == "shape"
                and isinstance(t.comparators[0], ast.Tuple) and not t.comparators[0].elts):
            self.assign(t.left.value, UNKNOWN, frame)
            return
        self.eval(t, frame)

    def assign(self, target, value, frame):
        t = type(target)
        if t is ast.Name:
            if target.id in frame.nonlocals:
                f = frame.parent
                while f is not None and target.id not in f.env:
                    f = f.parent
                if f is not None:
                    f.env[target.id] = value
                    return
            frame.env[target.id] = value
        elif t in (ast.Tuple, ast.List):
            elts = target.elts
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
                for i, e in enumerate(elts):
                    self.assign(e, items[i] if items is not None and len(items) == len(elts) else UNKNOWN, frame)
            else:
                n_after = len(elts) - star - 1
                ok = items is not None and len(items) >= len(elts) - 1
                for i, e in enumerate(elts):
                    if i < star:
                        v = items[i] if ok else UNKNOWN
                    elif i == star:
                        v = Seq(items[star:len(items) - n_after], True) if ok else UNKNOWN
                        e = e.value
                    else:
                        v = items[len(items) - (len(elts) - i)] if ok else UNKNOWN
                    self.assign(e, v, frame)
        elif t is ast.Attribute:
            obj = self.eval(target.value, frame)
            if isinstance(obj, Instance):
                obj.fields[target.attr] = value
        elif t is ast.Starred:
            self.assign(target.value, value, frame)
        # subscript targets: writes into refs/arrays, nothing to track

    # ------------------------------------------------------------------ definitions
    def define_function(self, s, frame):
        func = Func(s, frame, frame.block, s.name, frame.path)
        value = func
        for dec in reversed(s.decorator_list):
            d = self.eval(dec, frame)
            value = self.call(d, [Arg(value, None)], {}, dec, frame, helper=False)
        frame.env[s.name] = value
        frame.created.append(func)
        return func

    def define_class(self, s, frame):
        cls = ClassV(s, frame, frame.block, path=frame.path)
        base_values = [self.eval(x, frame) for x in s.bases]
        cls.bases = tuple(b for b in base_values if isinstance(b, ClassV))
        if any(isinstance(b, Api) and b.qname == "typing.NamedTuple" for b in base_values):
            cls.is_dataclass = True
        cls.is_dataclass = cls.is_dataclass or any(b.is_dataclass for b in cls.bases)
        body_frame = Frame({}, frame, frame.block, depth=frame.depth, path=frame.path)
        for dec in s.decorator_list:
            d = self.eval(dec.func if isinstance(dec, ast.Call) else dec, frame)
            q = _callable_qname(d)
            if q in ("dataclasses.dataclass", "flax.struct.dataclass", "jax.tree_util.register_dataclass"):
                cls.is_dataclass = True
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
        frame.created.append(cls)
        return cls

    def instantiate(self, cls, args, kwargs, node, frame):
        inst = Instance(cls)
        init = cls.lookup("__init__")
        if isinstance(init, Func):
            self.call_function(init, [Arg(inst, None)] + args, kwargs, node, frame, helper=True)
        elif cls.is_dataclass:
            for name, a in zip(cls.fields, args):
                inst.fields[name] = a.value if a is not STAR else UNKNOWN
            for name, a in kwargs.items():
                inst.fields[name] = a.value
            if any(a is STAR for a in args):
                inst.fields.clear()
        return inst

    # ------------------------------------------------------------------ expressions
    def eval(self, node, frame):
        self.ctx.tick()
        t = type(node)
        if t is ast.Name:
            v = self.lookup(node.id, frame)
            if type(v) is Sem and frame.path is None and not self.ctx.silent:
                self.ctx.views.append((frame.block, node, v, frame.scope))
            return v
        if t is ast.Attribute:
            base = self.eval(node.value, frame)
            self._frame_hint = frame
            v = self.attribute(base, node.attr)
            if type(v) is Sem and frame.path is None and not self.ctx.silent:
                self.ctx.views.append((frame.block, node, v, frame.scope))
            return v
        if t is ast.Call:
            return self.eval_call(node, frame)
        if t is ast.Subscript:
            return self.subscript(node, frame)
        if t is ast.Constant:
            return Const(node.value)
        if t in (ast.Tuple, ast.List):
            items = self.eval_items(node.elts, frame)
            if items is not None:
                return Seq(tuple(items), t is ast.List)
            # `[*unknown, a, b]`: keep the known tail
            last = max(i for i, e in enumerate(node.elts) if isinstance(e, ast.Starred))
            tail = self.eval_items(node.elts[last + 1:], frame)
            return SeqTail(tuple(tail)) if tail else UNKNOWN
        if t is ast.BinOp:
            return self.binop(self.eval(node.left, frame), node.op, self.eval(node.right, frame))
        if t is ast.IfExp:
            cond = self.truth(self.eval(node.test, frame))
            if cond is True:
                return self.eval(node.body, frame)
            if cond is False:
                return self.eval(node.orelse, frame)
            return join(self.eval(node.body, frame), self.eval(node.orelse, frame))
        if t is ast.Dict:
            items = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    return UNKNOWN
                key = self.eval(k, frame)
                if not isinstance(key, Const):
                    return UNKNOWN
                items[key.value] = self.eval(v, frame)
            return Mapping(items)
        if t is ast.Lambda:
            func = Func(node, frame, frame.block, "<lambda>", frame.path)
            frame.created.append(func)
            return func
        if t is ast.NamedExpr:
            v = self.eval(node.value, frame)
            self.assign(node.target, v, frame)
            return v
        if t is ast.UnaryOp:
            v = self.eval(node.operand, frame)
            if v is SCALAR and not isinstance(node.op, ast.Not):
                return SCALAR
            if isinstance(node.op, ast.Not):
                truth = self.truth(v)
                return Const(not truth) if truth is not None else UNKNOWN
            if isinstance(v, Const) and isinstance(v.value, (int, float, bool)):
                try:
                    if isinstance(node.op, ast.USub):
                        return Const(-v.value)
                    if isinstance(node.op, ast.UAdd):
                        return v
                except (TypeError, ValueError, OverflowError):
                    return UNKNOWN
            return UNKNOWN
        if t is ast.Compare:
            left = self.eval(node.left, frame)
            result = True
            for op, c in zip(node.ops, node.comparators):
                right = self.eval(c, frame)
                r = _compare(op, left, right) if result is not None else None
                if r is False:
                    result = False
                elif r is None and result is True:
                    result = None
                left = right
            return Const(result) if result is not None else UNKNOWN
        if t is ast.BoolOp:
            truths = [self.truth(self.eval(v, frame)) for v in node.values]
            if isinstance(node.op, ast.And):
                if False in truths:
                    return Const(False)
                return Const(True) if all(x is True for x in truths) else UNKNOWN
            if True in truths:
                return Const(True)
            return Const(False) if all(x is False for x in truths) else UNKNOWN
        if t is ast.Starred:
            return self.eval(node.value, frame)
        if t in (ast.ListComp, ast.GeneratorExp, ast.SetComp):
            return self.comprehension(node, node.elt, frame)
        if t is ast.DictComp:
            self.comprehension(node, node.value, frame)
            return UNKNOWN
        if t is ast.Slice:
            return SLICE
        # comprehensions, f-strings, await, yield, ...: values we do not model
        return UNKNOWN

    def comprehension(self, node, elt, frame):
        """`[f(x) for x in xs if c]`: the element is evaluated once, for an abstract item."""
        inner = Frame({}, frame, frame.block, frame.func, frame.depth, frame.path)
        inner.stmt = frame.stmt
        inner.scope = node  # a comprehension is a scope of its own
        for gen in node.generators:
            self.assign(gen.target, element(self.eval(gen.iter, inner)), inner)
            if isinstance(gen.target, ast.Name):
                inner.loops.append(gen.target.id)
            for cond in gen.ifs:
                self.eval(cond, inner)
        value = self.eval(elt, inner)
        frame.created.extend(inner.created)
        return SeqOf(value)

    def eval_items(self, elts, frame):
        """Evaluate a tuple/list display; None when a starred part has unknown length."""
        items = []
        for e in elts:
            if isinstance(e, ast.Starred):
                v = self.eval(e.value, frame)
                if not isinstance(v, Seq):
                    return None
                items.extend(v.items)
            else:
                items.append(self.eval(e, frame))
        return items

    def truth(self, v):
        if isinstance(v, Seq):
            return bool(v.items)
        if isinstance(v, Const):
            try:
                return bool(v.value)
            except (TypeError, ValueError):
                return None
        return None

    def binop(self, a, op, b):
        if isinstance(op, ast.Add):
            if isinstance(a, Seq) and isinstance(b, Seq):
                return Seq(a.items + b.items, a.is_list)
            if isinstance(a, SeqOf) and isinstance(b, SeqOf):
                return SeqOf(join(a.item, b.item))
            if isinstance(a, (Seq, SeqOf)) and isinstance(b, (Seq, SeqOf)):
                items = [element(a), element(b)]
                return SeqOf(join(*items)) if all(x is not UNKNOWN for x in items) else UNKNOWN
            if isinstance(b, Seq) and b.items and (a is UNKNOWN or isinstance(a, (SeqTail, SeqOf))):
                return SeqTail((a.items if isinstance(a, SeqTail) else ()) + b.items)
            if isinstance(a, Seq) and isinstance(b, SeqTail):
                return b
        if isinstance(op, ast.Mult):
            if isinstance(a, Seq) and isinstance(b, Const) and type(b.value) is int and 0 <= b.value <= 4096:
                return Seq(a.items * b.value, a.is_list)
            if isinstance(b, Seq) and isinstance(a, Const) and type(a.value) is int and 0 <= a.value <= 4096:
                return Seq(b.items * a.value, b.is_list)
        if isinstance(op, ast.MatMult):
            # `SemaphoreType.DMA @ mesh` is one semaphore; `DMA((2, n)) @ mesh` keeps its
            # shape (MemoryRef.__matmul__ only replaces the memory space).
            if isinstance(a, Api) and semaphore_member(a.qname):
                return SemType(semaphore_member(a.qname), (), None)
            if isinstance(a, SemType):
                return a
            return UNKNOWN
        if isinstance(a, (Seq, SeqOf, SeqTail, Mapping)) or isinstance(b, (Seq, SeqOf, SeqTail, Mapping)):
            return UNKNOWN
        numeric = (a is SCALAR or is_number(a), b is SCALAR or is_number(b))
        if not (isinstance(a, Const) and isinstance(b, Const)):
            # The result is a number (never a tuple) when an operand is one, except for
            # `+` / `*` with an unknown operand (tuple concatenation / repetition).
            if all(numeric) or (any(numeric) and not isinstance(op, (ast.Add, ast.Mult))):
                return SCALAR
            if not isinstance(op, (ast.Add, ast.Mult, ast.MatMult)):
                return SCALAR
            return UNKNOWN
        if isinstance(a, Const) and isinstance(b, Const):
            x, y = a.value, b.value
            if type(x) in (int, bool) and type(y) in (int, bool):
                try:
                    if isinstance(op, ast.Add):
                        return Const(x + y)
                    if isinstance(op, ast.Sub):
                        return Const(x - y)
                    if isinstance(op, ast.Mult):
                        return Const(x * y)
                    if isinstance(op, ast.FloorDiv):
                        return Const(x // y)
                    if isinstance(op, ast.Mod):
                        return Const(x % y)
                    if isinstance(op, ast.Pow) and 0 <= y < 64:
                        return Const(x ** y)
                except (ZeroDivisionError, OverflowError):
                    return UNKNOWN
        return UNKNOWN

    def attribute(self, obj, attr):
        if isinstance(obj, ModuleV):
            ws = self.ctx.module.workspace
            return ws.resolve(f"{obj.name}.{attr}", obj.from_path, self.ctx) if ws is not None else UNKNOWN
        if isinstance(obj, Api):
            return Api(child(obj.qname, attr))
        if isinstance(obj, Instance):
            if attr in obj.fields:
                return obj.fields[attr]
            v = obj.cls.lookup(attr)
            if isinstance(v, Func):
                if v.is_property:
                    return self.call_function(v, [Arg(obj, None)], {}, None, self._frame_hint, helper=False)
                return Bound(v, obj)
            return v if v is not None else UNKNOWN
        if isinstance(obj, ClassV):
            v = obj.lookup(attr)
            return v if v is not None else UNKNOWN
        if isinstance(obj, Special) and obj.kind == "super":
            owner, self_value = obj.data
            for base in owner.bases:
                v = base.lookup(attr)
                if isinstance(v, Func):
                    return Bound(v, self_value)
                if v is not None:
                    return v
            return UNKNOWN
        if isinstance(obj, Sem):
            if attr == "at":
                return Special("at", obj)
            if attr == "shape" and obj.dims is not None:
                return Seq(tuple(Const(d) if type(d) is int else SCALAR for d in obj.dims))
            if attr == "ndim" and obj.dims is not None:
                return Const(len(obj.dims))
            return UNKNOWN
        if isinstance(obj, Descriptor) and attr in api.DESCRIPTOR_METHODS:
            return Special("descriptor_method", (obj, attr))
        if isinstance(obj, SemType) and attr == "dtype":
            return Api(f"pltpu.SemaphoreType.{obj.kind}.dtype")
        return UNKNOWN

    def subscript(self, node, frame):
        base_node = node.value
        if isinstance(base_node, ast.Attribute) and base_node.attr == "at":
            base = self.eval(base_node.value, frame)
            if isinstance(base, Sem):
                v = self.index_sem(base, node.slice, frame)
                if type(v) is Sem and frame.path is None and not self.ctx.silent:
                    self.ctx.views.append((frame.block, node, v, frame.scope))
                return v
            self.eval(node.slice, frame)
            return UNKNOWN
        base = self.eval(base_node, frame)
        idx = self.eval(node.slice, frame)
        if isinstance(base, Seq):
            if isinstance(idx, Const) and type(idx.value) is int:
                i = idx.value
                if -len(base.items) <= i < len(base.items):
                    return base.items[i]
                return UNKNOWN
            if isinstance(node.slice, ast.Slice):
                lo, hi, st = (self.eval(p, frame) if p is not None else Const(None)
                              for p in (node.slice.lower, node.slice.upper, node.slice.step))
                if all(isinstance(p, Const) and (p.value is None or type(p.value) is int) for p in (lo, hi, st)):
                    return Seq(base.items[lo.value:hi.value:st.value], base.is_list)
                return UNKNOWN
            return join_all(base.items) if base.items else UNKNOWN
        if isinstance(base, SeqTail):
            if isinstance(idx, Const) and type(idx.value) is int and -len(base.items) <= idx.value < 0:
                return base.items[idx.value]
            return UNKNOWN
        if isinstance(base, SeqOf):
            return base if isinstance(node.slice, ast.Slice) else base.item
        if isinstance(base, Mapping) and isinstance(idx, Const):
            return base.items.get(idx.value, UNKNOWN)
        if base is UNKNOWN and not isinstance(node.slice, (ast.Slice, ast.Tuple)):
            return SCALAR  # an element read from a ref or array (`idx_ref[i]`): a number
        # `sem[i]` reads the semaphore's value: not a ref, not our concern.
        return UNKNOWN

    def index_sem(self, sem, slice_node, frame):
        """`sem.at[...]`: an integer or scalar index drops a dimension; a slice, `pl.ds`
        or `...` keeps it.  Chains compose because the result is a Sem again."""
        elts = slice_node.elts if isinstance(slice_node, ast.Tuple) else [slice_node]
        kinds = []   # "drop", ("keep", size or None), "full" (a bare `:`), "ellipsis"
        for e in elts:
            if isinstance(e, ast.Slice):
                if e.lower is None and e.upper is None and e.step is None:
                    kinds.append("full")
                else:
                    bounds = [self.eval(p, frame) if p is not None else Const(None) for p in (e.lower, e.upper, e.step)]
                    ok = all(isinstance(b, Const) and (b.value is None or type(b.value) is int) for b in bounds)
                    kinds.append(("slice", tuple(b.value for b in bounds) if ok else None))
                continue
            if isinstance(e, ast.Starred):
                return UNKNOWN
            v = self.eval(e, frame)
            if isinstance(v, Const) and v.value is Ellipsis:
                kinds.append("ellipsis")
            elif isinstance(v, SliceV):
                kinds.append(("keep", v.size))
            elif isinstance(v, Seq):
                # an index tuple held in a variable
                for item in v.items:
                    if isinstance(item, Const) and item.value is Ellipsis:
                        kinds.append("ellipsis")
                    elif isinstance(item, SliceV):
                        kinds.append(("keep", item.size))
                    else:
                        kinds.append("drop")
            elif v is SCALAR or (isinstance(v, Const) and type(v.value) in (int, bool)) or len(elts) > 1:
                kinds.append("drop")
            else:
                # A lone index of unknown kind may be a tuple (`divmod(...)`): how many
                # dimensions it takes is unknown, so is the result.
                return UNKNOWN
        if sem.decl is not None:
            self.ctx.indexed_decls.add(id(sem.decl.node))
        if sem.sites:
            self.ctx.indexed_sites.add(id(sem.sites[-1]))  # the helper it is in indexes it
        if sem.dims is None:
            return UNKNOWN  # the rank depends on the path: so does the result
        rank = len(sem.dims)
        n_ellipsis = kinds.count("ellipsis")
        explicit = len(kinds) - n_ellipsis
        if n_ellipsis > 1 or explicit > rank:
            return UNKNOWN   # JAX rejects it; not this rule's business
        dims = list(sem.dims)
        out = []
        pos = 0
        for k in kinds:
            if k == "ellipsis":
                span = rank - explicit
                out.extend(dims[pos:pos + span])
                pos += span
            elif k == "full":
                out.append(dims[pos])
                pos += 1
            elif isinstance(k, tuple):
                size = k[1]
                if k[0] == "slice":
                    d = dims[pos]
                    size = len(range(d)[slice(*k[1])]) if k[1] is not None and type(d) is int and d < 1 << 20 else None
                out.append(size if size is not None else "?")
                pos += 1
            else:
                pos += 1
        out.extend(dims[pos:])
        new_dims = tuple(out)
        return Sem(sem.kind, new_dims, sem.decl, sem.sites,
                   sem.scalar_decl if not new_dims or new_dims == sem.dims else None)

    # ------------------------------------------------------------------ calls
    def eval_args(self, node, frame):
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.eval(a.value, frame)
                if isinstance(v, Seq):
                    args.extend(Arg(x, None) for x in v.items)
                else:
                    if STAR not in args:
                        args.append(STAR)
                    else:
                        return None, None
            else:
                args.append(Arg(self.eval(a, frame), a))
        kwargs = {}
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

    def eval_call(self, node, frame):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _LIST_METHODS and isinstance(func.value, (ast.Name, ast.Attribute)):
            return self.list_method(node, frame)
        callee = self.eval(func, frame)
        args, kwargs = self.eval_args(node, frame)
        if args is None:
            self.callbacks_unknown_call([], {}, frame)
            return UNKNOWN
        return self.call(callee, args, kwargs, node, frame)

    def list_method(self, node, frame):
        """`scratch.append(x)` / `.extend(xs)` / `.insert(i, x)` on a list variable or an
        object's list field (`self._copies.append(...)`)."""
        target = node.func.value
        owner = None
        if isinstance(target, ast.Name):
            name = target.id
            base = self.lookup(name, frame)
        else:
            owner = self.eval(target.value, frame)
            name = target.attr
            base = owner.fields.get(name, UNKNOWN) if isinstance(owner, Instance) else UNKNOWN
        args, kwargs = self.eval_args(node, frame)
        if isinstance(base, SeqOf) and args and args[0] is not STAR and node.func.attr == "append":
            base = SeqOf(join(base.item, args[0].value))
            if isinstance(owner, Instance):
                owner.fields[name] = base
            return Const(None)
        if not isinstance(base, Seq) or not base.is_list:
            if args:
                self.callbacks_unknown_call(args, kwargs or {}, frame)
            return UNKNOWN
        method = node.func.attr
        new = UNKNOWN
        if args is not None and not kwargs and STAR not in args:
            vals = [a.value for a in args]
            if method == "append" and len(vals) == 1:
                new = Seq(base.items + (vals[0],), True)
            elif method == "extend" and len(vals) == 1 and isinstance(vals[0], Seq):
                new = Seq(base.items + vals[0].items, True)
            elif method == "insert" and len(vals) == 2 and isinstance(vals[0], Const) and type(vals[0].value) is int:
                items = list(base.items)
                items.insert(vals[0].value, vals[1])
                new = Seq(tuple(items), True)
        if owner is not None:
            if isinstance(owner, Instance):
                owner.fields[name] = new
            return Const(None)
        f = frame
        while f is not None and name not in f.env:
            f = f.parent
        (f or frame).env[name] = new
        return Const(None)

    def call(self, callee, args, kwargs, node, frame, helper=True):
        """Call an abstract callable.  `helper`: a direct call from user code (so a
        semaphore array passed here is reported at this call site)."""
        if isinstance(callee, Func):
            return self.call_function(callee, args, kwargs, node, frame, helper=helper)
        if isinstance(callee, Api):
            return self.call_api(callee.qname, args, kwargs, node, frame)
        if isinstance(callee, Choice):
            return join_all([self.call(o, args, kwargs, node, frame, helper=helper) for o in callee.options])
        if isinstance(callee, Partial):
            merged = dict(callee.kwargs)
            merged.update(kwargs)
            return self.call(callee.func, list(callee.args) + args, merged, node, frame, helper=helper)
        if isinstance(callee, Bound):
            return self.call_function(callee.func, [Arg(callee.self_value, None)] + args, kwargs, node, frame,
                                      helper=helper)
        if isinstance(callee, ClassV):
            return self.instantiate(callee, args, kwargs, node, frame)
        if isinstance(callee, Instance):
            method = callee.cls.lookup("__call__")
            if isinstance(method, Func):
                return self.call_function(method, [Arg(callee, None)] + args, kwargs, node, frame, helper=helper)
            return UNKNOWN
        if isinstance(callee, Special):
            return self.call_special(callee, args, kwargs, node, frame)
        if isinstance(callee, SemType) and not args and not kwargs:
            return UNKNOWN
        self.callbacks_unknown_call(args, kwargs, frame)
        return UNKNOWN

    def callbacks_unknown_call(self, args, kwargs, frame):
        """A user function handed to something we do not model (jax.jit, shard_map, ...)
        may still be called: analyse it with unknown arguments."""
        for a in list(args) + list(kwargs.values()):
            if a is STAR:
                continue
            v = a.value
            if isinstance(v, (Func, Partial)):
                self.call(v, [STAR], _ANY_KWARGS, None, frame, helper=False)

    def call_foreign(self, func, args, kwargs, node, frame, helper, loop_body):
        """Call another module's function from the entry's module, within what is left
        of FOREIGN_STEP_BUDGET; past it, the call's value is unknown."""
        ctx = self.ctx
        left = FOREIGN_STEP_BUDGET - ctx.foreign_steps
        if left <= 0:
            return UNKNOWN
        start, ctx.limit, ctx.in_foreign = ctx.steps, min(STEP_BUDGET, ctx.steps + left), True
        try:
            return self.call_function(func, args, kwargs, node, frame, helper, loop_body)
        except ForeignBudget:
            return UNKNOWN
        finally:
            ctx.foreign_steps += ctx.steps - start
            ctx.limit, ctx.in_foreign = STEP_BUDGET, False

    def call_function(self, func, args, kwargs, node, frame, helper=True, loop_body=False):
        ctx = self.ctx
        if func.path is not None and frame.path is None and not ctx.in_foreign:
            return self.call_foreign(func, args, kwargs, node, frame, helper, loop_body)
        func.analysed = True
        if func.node is None and _resolve_lazy(func) is None:  # a top-level def parsed on first call
            return UNKNOWN
        if frame.depth >= MAX_DEPTH:
            return UNKNOWN
        fnode = func.node
        key = None
        if func.frame is not None and func.frame.parent is None and not isinstance(fnode, ast.Lambda):
            # A top-level function: the same arguments from the same call site give the
            # same result and findings (memoised: repeated helper calls cost nothing).
            key = (fnode, id(node), helper, loop_body, _sig(args), _sig(tuple(sorted(kwargs.items()))))
            if key in ctx.memo:
                return ctx.memo[key]
        env = self.bind(fnode, func, args, kwargs, node, frame, helper)
        active = (fnode, _sig(tuple(env.items())))
        if active in ctx.active:
            return UNKNOWN  # the same call again inside itself: unbounded recursion
        callee_frame = Frame(env, func.frame, func.block, func, frame.depth + 1, func.path)
        callee_frame.scope = fnode
        nonlocals = _nonlocal_names(fnode, func.block.text if func.block is not None else None)
        if nonlocals:
            callee_frame.nonlocals = nonlocals
            for name in nonlocals:
                env.pop(name, None)
        if loop_body and fnode.args.args:
            callee_frame.loops.append(fnode.args.args[0].arg)
        ctx.active.append(active)
        try:
            if isinstance(fnode, ast.Lambda):
                result = self.eval(fnode.body, callee_frame)
            else:
                falls = self.run_body(fnode.body, callee_frame)
                rets = callee_frame.returns
                if falls:
                    rets = rets + [Const(None)]
                result = join_all(rets)
            self.flush_created(callee_frame)
        finally:
            ctx.active.pop()
        if key is not None:
            ctx.memo[key] = result
        return result

    def flush_created(self, frame):
        """Closures and classes defined in `frame` that were never called: analyse them
        with unknown arguments, so the DMAs inside them are still checked."""
        for obj in frame.created:
            if isinstance(obj, Func):
                if not obj.analysed:
                    self.call_function(obj, [STAR], _ANY_KWARGS, None, frame, helper=False)
            elif isinstance(obj, ClassV):
                for m in obj.attrs.values():
                    if isinstance(m, Func) and not m.analysed:
                        self.call_function(m, [Arg(Instance(obj), None), STAR], _ANY_KWARGS, None, frame,
                                           helper=False)

    def bind(self, fnode, func, args, kwargs, call_node, frame, helper):
        """Parameters of `fnode` bound to the call's arguments.  Arguments after a STAR
        bind to the last positional parameters (Pallas puts scratch refs last)."""
        a = fnode.args
        positional = [p.arg for p in a.posonlyargs + a.args]
        defaults = a.defaults
        first_default = len(positional) - len(defaults)
        env = {}
        kw = dict(kwargs)
        unknown_kwargs = kw.pop("**", None) is not None
        # Parameters given by keyword cannot take positional arguments: drop them from
        # the end of the positional list (functools.partial(kernel, n=...) style).
        slots = list(positional)
        while slots and slots[-1] in kw:
            slots.pop()
        if STAR in args:
            i = args.index(STAR)
            front, back = args[:i], args[i + 1:]
            if STAR in back:  # several runs of unknown length: only the front is placed
                back = []
        else:
            front, back = args, None
        for name, arg in zip(slots, front):
            env[name] = arg.value
        extra = front[len(slots):]
        if back is not None:
            has_defaults = bool(defaults) and first_default < len(slots)
            if back and a.vararg is None and not has_defaults and len(front) + len(back) <= len(slots):
                for name, arg in zip(slots[len(slots) - len(back):], back):
                    env[name] = arg.value
        for name in positional:
            if name not in env:
                if name in kw:
                    env[name] = kw.pop(name).value
                elif back is None and not unknown_kwargs and positional.index(name) >= first_default:
                    env[name] = self.eval_default(defaults[positional.index(name) - first_default], func)
                else:
                    env[name] = UNKNOWN
        if a.vararg is not None:
            if back is None:
                env[a.vararg.arg] = Seq(tuple(x.value for x in extra))
            elif back and len(front) <= len(slots):
                env[a.vararg.arg] = SeqTail(tuple(x.value for x in back))  # `def kernel(*refs)`
            else:
                env[a.vararg.arg] = UNKNOWN
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            if p.arg in kw:
                env[p.arg] = kw.pop(p.arg).value
            elif d is not None and not unknown_kwargs:
                env[p.arg] = self.eval_default(d, func)
            else:
                env[p.arg] = UNKNOWN
        if a.kwarg is not None:
            env[a.kwarg.arg] = Mapping({k: v.value for k, v in kw.items()}) if not unknown_kwargs else UNKNOWN
        if helper and call_node is not None:
            self.mark_sites(env, args, kwargs, fnode, func, call_node, frame)
        return env

    def mark_sites(self, env, args, kwargs, fnode, func, call_node, frame):
        """Semaphores passed to a helper remember the call site (unless they already came
        through an outer one): a DMA inside the helper reports there."""
        by_node = {}
        for arg in list(args) + list(kwargs.values()):
            if arg is not STAR and arg.node is not None:
                by_node[id(arg.value)] = arg
        stmt = frame.stmt if frame.stmt is not None else call_node

        def mark(value):
            arg = by_node.get(id(value))
            if arg is None:
                return value
            direct = isinstance(value, Sem)
            key = (id(arg.node), id(call_node), id(fnode), direct)
            site = self.ctx.sites.get(key)
            if site is None:  # one Site per call site: repeated calls memoise alike
                site = self.ctx.sites[key] = Site(frame.loc(arg.node), frame.loc(call_node), frame.loc(stmt),
                                                  func.name, direct, fnode)
            return map_sems(value, lambda s: s.through(site))

        a = fnode.args
        packed = {a.vararg.arg if a.vararg else None, a.kwarg.arg if a.kwarg else None} - {None}
        for name, value in env.items():
            if name in packed and isinstance(value, Seq):
                env[name] = Seq(tuple(mark(v) for v in value.items), value.is_list)
            elif name in packed and isinstance(value, Mapping):
                env[name] = Mapping({k: mark(v) for k, v in value.items.items()})
            else:
                env[name] = mark(value)

    def eval_default(self, node, func):
        return self.eval(node, func.frame) if func.frame is not None else UNKNOWN

    # ------------------------------------------------------------------ Pallas / library APIs
    def call_api(self, q, args, kwargs, node, frame):
        spec = api.CHECKED_CALLS.get(q)
        if spec is not None:
            return self.checked_call(q, spec, args, kwargs, node, frame)
        kind = semaphore_member(q)
        if kind:
            return self.declare(kind, args, kwargs, node, frame)
        if q in api.SEMAPHORE_SPACES:
            return self.declare_space(args, kwargs, node, frame)
        if q in api.BARRIER_PRODUCERS:
            return Sem("BARRIER", (), frame.loc(node) if node is not None else None)
        if q in api.INDEX_KEEPERS:
            size = args[1] if len(args) > 1 and args[1] is not STAR else kwargs.get("size")
            if size is not None and isinstance(size.value, Const) and type(size.value.value) is int:
                return SliceV(size.value.value)
            return SLICE
        if q in api.SELECTORS:
            vals = [a.value for a in args[1:3] if a is not STAR]
            return join(vals[0], vals[1]) if len(vals) == 2 else UNKNOWN
        if q in api.EMPTY_REF_LIKE:
            v = args[0].value if args and args[0] is not STAR else UNKNOWN
            return allocate(v) if isinstance(v, (SemType, Api)) else UNKNOWN
        if q == "functools.partial":
            if not args or args[0] is STAR:
                return UNKNOWN
            return Partial(args[0].value, tuple(args[1:]), {k: v for k, v in kwargs.items()})
        if q in ("pl.pallas_call", "pl.kernel", "plgpu.kernel"):
            return self.pallas_call(q, args, kwargs, node, frame)
        if q in api.GRID_SPECS:
            return self.grid_spec(args, kwargs, q)
        if q == "pl.run_scoped":
            if not args or args[0] is STAR:
                return UNKNOWN
            refs = [Arg(allocate(a.value), None) if a is not STAR else STAR for a in args[1:]]
            kw = {k: Arg(allocate(v.value), None) for k, v in kwargs.items() if k != "collective_axes"}
            return self.call(args[0].value, refs, kw, node, frame, helper=False)
        if q == "pl.with_scoped":
            return Special("with_scoped_decorator", (args, kwargs))
        if q == "pl.core_map":
            return Special("core_map_decorator", kwargs.get("scratch_shapes"))
        if q in ("pltpu.emit_pipeline", "pltpu.emit_pipeline_with_allocations"):
            body = args[0].value if args and args[0] is not STAR else kwargs.get("body", Arg(UNKNOWN)).value
            return Special("pipeline", body)
        if q == "pl.when":
            cond = self.truth(args[0].value) if args and args[0] is not STAR else None
            return Special("when", cond)
        if q == "pl.loop":
            return Special("loop")
        if q == "jax.lax.fori_loop":
            vals = [a.value if a is not STAR else UNKNOWN for a in args]
            if len(vals) >= 4 and isinstance(vals[2], Func):
                self.call_function(vals[2], [Arg(SCALAR), Arg(vals[3])], {}, node, frame, helper=False,
                                   loop_body=True)
            elif len(vals) >= 4:
                self.call(vals[2], [Arg(UNKNOWN), Arg(vals[3])], {}, node, frame, helper=False)
            return UNKNOWN
        if q == "jax.lax.while_loop":
            vals = [a.value if a is not STAR else UNKNOWN for a in args]
            if len(vals) >= 3:
                self.call(vals[0], [Arg(vals[2])], {}, node, frame, helper=False)
                self.call(vals[1], [Arg(vals[2])], {}, node, frame, helper=False)
            return UNKNOWN
        if q == "jax.lax.cond":
            vals = [a.value if a is not STAR else UNKNOWN for a in args]
            ops = [Arg(v) for v in vals[3:]]
            for f in vals[1:3]:
                self.call(f, ops, {}, node, frame, helper=False)
            return UNKNOWN
        if q == "jax.lax.switch":
            vals = [a.value if a is not STAR else UNKNOWN for a in args]
            if len(vals) >= 2 and isinstance(vals[1], Seq):
                for f in vals[1].items:
                    self.call(f, [Arg(v) for v in vals[2:]], {}, node, frame, helper=False)
            return UNKNOWN
        if q in api.ARRAY_SPECS:
            return Special("array_spec")
        if q == "range":
            bounds = [a.value for a in args if a is not STAR]
            if len(bounds) == len(args) and 1 <= len(bounds) <= 3 and all(
                    isinstance(b, Const) and type(b.value) is int for b in bounds):
                r = range(*(b.value for b in bounds))
                if len(r) <= MAX_RANGE_UNROLL:
                    # Python loops run while JAX traces: a short static range is unrolled.
                    return Seq(tuple(Const(i) for i in r))
            return SeqOf(SCALAR)
        if q in ("collections.namedtuple", "typing.NamedTuple") and len(args) >= 2 and args[1] is not STAR:
            names = args[1].value
            if isinstance(names, Const) and isinstance(names.value, str):
                fields = tuple(names.value.replace(",", " ").split())
            elif isinstance(names, Seq) and all(isinstance(x, Const) and isinstance(x.value, str) for x in names.items):
                fields = tuple(x.value for x in names.items)
            elif isinstance(names, Seq) and all(isinstance(x, Seq) and x.items and isinstance(x.items[0], Const)
                                                for x in names.items):
                fields = tuple(x.items[0].value for x in names.items)
            else:
                return UNKNOWN
            return ClassV(None, frame, frame.block, fields=fields, is_dataclass=True, path=frame.path)
        if q == "super" and not args:
            f = frame
            while f is not None and (f.func is None or f.func.owner is None):
                f = f.parent
            if f is not None and isinstance(f.func.node, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.func.node.args.args:
                return Special("super", (f.func.owner, f.env.get(f.func.node.args.args[0].arg, UNKNOWN)))
            return UNKNOWN
        if q in api.PASSTHROUGH:
            first = args[0].value if args and args[0] is not STAR else None
            if isinstance(first, (Func, Partial, Special, Bound)):
                return first  # used directly as a decorator / wrapper: the same function
            return Special("passthrough")
        if q in api.SCALAR_RESULTS:
            self.callbacks_unknown_call(args, kwargs, frame)
            return SCALAR
        if q == "enumerate":
            v = args[0].value if args and args[0] is not STAR else UNKNOWN
            if isinstance(v, Seq):
                return Seq(tuple(Seq((Const(i), x)) for i, x in enumerate(v.items)))
            return SeqOf(Seq((UNKNOWN, element(v))))
        if q == "zip":
            if not args or STAR in args:
                return UNKNOWN
            vals = [a.value for a in args]
            if all(isinstance(v, Seq) for v in vals):
                return Seq(tuple(Seq(items) for items in zip(*(v.items for v in vals))))
            return SeqOf(Seq(tuple(element(v) for v in vals)))
        if q in ("reversed", "sorted", "iter"):
            v = args[0].value if args and args[0] is not STAR else UNKNOWN
            return SeqOf(element(v))
        if q in ("len",):
            v = args[0].value if args and args[0] is not STAR else UNKNOWN
            return Const(len(v.items)) if isinstance(v, Seq) else UNKNOWN
        if q in ("tuple", "list"):
            v = args[0].value if args and args[0] is not STAR else UNKNOWN
            if not args:
                return Seq((), q == "list")
            if isinstance(v, Seq):
                return Seq(v.items, q == "list")
            return v if isinstance(v, SeqOf) else UNKNOWN
        if q == "dict":
            if not args:
                return Mapping({k: v.value for k, v in kwargs.items() if k != "**"}) if "**" not in kwargs else UNKNOWN
            return UNKNOWN
        if q in ("int",):
            v = args[0].value if args and args[0] is not STAR else UNKNOWN
            return v if isinstance(v, Const) and type(v.value) is int else UNKNOWN
        self.callbacks_unknown_call(args, kwargs, frame)
        return UNKNOWN

    def declare(self, kind, args, kwargs, node, frame):
        """`SemaphoreType.X(shape)` -> a declaration with its dims (or UNKNOWN)."""
        if args and args[0] is not STAR:
            shape_arg = args[0]
        elif "shape" in kwargs:
            shape_arg = kwargs["shape"]
        else:
            return UNKNOWN
        dims = self.dims_of(shape_arg.value, shape_arg.node, frame)
        if dims is None:
            return UNKNOWN
        loc = frame.loc(node) if node is not None else None
        scalar_decl = None
        if dims == (1,) and node is not None and isinstance(node, ast.Call):
            scalar_decl = (loc, frame.block.segment(node.func) if frame.block is not None else None)
        return SemType(kind, dims, loc, scalar_decl)

    def declare_space(self, args, kwargs, node, frame):
        """`pltpu.SEMAPHORE(shape, SemaphoreType.X.dtype)`."""
        shape = args[0] if args and args[0] is not STAR else kwargs.get("shape")
        dtype = args[1] if len(args) > 1 and args[1] is not STAR else kwargs.get("dtype")
        if shape is None:
            return UNKNOWN
        dims = self.dims_of(shape.value, shape.node, frame)
        if dims is None:
            return UNKNOWN
        kind = "?"
        if dtype is not None and isinstance(dtype.value, Api):
            q = dtype.value.qname
            if q.endswith(".dtype"):
                kind = semaphore_member(q[: -len(".dtype")]) or "?"
        return SemType(kind, dims, frame.loc(node) if node is not None else None)

    def dims_of(self, value, node, frame):
        """A shape argument -> dims tuple, or None when even the rank is unknown."""
        if isinstance(value, Const) and type(value.value) is int:
            return (value.value,)
        if isinstance(value, Seq):
            texts = None
            if isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) == len(value.items) \
                    and not any(isinstance(e, ast.Starred) for e in node.elts):
                texts = [frame.block.segment(e) for e in node.elts]
            dims = []
            for i, item in enumerate(value.items):
                if isinstance(item, Const) and type(item.value) is int:
                    dims.append(item.value)
                else:
                    dims.append(texts[i] if texts else "?")
            return tuple(dims)
        return None

    def checked_call(self, q, spec, args, kwargs, node, frame):
        bound = {}
        for i, name in enumerate(spec.params):
            if i < len(args):
                if args[i] is STAR:
                    break
                bound[name] = args[i]
        for k, v in kwargs.items():
            if k in spec.params:
                bound[k] = v
        roles = {}
        for name, role in spec.sems:
            arg = bound.get(name)
            if arg is not None:
                roles[role] = arg
        call_loc = frame.loc(node) if node is not None else None
        if spec.action == "check":
            arg = roles.get("sem")
            if arg is not None:
                checks.check_semaphore(self.ctx, spec.code, spec.verb, arg.value,
                                       frame.loc(arg.node) if arg.node is not None else None, call_loc, frame, q)
            return UNKNOWN
        dst = roles.get("dst")
        src = roles.get("src")
        desc = Descriptor(
            dst.value if dst else UNKNOWN,
            (src.value if src else UNKNOWN) if spec.remote else None,
            frame.loc(dst.node) if dst and dst.node is not None else None,
            frame.loc(src.node) if src and src.node is not None else None,
            call_loc, spec.remote, frame.loc(frame.stmt) if frame.stmt is not None else call_loc,
            checks.call_context(call_loc, frame),
        )
        if spec.action == "start":
            self.descriptor_method(desc, "start", node, frame)
        return desc

    def descriptor_method(self, desc, method, node, frame):
        roles, code = api.DESCRIPTOR_METHODS[method]
        verb = "signal" if method == "start" else method
        for role in roles:
            value = desc.dst if role == "dst" else desc.src
            if value is None:
                continue
            loc = desc.dst_loc if role == "dst" else desc.src_loc
            checks.check_semaphore(self.ctx, code, verb, value, loc, desc.call, frame,
                                   f"descriptor.{method}", role=role, remote=desc.remote, stmt=desc.stmt,
                                   context=desc.context)

    def grid_spec(self, args, kwargs, q="pl.GridSpec"):
        names = (("num_scalar_prefetch",) if q == "pltpu.PrefetchScalarGridSpec" else ()) + \
            ("grid", "in_specs", "out_specs", "scratch_shapes")
        kwargs = dict(kwargs)
        for name, a in zip(names, args):
            if a is STAR:
                break
            kwargs.setdefault(name, a)
        n = kwargs.get("num_scalar_prefetch")
        n_value = n.value.value if n is not None and isinstance(n.value, Const) else (0 if n is None else None)
        scratch = kwargs.get("scratch_shapes")
        return Special("grid_spec", (n_value, scratch.value if scratch is not None else Seq(())))

    def pallas_call(self, q, args, kwargs, node, frame):
        kernel = args[0].value if args and args[0] is not STAR else kwargs.get("kernel", kwargs.get("body", Arg(UNKNOWN))).value
        out_arg = (args[1] if len(args) > 1 and args[1] is not STAR else
                   kwargs.get("out_shape") or kwargs.get("out_type"))
        out = out_arg.value if out_arg is not None else UNKNOWN
        scratch_arg = kwargs.get("scratch_shapes") or kwargs.get("scratch_types")
        scratch = scratch_arg.value if scratch_arg is not None else Seq(())
        gs = kwargs.get("grid_spec")
        if gs is not None:
            if isinstance(gs.value, Special) and gs.value.kind == "grid_spec":
                scratch = gs.value.data[1]
            else:
                scratch = UNKNOWN
        if isinstance(out, Seq):
            outs = [allocate(v) for v in out.items]  # semaphores (and tuples of them) become refs
        elif isinstance(out, (SemType, Special, Api, Mapping)):
            outs = [allocate(out) if isinstance(out, (SemType, Api)) else UNKNOWN]  # one output
        else:
            outs = None  # unknown, or a sequence of unknown length
        invocation = Special("pallas_callable", (kernel, outs, scratch, node, frame, isinstance(out, Seq)))
        self.ctx.pending.append(invocation)
        return invocation

    def invoke_kernel(self, callable_, operands):
        """Run a pallas_call / pl.kernel body with its refs: operands (unknown), outputs,
        then scratch (dict scratch: keyword arguments)."""
        if callable_ in self.ctx.pending:
            self.ctx.pending.remove(callable_)
        if self.ctx.silent:
            return
        kernel, outs, scratch, node, frame, _ = callable_.data
        self.ctx.kernel_nodes.update(_function_nodes(kernel))
        kw = {}
        if isinstance(scratch, SeqTail):
            outs = None  # the leading scratch count is unknown: bind the tail from the end
            tail = [Arg(allocate(v)) for v in scratch.items]
        elif isinstance(scratch, Seq):
            tail = [Arg(allocate(v)) for v in scratch.items]
        elif isinstance(scratch, Mapping):
            tail = []
            kw = {str(k): Arg(allocate(v)) for k, v in scratch.items.items()}
        else:
            tail = None
        if not any(_holds_sem(a.value) for a in (tail or [])) and not any(_holds_sem(a.value) for a in kw.values()) \
                and not any(_holds_sem(v) for v in (outs or [])) \
                and not any(_holds_sem(a.value) for a in (operands or []) if a is not STAR):
            # No semaphore reaches the kernel: running it with unknown refs finds nothing
            # its own (standalone) entry does not.
            return
        # Operands keep their values (a semaphore output of one pallas_call can be the
        # input of the next), but not the helper-call sites outside the kernel: a kernel
        # is where its refs are used.
        front = ([Arg(map_sems(a.value, lambda s: s.without_sites())) for a in operands]
                 if operands is not None else [])
        if tail is None:
            args = front + [STAR]
        elif outs is None or operands is None:
            # How many outputs (or operands) is unknown, but scratch refs are always the
            # last parameters: bind them from the end.
            args = front + [STAR] + ([Arg(v) for v in outs] if outs is not None and operands is None else []) + tail
        else:
            args = front + [Arg(v) for v in outs] + tail
        self.call(kernel, args, kw, node, frame, helper=False)

    def call_special(self, sp, args, kwargs, node, frame):
        kind = sp.kind
        if kind == "descriptor_method":
            desc, method = sp.data
            self.descriptor_method(desc, method, node, frame)
            return UNKNOWN
        if kind == "pallas_callable":
            self.invoke_kernel(sp, None if STAR in args or "**" in kwargs else args)
            outs, out_is_seq = sp.data[1], sp.data[5]
            if outs is None:
                return UNKNOWN
            return Seq(tuple(outs)) if out_is_seq else outs[0]
        if kind == "when":
            if args and args[0] is not STAR:
                if sp.data is False:
                    # `pl.when(False)`: JAX never traces the body
                    if isinstance(args[0].value, Func):
                        args[0].value.analysed = True
                else:
                    self.call(args[0].value, [], {}, node, frame, helper=False)
            return UNKNOWN
        if kind == "loop":
            if args and args[0] is not STAR and isinstance(args[0].value, Func):
                self.call_function(args[0].value, [Arg(SCALAR)], {}, node, frame, helper=False, loop_body=True)
            elif args and args[0] is not STAR:
                self.call(args[0].value, [Arg(UNKNOWN)], {}, node, frame, helper=False)
            return UNKNOWN
        if kind == "with_scoped_decorator":
            types, kwtypes = sp.data
            if not args or args[0] is STAR:
                return UNKNOWN
            refs = [Arg(allocate(a.value)) if a is not STAR else STAR for a in types]
            kwrefs = {k: Arg(allocate(v.value)) for k, v in kwtypes.items()}
            return Special("with_scoped", (args[0].value, refs, kwrefs))
        if kind == "with_scoped":
            func, refs, kwrefs = sp.data
            merged = dict(kwargs)
            merged.update(kwrefs)
            return self.call(func, list(args) + refs, merged, node, frame, helper=False)
        if kind == "core_map_decorator":
            if not args or args[0] is STAR:
                return UNKNOWN
            scratch = sp.data.value if sp.data is not None else Seq(())
            if isinstance(scratch, Mapping):
                self.call(args[0].value, [], {str(k): Arg(allocate(v)) for k, v in scratch.items.items()},
                          node, frame, helper=False)
            elif isinstance(scratch, Seq):
                self.call(args[0].value, [Arg(allocate(v)) for v in scratch.items], {}, node, frame, helper=False)
            else:
                self.call(args[0].value, [STAR], {}, node, frame, helper=False)
            return UNKNOWN
        if kind == "pipeline":
            scratches = kwargs.get("scratches")
            if scratches is not None and isinstance(scratches.value, Seq):
                tail = [Arg(v) for v in scratches.value.items]
            elif scratches is None:
                tail = []
            else:
                tail = None
            call_args = [STAR] + (tail or [])
            if tail is None:
                call_args = [STAR]
            self.call(sp.data, call_args, {}, node, frame, helper=False)
            return UNKNOWN
        if kind == "at":
            return UNKNOWN
        if kind == "passthrough":
            return args[0].value if args and args[0] is not STAR else UNKNOWN
        self.callbacks_unknown_call(args, kwargs, frame)
        return UNKNOWN


def _resolve_lazy(func):
    """The def of a top-level function whose block was not parsed yet (parse it now)."""
    tree = func.block.tree
    if tree is None or not tree.body or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    func.node = tree.body[0]
    return func.node


def _function_nodes(value, depth=0):
    """The defs a callable value stands for (through partials, choices, callable objects)."""
    if depth > 4:
        return set()
    if isinstance(value, Func):
        node = value.node if value.node is not None else _resolve_lazy(value)
        return {node} if node is not None else set()
    if isinstance(value, Partial):
        return _function_nodes(value.func, depth + 1)
    if isinstance(value, Choice):
        out = set()
        for o in value.options:
            out |= _function_nodes(o, depth + 1)
        return out
    if isinstance(value, Special) and value.kind == "with_scoped":
        return _function_nodes(value.data[0], depth + 1)
    return set()


def _catches_import_error(handler) -> bool:
    t = handler.type
    names = t.elts if isinstance(t, ast.Tuple) else [t]
    return bool(names) and all(isinstance(n, ast.Name) and n.id in ("ImportError", "ModuleNotFoundError")
                               for n in names)


def _nonlocal_names(fnode, func_block_text=None) -> frozenset:
    """Names a function declares `nonlocal` (its assignments write to the enclosing frame)."""
    cached = _NONLOCALS.get(fnode)
    if cached is None and func_block_text is not None and "nonlocal" not in func_block_text:
        cached = _NONLOCALS[fnode] = frozenset()  # the common case, without walking the body
    if cached is None:
        out = set()
        stack = list(fnode.body) if not isinstance(fnode, ast.Lambda) else []
        while stack:
            n = stack.pop()
            if isinstance(n, ast.Nonlocal):
                out.update(n.names)
            elif not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.extend(ast.iter_child_nodes(n))
        cached = _NONLOCALS[fnode] = frozenset(out)
    return cached


_NONLOCALS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _holds_sem(value, depth=0, clean=None):
    """Whether `value` holds a semaphore within 6 levels of containers.

    `clean` (id -> depth) remembers the containers found to hold none from a depth: values
    share parts, and without it a search could visit the same parts exponentially often.
    The caller keeps the values alive while it uses one `clean` for several searches.
    """
    if isinstance(value, Sem):
        return True
    if depth > 6:
        return False
    if isinstance(value, (Seq, SeqTail)):
        items = value.items
    elif isinstance(value, Mapping):
        items = value.items.values()
    elif isinstance(value, Instance):
        items = value.fields.values()
    else:
        return False
    if clean is None:
        clean = {}
    elif clean.get(id(value), depth + 1) <= depth:
        return False
    if any(_holds_sem(v, depth + 1, clean) for v in items):
        return True
    clean[id(value)] = depth
    return False


_ORDER = {ast.Lt: lambda x, y: x < y, ast.LtE: lambda x, y: x <= y,
          ast.Gt: lambda x, y: x > y, ast.GtE: lambda x, y: x >= y}


def _compare(op, a, b):
    """A comparison decided statically (True / False), or None."""
    t = type(op)
    if t in (ast.Eq, ast.NotEq):
        eq = _equal(a, b)
        return None if eq is None else (eq if t is ast.Eq else not eq)
    if t in (ast.Is, ast.IsNot):
        if isinstance(a, Const) and a.value is None or isinstance(b, Const) and b.value is None:
            other = b if isinstance(a, Const) and a.value is None else a
            if isinstance(other, Const):
                same = other.value is None
            elif other is UNKNOWN or other is SCALAR:
                return None
            else:
                same = False  # a semaphore, a tuple, a function...: not None
            return same if t is ast.Is else not same
        return None
    if t in _ORDER:
        if is_number(a) and is_number(b):
            return _ORDER[t](a.value, b.value)
        return None
    if t in (ast.In, ast.NotIn):
        if isinstance(a, Const) and isinstance(b, Seq) and all(isinstance(x, Const) for x in b.items):
            inside = any(type(x.value) is type(a.value) and x.value == a.value for x in b.items)
            return inside if t is ast.In else not inside
        return None
    return None


def _equal(a, b):
    if isinstance(a, Const) and isinstance(b, Const):
        return a.value == b.value
    if isinstance(a, Seq) and isinstance(b, Seq):
        if len(a.items) != len(b.items):
            return False
        results = [_equal(x, y) for x, y in zip(a.items, b.items)]
        if False in results:
            return False
        return True if all(r is True for r in results) else None
    if isinstance(a, Seq) and isinstance(b, Const) or isinstance(a, Const) and isinstance(b, Seq):
        return False
    return None


def _sig(value, depth=0):
    """A hashable summary of an abstract value (for memoising calls)."""
    if isinstance(value, Sem):
        return ("S", value.kind, value.dims, id(value.decl), tuple(id(x) for x in value.sites))
    if isinstance(value, Const):
        try:
            hash(value.value)
            return ("C", type(value.value), value.value)
        except TypeError:
            return id(value)
    if isinstance(value, (tuple, list)) and depth < 6:
        return tuple(_sig(v, depth + 1) for v in value)
    if isinstance(value, Arg):
        return _sig(value.value, depth)
    if isinstance(value, (Seq, SeqTail)) and depth < 6:
        return (type(value).__name__, tuple(_sig(v, depth + 1) for v in value.items))
    if isinstance(value, str):
        return value
    return id(value)


def _same(a, b, depth=0):
    """Structural equality of abstract values (enough to detect a loop's fixpoint)."""
    if a is b:
        return True
    if type(a) is not type(b) or depth > 6:
        return False
    if isinstance(a, Sem):
        return (a.kind == b.kind and a.dims == b.dims and a.decl is b.decl and len(a.sites) == len(b.sites)
                and all(x is y for x, y in zip(a.sites, b.sites)))
    if isinstance(a, Const):
        return type(a.value) is type(b.value) and a.value == b.value
    if isinstance(a, (Seq, SeqTail)):
        return len(a.items) == len(b.items) and all(_same(x, y, depth + 1) for x, y in zip(a.items, b.items))
    if isinstance(a, SeqOf):
        return _same(a.item, b.item, depth + 1)
    return False


def _semaphores_changed(a, b):
    """Whether a loop round changed a value that holds semaphores (worth another round)."""
    clean: dict = {}
    for k, v in b.items():
        old = a.get(k, UNKNOWN)
        if (_holds_sem(v, 0, clean) or _holds_sem(old, 0, clean)) and not _same(old, v):
            return True
    return False


def _env_same(a, b):
    return a.keys() == b.keys() and all(_same(v, b[k]) for k, v in a.items())


def _join_envs(envs):
    if len(envs) == 1:
        return envs[0]
    keys = set()
    for e in envs:
        keys.update(e)
    out = {}
    for k in keys:
        vals = [e.get(k, UNKNOWN) for e in envs]
        out[k] = join_all(vals)
    return out


def _pattern_names(pattern):
    names = []
    for n in ast.walk(pattern):
        name = getattr(n, "name", None)
        if isinstance(name, str):
            names.append(name)
        rest = getattr(n, "rest", None)
        if isinstance(rest, str):
            names.append(rest)
    return names


def _callable_qname(v):
    if isinstance(v, Api):
        return v.qname
    if isinstance(v, Partial) and isinstance(v.func, Api):
        return v.func.qname
    return None


def import_bindings(stmt, package=None):
    """Names an import statement binds, with the fully qualified name each refers to."""
    out = []
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            if alias.asname:
                out.append((alias.asname, canonical(alias.name)))
            else:
                root = alias.name.split(".")[0]
                out.append((root, canonical(root)))
    else:
        from .symbols import resolve_relative
        mod = resolve_relative(stmt.module, stmt.level, package)
        for alias in stmt.names:
            if alias.name == "*":
                continue
            name = alias.asname or alias.name
            out.append((name, canonical(f"{mod}.{alias.name}") if mod else None))
    return out


__all__ = ["LIBRARY_ROOTS", "STAR", "Arg", "Budget", "Context", "Frame", "Interpreter", "import_bindings"]
