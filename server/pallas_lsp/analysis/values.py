"""The abstract values the flow analysis computes, and the lattice operations on them.

`UNKNOWN` is top: anything at all.  Checks stay silent on it; that silence is what keeps
false alarms at zero.  A semaphore *ref* is `Sem(kind, dims)`: `dims` is a tuple whose
entries are ints or, where only the rank is known, the source text of the length
(`"nbuf"`).  `()` is the only scalar shape.

Source positions inside values are `Loc`s: a block key plus an AST node, turned into
document coordinates only when a finding is reported (blocks move when lines are
inserted above them; their keys do not).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Any

from .pallas.registry import semaphore_member


class _Unknown:
    __slots__ = ()

    def __repr__(self):
        return "UNKNOWN"


UNKNOWN = _Unknown()


class _Scalar:
    """Some number known not to be a tuple (a loop index, `pl.program_id(0)`, `i % 2`):
    as an `.at[...]` index it drops exactly one dimension."""

    __slots__ = ()

    def __repr__(self):
        return "SCALAR"


SCALAR = _Scalar()


@dataclass(frozen=True, eq=False)
class Loc:
    """An AST node in a block (of this module, or of another file when `path` is set)."""

    block: Any            # parse.Block
    node: Any             # an ast node with a position
    path: str | None = None


@dataclass(frozen=True)
class Const:
    value: Any            # int, float, str, bool, None, Ellipsis


@dataclass(frozen=True)
class SliceV:
    """A slice, `pl.ds(...)` / `pl.dslice(...)` / `slice(...)`: an index that keeps its
    dimension (`size`: its length when static, e.g. `pl.ds(i, 2)`; `bounds`: a
    `slice(start, stop, step)`'s static arguments, its length depending on the dimension)."""

    size: int | None = None
    bounds: tuple | None = None


SLICE = SliceV()


@dataclass(frozen=True, eq=False)
class SemType:
    """A semaphore *declaration* (`SemaphoreType.DMA((2,))`, bare `SemaphoreType.DMA`, ...).

    It becomes a `Sem` ref where Pallas allocates it (scratch, run_scoped, ...)."""

    kind: str             # "DMA", "REGULAR", "BARRIER" or "?"
    dims: tuple
    decl: Loc | None      # the declaring expression
    scalar_decl: tuple | None = None   # (Loc, replacement text) for a (1,)-shaped declaration
    gpu: bool = False     # a Mosaic GPU semaphore (`plgpu.SemaphoreType`): TPU's counts do not apply


@dataclass(frozen=True, eq=False)
class Site:
    """Where a semaphore entered a helper: the argument at the outermost helper call."""

    arg: Loc              # the argument expression at the call site
    call: Loc             # the call node
    stmt: Loc             # the statement holding the call (for the assertion guard)
    callee: str           # helper name, for messages
    direct: bool = True   # the argument itself is the semaphore (not a tuple holding it)
    callee_node: Any = None  # the helper's def (is it also a kernel?)


@dataclass(frozen=True, eq=False)
class Sem:
    """A semaphore ref (or a view of one)."""

    kind: str
    dims: tuple | None    # None: non-scalar, rank differs between paths
    decl: Loc | None
    sites: tuple = ()     # helper calls it went through, outermost first
    scalar_decl: tuple | None = None
    element: tuple | None = ()   # the static indices that made this view (None: some dynamic)
    gpu: bool = False     # declared by `plgpu.SemaphoreType`
    # An array known by its use, not declared: the `.at[...]` views given as semaphores
    # elsewhere (`pallas/indexed_use.py`'s View records).
    evidence: tuple = ()
    library: str | None = None   # a field of this library class (`pltpu.BufferedRef`)

    @property
    def scalar(self) -> bool:
        return self.dims == ()

    @property
    def site(self):
        """The outermost helper call it went through (where a finding is reported)."""
        return self.sites[0] if self.sites else None

    def through(self, site):
        """The same semaphore, having gone through one more helper call (the outermost
        and the two innermost calls are kept: enough to report, and bounded)."""
        sites = self.sites + (site,)
        if len(sites) > 3:
            sites = (sites[0],) + sites[-2:]
        return replace(self, sites=sites)

    def without_sites(self):
        return replace(self, sites=()) if self.sites else self


@dataclass(frozen=True, eq=False)
class Seq:
    """A Python tuple or list of values (nested scratch, packed arguments)."""

    items: tuple
    is_list: bool = False


@dataclass(frozen=True, eq=False)
class Iter(Seq):
    """An iterator over known items (`iter(refs)`): the items it has left.  `next(it)`
    gives the first and rebinds `it` to the rest."""


@dataclass(frozen=True, eq=False)
class SeqTail:
    """A list whose length is unknown but whose last items are known (`[*xs, a, b]`):
    enough to bind scratch refs, which are always the last kernel parameters."""

    items: tuple


@dataclass(frozen=True, eq=False)
class SeqOf:
    """A list of unknown length whose items all have the abstract value `item`
    (a comprehension, `range(...)`)."""

    item: Any


@dataclass(frozen=True, eq=False)
class Mapping:
    items: dict


@dataclass(frozen=True, eq=False)
class Api:
    """A name from JAX / Pallas / the stdlib, by canonical dotted name ("pltpu.make_async_copy")."""

    qname: str


@dataclass(frozen=True, eq=False)
class ModuleV:
    """A module of the user's workspace (or environment), resolved through `workspace.py`."""

    name: str
    from_path: str | None = None


@dataclass(eq=False)
class Func:
    """A user function (def or lambda) with the frame it closes over."""

    node: Any             # the FunctionDef / Lambda (None: a top-level def not parsed yet)
    frame: Any            # interp.frame.Frame of the enclosing scope (module frame for top level)
    block: Any            # the block holding the def
    name: str = "<lambda>"
    path: str | None = None
    analysed: bool = False  # interpreted at least once (to find uncalled closures)
    owner: Any = None       # the ClassV a method is defined in (for super())
    is_property: bool = False


@dataclass(frozen=True, eq=False)
class Partial:
    func: Any
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)


@dataclass(eq=False)
class ClassV:
    node: ast.ClassDef
    frame: Any
    block: Any
    attrs: dict = field(default_factory=dict)
    fields: tuple = ()     # dataclass fields, in order
    is_dataclass: bool = False
    frozen: bool = False   # instances are immutable (a frozen dataclass, a named tuple)
    path: str | None = None
    bases: tuple = ()      # base classes defined in analysed code (others are unknown)

    def lookup(self, name, depth=0):
        """Attribute lookup through the bases (depth-first, like a simple MRO)."""
        if name in self.attrs:
            return self.attrs[name]
        if depth < 8:
            for b in self.bases:
                v = b.lookup(name, depth + 1)
                if v is not None:
                    return v
        return None


@dataclass(eq=False)
class Instance:
    cls: ClassV
    fields: dict = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Bound:
    """A method bound to an instance."""

    func: Func
    self_value: Any


@dataclass(frozen=True, eq=False)
class Descriptor:
    """The result of `make_async_copy` / `make_async_remote_copy`."""

    dst: Any              # value of the destination semaphore (sem / recv_sem)
    src: Any              # value of the source semaphore (send_sem), None for a local copy
    dst_loc: Loc | None
    src_loc: Loc | None
    call: Loc | None      # the builder call (for fixes: neighbouring src/dst refs)
    remote: bool = False
    stmt: Loc | None = None  # the statement holding the builder call
    context: Any = None   # checks.CallContext: where it was built (for the index suggestion)
    nbytes: int | None = None   # what it copies (its start signals, its wait waits for), when static

    @property
    def broken(self) -> bool:
        """Built with a semaphore array: starting or waiting on it is an error."""
        return any(isinstance(s, Sem) and not s.scalar for s in (self.dst, self.src))


@dataclass(frozen=True, eq=False)
class SuperProxy:
    """`super()` inside a method of `owner`, bound to `self_value`."""

    owner: Any
    self_value: Any


@dataclass(frozen=True, eq=False)
class Choice:
    """One of several callables, depending on a branch (`kernel = a if flag else b`):
    calling it calls each."""

    options: tuple


def join(a, b):
    """Least upper bound of two values reaching the same point along different paths."""
    if a is b:
        return a
    if isinstance(a, Sem) and isinstance(b, Sem):
        if a.scalar and b.scalar:
            # one semaphore; which one (the declaration, the element) only where the paths agree
            same = _same_decl(a, b)
            if a.element != b.element or not same:
                return replace(a, element=None, decl=a.decl if same else None)
            return a
        if not a.scalar and not b.scalar:
            # non-scalar on both paths: still an error wherever it is used whole
            dims = join_dims(a.dims, b.dims)
            return a if dims == a.dims else replace(a, dims=dims, scalar_decl=None)
        return UNKNOWN
    for x, y in ((a, b), (b, a)):
        if isinstance(x, (Sem, SemType)) and isinstance(y, Const) and y.value is None:
            # a semaphore on one path, none on the other (an optional scratch entry): where it
            # is used as a semaphore, the path that has one is the path that reaches the use
            return x
    if isinstance(a, Const) and isinstance(b, Const):
        if a.value == b.value and type(a.value) is type(b.value):
            return a
        return SCALAR if is_number(a) and is_number(b) else UNKNOWN
    if (a is SCALAR or is_number(a)) and (b is SCALAR or is_number(b)):
        return SCALAR
    if isinstance(a, Seq) and isinstance(b, Seq):
        if len(a.items) == len(b.items):
            return Seq(tuple(join(x, y) for x, y in zip(a.items, b.items)), a.is_list)
        if a.is_list and b.is_list:
            # a list that grows in a loop: some length, items like these
            item = join_all(a.items + b.items)
            return SeqOf(item) if item is not UNKNOWN else UNKNOWN
        return UNKNOWN
    if isinstance(a, SeqOf) and isinstance(b, Seq) or isinstance(a, Seq) and isinstance(b, SeqOf):
        item = join_all(((a.item,) if isinstance(a, SeqOf) else a.items) + ((b.item,) if isinstance(b, SeqOf) else b.items))
        return SeqOf(item) if item is not UNKNOWN else UNKNOWN
    if isinstance(a, SemType) and isinstance(b, SemType):
        if a.dims == b.dims:
            return a
        if a.dims and b.dims:
            return replace(a, dims=join_dims(a.dims, b.dims), scalar_decl=None)
        return UNKNOWN
    if isinstance(a, SeqTail) and isinstance(b, SeqTail) and len(a.items) == len(b.items):
        return SeqTail(tuple(join(x, y) for x, y in zip(a.items, b.items)))
    if isinstance(a, SeqOf) and isinstance(b, SeqOf):
        return SeqOf(join(a.item, b.item))
    callables = (Func, Partial, Choice)
    if isinstance(a, callables) and isinstance(b, callables):
        opts = []
        for x in (a, b):
            for o in (x.options if isinstance(x, Choice) else (x,)):
                if not any(o is p for p in opts):
                    opts.append(o)
        return Choice(tuple(opts)) if len(opts) <= 4 else UNKNOWN
    if isinstance(a, Api) and isinstance(b, Api) and a.qname == b.qname:
        return a
    if isinstance(a, SliceV) and isinstance(b, SliceV):
        return a if a == b else SLICE   # a slice; its length differs between the paths
    if isinstance(a, Descriptor) and isinstance(b, Descriptor):
        if a.broken != b.broken:
            # built with a semaphore array on one path: an error wherever that path starts it
            return a if a.broken else b
        return Descriptor(join(a.dst, b.dst), join(a.src, b.src) if a.src is not None and b.src is not None else None,
                          a.dst_loc, a.src_loc, a.call, a.remote and b.remote, a.stmt, a.context,
                          a.nbytes if a.nbytes == b.nbytes else None)
    return UNKNOWN


def _same_decl(a: Sem, b: Sem) -> bool:
    return a.decl is not None and b.decl is not None and a.decl.node is b.decl.node


def is_number(v) -> bool:
    return isinstance(v, Const) and type(v.value) in (int, float, bool)


def join_dims(a, b):
    """Dims of a semaphore array that has shape `a` on one path and `b` on another: the
    same rank keeps known lengths; different ranks give None ("some non-scalar shape":
    still an error used whole, unknown once indexed)."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else "?" for x, y in zip(a, b))


def element(value):
    """The abstract value of one item of an iterable."""
    if isinstance(value, Seq):
        return join_all(value.items) if value.items else UNKNOWN
    if isinstance(value, SeqOf):
        return value.item
    return UNKNOWN


def join_all(values):
    out = None
    for v in values:
        out = v if out is None else join(out, v)
    return UNKNOWN if out is None else out


def map_sems(value, fn, depth=0):
    """Apply `fn` to every Sem inside `value` (through tuples/lists/dicts and the fields
    of immutable objects: a copy of one is the same object to the code)."""
    if isinstance(value, Sem):
        return fn(value)
    if depth > 8:
        return value
    if isinstance(value, Seq):
        return Seq(tuple(map_sems(v, fn, depth + 1) for v in value.items), value.is_list)
    if isinstance(value, Mapping):
        return Mapping({k: map_sems(v, fn, depth + 1) for k, v in value.items.items()})
    if isinstance(value, Instance) and value.cls.frozen:
        fields = {k: map_sems(v, fn, depth + 1) for k, v in value.fields.items()}
        if any(fields[k] is not v for k, v in value.fields.items()):
            return Instance(value.cls, fields)
    return value


def allocate(value, depth=0, leaf=None):
    """What Pallas passes to the kernel for a scratch / scoped type: SemTypes become Sem
    refs, pytrees keep their structure, anything else is `leaf(value)` (the caller's
    buffers) or unknown."""
    if isinstance(value, SemType):
        return Sem(value.kind, value.dims, value.decl, scalar_decl=value.scalar_decl, gpu=value.gpu)
    if isinstance(value, Api):
        kind = semaphore_member(value.qname)
        if kind:
            return Sem(kind, (), None)
        return UNKNOWN
    if depth > 8:
        return UNKNOWN
    if isinstance(value, Seq):
        return Seq(tuple(allocate(v, depth + 1, leaf) for v in value.items), value.is_list)
    if isinstance(value, Mapping):
        return Mapping({k: allocate(v, depth + 1, leaf) for k, v in value.items.items()})
    if isinstance(value, Instance) and value.cls.is_dataclass:
        # A registered dataclass of scratch types arrives as the same dataclass of refs.
        return Instance(value.cls, {k: allocate(v, depth + 1, leaf) for k, v in value.fields.items()})
    return leaf(value) if leaf is not None else UNKNOWN


def shape_text(dims: tuple | None) -> str:
    """Format a shape as JAX prints it: (2,), (2, 3), ()."""
    if dims is None:
        return "(...)"
    parts = [str(d) for d in dims]
    if len(parts) == 1:
        return f"({parts[0]},)"
    return "(" + ", ".join(parts) + ")"
