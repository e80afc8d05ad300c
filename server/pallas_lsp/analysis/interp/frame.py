"""The interpreter's state: activations (`Frame`), one entry's `Context`, call arguments,
and the `Evaluator` protocol that the domains program against."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..values import UNKNOWN, Loc
from .merges import Merges
from .syntax import walrus_targets

MAX_DEPTH = 32
MAX_UNROLL = 16
MAX_UNROLL_NESTING = 2
MAX_LOOP_ROUNDS = 3
MAX_RANGE_UNROLL = 8
STEP_BUDGET = 150_000
# Steps an entry may spend in other modules' functions (helpers are small; a call into a
# large library, such as a test calling the analysis itself, would use the whole budget).
FOREIGN_STEP_BUDGET = 20_000
INTERRUPT_EVERY = 1024   # steps between two questions whether the run is still wanted


class Budget(Exception):
    """The entry used up its step budget: findings so far stand, the rest is unknown."""


class Interrupted(BaseException):
    """The run was told to stop (its input is superseded). Not an interpreter failure: no
    `except Exception` on the way catches it."""


class ForeignBudget(Exception):
    """Other modules' functions used up their steps: the pending call's value is unknown."""


class _Star:
    """Marks an unknown number of unknown positional arguments in an argument list."""

    def __repr__(self) -> str:
        return "STAR"


STAR = _Star()


class Arg:
    __slots__ = ("value", "node")

    def __init__(self, value: Any, node: ast.AST | None = None) -> None:
        self.value = value
        self.node = node

    def __repr__(self) -> str:
        return f"Arg(value={self.value!r}, node={self.node!r})"


ArgOrStar = Arg | _Star

# The keyword arguments of a caller we cannot see: any (so no default is assumed).
ANY_KWARGS = {"**": Arg(UNKNOWN)}


class CallArgs:
    """One call as a handler sees it: evaluated arguments, the call node, the frame."""

    __slots__ = ("args", "kwargs", "node", "frame")

    def __init__(self, args: list[ArgOrStar], kwargs: dict[str, Arg], node: ast.AST | None, frame: Frame) -> None:
        self.args = args
        self.kwargs = kwargs
        self.node = node
        self.frame = frame

    def positional(self, i: int) -> Arg | None:
        """The i-th positional argument, None when absent or behind a `*` of unknown length."""
        for j, a in enumerate(self.args):
            if isinstance(a, _Star):
                return None
            if j == i:
                return a
        return None

    def param(self, i: int, name: str) -> Arg | None:
        """A parameter given by position `i` or by keyword `name`."""
        a = self.positional(i)
        return a if a is not None else self.kwargs.get(name)

    def value(self, i: int, name: str | None = None) -> Any:
        a = self.param(i, name) if name is not None else self.positional(i)
        return a.value if a is not None else UNKNOWN

    def values(self) -> list[Any]:
        """Positional values, unknown where a `*` of unknown length stands."""
        return [a.value if isinstance(a, Arg) else UNKNOWN for a in self.args]

    @property
    def has_star(self) -> bool:
        return any(isinstance(a, _Star) for a in self.args)


class Frame:
    """One activation: a function call, or a module block being executed."""

    __slots__ = ("block", "created", "depth", "env", "exits", "func", "level", "loops", "module", "nonlocals",
                 "parent", "path", "returns", "scope", "stmt", "uncertain", "yields")

    def __init__(self, env: dict[str, Any], parent: Frame | None, block: Any, func: Any = None, depth: int = 0,
                 path: str | None = None, module: Any = None) -> None:
        self.env = env
        self.parent = parent        # enclosing (closure) frame; None for module level
        self.block = block
        self.func = func
        self.returns: list[Any] = []
        self.yields: Yields | None = None  # a generator function's activation: what it yields
        self.stmt: ast.AST | None = None
        self.depth = depth
        self.created: list[Any] = []   # Funcs defined here (run with unknown args if never called)
        self.loops: list[str] = []     # names of the enclosing loop variables (index suggestions)
        self.exits: list[LoopExits] | None = None   # the loops being run here, innermost last
        self.nonlocals: frozenset[str] | tuple[()] = ()  # names this frame assigns in an enclosing frame
        self.scope: ast.AST | None = None  # identity of the Python scope (for index hints)
        self.uncertain = 0             # what it added to `Context.uncertain` until it returns
        # The `Context.traced_uncertainty` its own statements run at: a change of its names made
        # deeper (by a callee, in an operand that may not run) may not happen: it is joined.
        self.level = 0
        self.path = path
        # The module whose globals a module-level frame sees (None: inherit / the entry's).
        self.module: Any = module if module is not None else (parent.module if parent is not None else None)

    def loc(self, node: ast.AST) -> Loc:
        return Loc(self.block, node, self.path)

    def holder(self, name: str) -> Frame | None:
        """The frame whose environment binds `name`: this one or an enclosing one."""
        f: Frame | None = self
        while f is not None and name not in f.env:
            f = f.parent
        return f


Comprehension = ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.DictComp


def binds_in(node: ast.AST, frame: Frame) -> Frame | None:
    """The frame a `:=` in `node` binds in (None: `node` has none)."""
    block = frame.block
    if (block is not None and not block.may_bind_in_expressions) or not walrus_targets(node):
        return None
    return walrus_frame(frame)


def walrus_frame(frame: Frame) -> Frame:
    """The frame `:=` binds in: the first one that is not a comprehension's own."""
    while isinstance(frame.scope, Comprehension) and frame.parent is not None:
        frame = frame.parent
    return frame


class LoopExits:
    """The states in which one run of a loop's body left it by `break` or `continue`."""

    __slots__ = ("breaks", "continues")

    def __init__(self) -> None:
        self.breaks: list[dict] = []
        self.continues: list[dict] = []


@dataclass
class Yields:
    """What a generator function's activation yields, in order.  `exact`: the values are
    every item, in order (straight-line and unrolled code only); otherwise they are samples
    of the items, of an unknown number."""

    summarising: int      # `Context.summarising` when the activation began
    exact: bool
    values: list[Any] = field(default_factory=list)


@dataclass(eq=False)
class Binding:
    """A name in the scope (its `def` node) that binds it."""

    scope: ast.AST
    name: str

    def __init__(self, scope: ast.AST, name: str) -> None:   # native (`records`)
        self.scope = scope
        self.name = name

    def __eq__(self, other: object) -> bool:
        return type(other) is Binding and self.scope is other.scope and self.name == other.name

    def __hash__(self) -> int:
        return hash((self.scope, self.name))


@dataclass
class Context:
    """State for one analysis entry: its domains, global lookups, budget, memo; and the
    Pallas domain's record of the entry (the fields after `overrides`, which the
    interpreter never reads)."""

    module: Any                          # engine.ModuleState: global lookups (records deps)
    domains: tuple = ()                  # domain.Domain, in the order they are asked
    silent: bool = False                 # evaluating a global's value: no findings, no kernels
    steps: int = 0
    budget: int = STEP_BUDGET            # the entry's steps (a replay gets fewer)
    limit: int = STEP_BUDGET             # lower while in another module's function
    foreign_steps: int = 0               # steps spent in other modules' functions
    in_foreign: bool = False
    interrupted: Callable[[], bool] | None = None   # asked every INTERRUPT_EVERY steps: stop?
    active: list[Any] = field(default_factory=list)   # envs.ActiveCall: the user functions being run
    memo: dict = field(default_factory=dict)            # top-level function calls already analysed: (result, args, kwargs)
    # Blocks of top-level functions the caller runs as entries of their own, with unknown
    # arguments: handed to code not followed here, they are not run again (`leaned_on`).
    run_alone: frozenset = frozenset()
    entry_block: Any = None              # the block this entry runs (its own functions are run here)
    leaned_on: set = field(default_factory=set)
    memoise: bool = True                 # False: every call runs (a replay counts what each one does)
    summaries: Any = None                # summaries.Summaries: the document's remembered calls of other modules
    summary_hits: int = 0                # calls taken from `summaries` in this run
    remembering: bool = False            # running a call of another module's function to remember
    memo_steps: int = 0                  # steps the memo saved there
    memo_skips: int = 0                  # ... and calls it took there that had changed the record
    # Steps ran out (the entry's, or those for other modules' code), where they would not
    # have without the calls taken from `summaries` (which count every step of theirs).
    cut: bool = False
    deepest: int = 0                     # the greatest `Frame.depth` a call has made so far
    # Events a domain counts, so far: a call that had some is not memoised (a memo hit
    # would skip them), so one run of a function sees every event it makes.
    effects: int = 0
    unrolling: int = 0                   # nesting of unrolled loops
    # [container] cells that follow a list or dict changed in place: the list an unrolled
    # `for` loop goes over, the container an item is written to while its key is evaluated
    live: list = field(default_factory=list)
    merged: Merges = field(default_factory=Merges)   # the lists and dicts joined where paths met
    summarising: int = 0                 # nesting of loops run to a fixpoint (bodies run an unknown number of times)
    # > 0 while running code that may not run (a branch on an unknown condition, the rest
    # of a function after such a branch returned) or runs an unknown number of times.
    uncertain: int = 0
    # Of those, the levels a domain opened for code that is staged whole whatever runs of
    # it happen (JAX traces a `fori_loop` body once, and both branches of a `lax.cond`).
    staged: int = 0
    uncalled: int = 0                    # > 0 while running closures nothing calls (JAX never traces them)
    deps: dict[str, Any] = field(default_factory=dict)  # global name -> key of the block it resolved to
    views: list[Any] = field(default_factory=list)      # what the domains noted for hover
    # Values a domain gives names the code leaves UNKNOWN (read by `lookup`).
    overrides: dict[Binding, Any] = field(default_factory=dict)

    findings: list[Any] = field(default_factory=list)     # checks.RawFinding
    # pallas.replay.Replay while a kernel is replayed at concrete grid points
    replay: Any = None
    pending: list[Any] = field(default_factory=list)    # pallas_call-like callables never applied yet
    calls: list[Any] = field(default_factory=list)      # every pallas_call seen (contract records)
    rule_findings: list[Any] = field(default_factory=list)  # report.ContractFinding (PAL3xx)
    reports: int = 0                     # findings a rule made once per node, even where one was there
    # The pallas_call whose grid the code being run sees (None: a grid of its own, as in an
    # emit_pipeline body, or none at all, as in a closure nothing calls).
    grids: list[Any] = field(default_factory=list)
    protocol: Any = None                 # pallas.protocol.Protocol: the scratch semaphores' ledger
    event_effects: int = 0               # of `effects`, the semaphore events the ledger was told
    indexed_decls: set[int] = field(default_factory=set)  # id() of declarations indexed somewhere
    indexed_sites: set[int] = field(default_factory=set)  # id() of Sites whose arrays a helper indexes
    kernel_nodes: set[ast.AST] = field(default_factory=set)  # defs invoked as kernels
    certain_kernels: set[ast.AST] = field(default_factory=set)  # of those, by a call that surely runs
    sites: dict[tuple, Any] = field(default_factory=dict)    # (arg, call, callee, direct) -> Site
    kernel_runs: dict[tuple, Any] = field(default_factory=dict)   # pallas.kernel_runs: the runs made, by run_key
    # Semaphore arrays known by their use (`pallas/indexed_use.py`): collected on an
    # entry's first run, then given to the names on a second one (`overrides`).
    evidence: Any = None                                     # indexed_use.Evidence while collecting

    def checkpoint(self) -> None:
        """After a step (`steps += 1`, inlined where the interpreter evaluates) past the
        limit or every INTERRUPT_EVERY steps: out of budget, or no longer wanted?"""
        if self.steps > self.limit:
            raise Budget() if self.steps > self.budget else ForeignBudget()
        if not self.steps % INTERRUPT_EVERY and self.interrupted is not None and self.interrupted():
            raise Interrupted()

    @property
    def uncertainty(self) -> int:
        """How deep the code being run is in code that may not run or runs an unknown
        number of times."""
        return self.uncertain + self.summarising

    @property
    def traced_uncertainty(self) -> int:
        """The same for the Python that runs as the kernel is traced (`values.Instance.level`,
        `Frame.level`): staged code counts not, JAX traces it once whatever runs of it happen."""
        return self.uncertain - self.staged + self.summarising

    @property
    def certain(self) -> bool:
        """Whether the code being run runs exactly once, each time its caller does."""
        return self.uncertainty == 0


class maybe_runs:
    """`with maybe_runs(ctx):` run code that may not run (or runs an unknown number of
    times); `staged`: code that is staged all the same (`Context.staged`).  A class rather
    than a generator: it is entered at every branch the code does not decide."""

    __slots__ = ("ctx", "staged")

    def __init__(self, ctx: Context, staged: bool = False) -> None:
        self.ctx = ctx
        self.staged = staged

    def __enter__(self) -> None:
        self.ctx.uncertain += 1
        self.ctx.staged += self.staged

    def __exit__(self, *exc: object) -> None:
        self.ctx.uncertain -= 1
        self.ctx.staged -= self.staged


class unsure_after:
    """`with unsure_after(ctx) as unsure:` ... `unsure.begin()`: the code from there to the
    end of the block may not run (`maybe_runs`, entered midway: the operands of `a and b`
    after one whose truth is not known)."""

    __slots__ = ("begun", "ctx")

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.begun = False

    def __enter__(self) -> unsure_after:
        return self

    def begin(self) -> None:
        if not self.begun:
            self.begun = True
            self.ctx.uncertain += 1

    def __exit__(self, *exc: object) -> None:
        if self.begun:
            self.ctx.uncertain -= 1


class forked(maybe_runs):
    """`with forked(ctx, frame):` run a branch of `frame` that may not run on a state of
    its own (the caller joins the states): there its changes of its names are certain."""

    __slots__ = ("frame",)

    def __init__(self, ctx: Context, frame: Frame) -> None:
        self.ctx, self.staged, self.frame = ctx, False, frame

    def __enter__(self) -> None:   # (`maybe_runs` and `traced_uncertainty`, inlined: entered at every branch)
        ctx = self.ctx
        ctx.uncertain += 1
        self.frame.level = ctx.uncertain - ctx.staged + ctx.summarising

    def __exit__(self, *exc: object) -> None:
        ctx = self.ctx
        ctx.uncertain -= 1
        self.frame.level = ctx.uncertain - ctx.staged + ctx.summarising


class Evaluator(Protocol):
    """What the domains and the builtins need of the interpreter."""

    ctx: Context
    entering: tuple      # the domains with an `entering_helper` of their own
    unknown_arguments: tuple   # ... and with an `unknown_argument`

    def call(self, callee: Any, args: list[ArgOrStar], kwargs: dict[str, Arg], node: ast.AST | None,
             frame: Frame, helper: bool = True) -> Any: ...

    def call_function(self, func: Any, args: list[ArgOrStar], kwargs: dict[str, Arg], node: ast.AST | None,
                      frame: Frame, helper: bool = True, loop_body: bool = False) -> Any: ...

    def callbacks_unknown_call(self, args: list[ArgOrStar], kwargs: dict[str, Arg], frame: Frame) -> None: ...

    def truth(self, value: Any) -> bool | None: ...

    def condition(self, node: ast.expr, frame: Frame) -> bool | None: ...

    def eval(self, node: ast.AST, frame: Frame) -> Any: ...

    def lookup(self, name: str, frame: Frame) -> Any: ...
