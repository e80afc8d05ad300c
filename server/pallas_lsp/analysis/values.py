"""The abstract values the flow analysis computes, and the lattice operations on them.

`UNKNOWN` is top: anything at all.  Checks stay silent on it; that silence is what keeps
false alarms at zero.  These are the values of Python itself (constants, tuples, lists,
dicts, functions, classes, library names); a domain's own values (the Pallas domain's
semaphores and refs) subclass `DomainValue` and answer the lattice's questions themselves.

Source positions inside values are `Loc`s: a block key plus an AST node, turned into
document coordinates only when a finding is reported (blocks move when lines are
inserted above them; their keys do not).

mypyc compiles this module with the interpreter (setup.py): its classes are plain
dataclasses, which mypyc makes native classes (the interpreter reads their fields without
Python's attribute lookup), not `records.record`s, which it cannot. All but `Func`,
`ClassV` and `Instance` are immutable all the same: no code sets their fields.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from .records import mypyc_attr


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


@mypyc_attr(allow_interpreted_subclasses=True)   # the domains' values derive from it
class DomainValue:
    """A value a domain makes.  The lattice asks the value itself: `join` at merges,
    `same` at loop fixpoints, `signature` for memo keys (`stable_signature` and
    `portable` for calls remembered across runs); `noted` values are told to the
    domains where the document names them (hover); `loop_tracked` values make a
    loop run another round while they change (others settle with their join).  The flags
    are properties a subclass overrides: to mypyc, a class attribute of a dataclass
    deriving from this one would be a field."""

    __slots__ = ()

    @property
    def loop_tracked(self) -> bool:
        return False

    @property
    def noted(self) -> bool:   # the domains are told where it is named (hover)
        return False

    def join(self, other: Any) -> Any:
        """The least upper bound with `other` (a different value; maybe not a domain's)."""
        return UNKNOWN

    def same(self, other: Any) -> bool:
        """Structural equality with `other`, a value of the same type."""
        return self is other

    def signature(self) -> Any:
        """A hashable summary, alike for values a call cannot tell apart."""
        return id(self)

    @property
    def portable(self) -> bool:
        """Whether another run of the entry may take this value as it is (it holds no
        ref, semaphore or node of the run that made it): `interp.summaries`."""
        return False

    def stable_signature(self) -> Any:
        """A hashable summary that another run gives an alike value (None: this value is
        made afresh by each run). A portable value's `signature` is one."""
        return self.signature() if self.portable else None


@dataclass(eq=False, slots=True)
class Loc:
    """An AST node in a block (of this module, or of another file when `path` is set)."""

    block: Any            # parse.Block
    node: Any             # an ast node with a position
    path: str | None = None

    def __init__(self, block: Any, node: Any, path: str | None = None) -> None:   # native (`records`)
        self.block = block
        self.node = node
        self.path = path


@dataclass(unsafe_hash=True, slots=True)
class Const:
    value: Any            # int, float, str, bool, None, Ellipsis

    def __init__(self, value: Any) -> None:   # native (`records`)
        self.value = value


@dataclass(unsafe_hash=True)
class SliceV:
    """A slice, `pl.ds(...)` / `pl.dslice(...)` / `slice(...)`: an index that keeps its
    dimension (`size`: its length when static, e.g. `pl.ds(i, 2)`, with its static `start`
    and `stride`; `bounds`: a `slice(start, stop, step)`'s static arguments, its length
    depending on the dimension)."""

    size: int | None = None
    bounds: tuple | None = None
    start: int | None = None
    stride: int | None = 1
    float_start: str | None = None   # the MLIR type of a traced float start ("f32"): not an index


SLICE = SliceV()


@dataclass(eq=False, slots=True)
class Seq:
    """A Python tuple or list of values (nested scratch, packed arguments)."""

    items: tuple
    is_list: bool = False


@dataclass(eq=False, slots=True)
class Iter(Seq):
    """An iterator over known items (`iter(refs)`): the items it has left.  `next(it)`
    gives the first and rebinds `it` to the rest."""


@dataclass(eq=False, slots=True)
class Range(Seq):
    """A static `range(...)`: its items, read as a tuple's, but equal only to a range."""


@dataclass(eq=False, slots=True)
class SeqTail:
    """A list whose length is unknown but whose last items are known (`[*xs, a, b]`):
    enough to bind scratch refs, which are always the last kernel parameters."""

    items: tuple


@dataclass(eq=False, slots=True)
class SeqOf:
    """A list of unknown length whose items all have the abstract value `item`
    (a comprehension, `range(...)`)."""

    item: Any


@dataclass(eq=False, slots=True)
class Mapping:
    items: dict


@dataclass(eq=False, slots=True)
class Api:
    """A name from JAX / Pallas / the stdlib, by canonical dotted name ("pltpu.make_async_copy")."""

    qname: str

    def __init__(self, qname: str) -> None:   # native (`records`)
        self.qname = qname


@dataclass(eq=False)
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
    defaults: dict | None = None   # parameter -> its default's value where the def ran (None: read at the call)


@dataclass(eq=False, slots=True)
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
    """An object of a user class; its fields change in place (`interp.statements`)."""

    cls: ClassV
    fields: dict = field(default_factory=dict)
    # How deep in code that may not run, or runs an unknown number of times, it was made:
    # a field written deeper may also keep the value it had (the two are joined).
    level: int = 0


@dataclass(eq=False, slots=True)
class Bound:
    """A method bound to an instance."""

    func: Func
    self_value: Any


@dataclass(eq=False)
class SuperProxy:
    """`super()` inside a method of `owner`, bound to `self_value`."""

    owner: Any
    self_value: Any


@dataclass(eq=False)
class Choice:
    """One of several callables, depending on a branch (`kernel = a if flag else b`):
    calling it calls each."""

    options: tuple


def join(a, b):
    """Least upper bound of two values reaching the same point along different paths."""
    if a is b:
        return a
    if isinstance(a, DomainValue):
        return a.join(b)
    if isinstance(b, DomainValue):
        return b.join(a)
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
            return items_like(a.items + b.items)   # a list that grows in a loop
        return UNKNOWN
    if isinstance(a, SeqOf) and isinstance(b, Seq) or isinstance(a, Seq) and isinstance(b, SeqOf):
        return items_like(((a.item,) if isinstance(a, SeqOf) else a.items) + ((b.item,) if isinstance(b, SeqOf) else b.items))
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
        if a == b or a.size != b.size or a.bounds != b.bounds:
            return a if a == b else SLICE   # a slice; its length differs between the paths
        return SliceV(a.size, a.bounds, a.start if a.start == b.start else None,
                      a.stride if a.stride == b.stride else None,
                      a.float_start if a.float_start == b.float_start else None)
    return UNKNOWN


def is_number(v) -> bool:
    return isinstance(v, Const) and type(v.value) in (int, float, bool)


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


# A tuple or list the code makes longer than this (a list doubled in a loop) is kept as
# some number of items like its own, so that no code makes an analysis unbounded.
MAX_ITEMS = 1024


def sequence(items: tuple, is_list: bool = False):
    """A tuple or list of `items`; past MAX_ITEMS, one of unknown length."""
    return Seq(items, is_list) if len(items) <= MAX_ITEMS else items_like(items)


def items_like(items: tuple):
    """A tuple or list of unknown length whose items are like these."""
    item = join_all(items)
    return SeqOf(item) if item is not UNKNOWN else UNKNOWN

def shape_text(dims: tuple | None) -> str:
    """Format a shape as JAX prints it: (2,), (2, 3), ()."""
    if dims is None:
        return "(...)"
    parts = [str(d) for d in dims]
    if len(parts) == 1:
        return f"({parts[0]},)"
    return "(" + ", ".join(parts) + ")"
