"""The semaphore values: declarations (`SemType`), refs and views (`Sem`), DMA
descriptors, the helper-call sites a semaphore went through, and what Pallas allocates
for scratch types.  Each answers the lattice's questions itself (`values.DomainValue`).

A semaphore *ref* is `Sem(kind, dims)`: `dims` is a tuple whose entries are ints or,
where only the rank is known, the source text of the length (`"nbuf"`).  `()` is the
only scalar shape."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..interp.envs import holds
from ..values import UNKNOWN, Api, Const, DomainValue, Instance, Loc, Mapping, Seq, join
from .registry import semaphore_member


@dataclass(eq=False, slots=True)
class SemType(DomainValue):
    """A semaphore *declaration* (`SemaphoreType.DMA((2,))`, bare `SemaphoreType.DMA`, ...).

    It becomes a `Sem` ref where Pallas allocates it (scratch, run_scoped, ...)."""

    kind: str             # "DMA", "REGULAR", "BARRIER" or "?"
    dims: tuple | None    # None: non-scalar, rank differs between paths
    decl: Loc | None      # the declaring expression
    scalar_decl: tuple | None = None   # (Loc, replacement text) for a (1,)-shaped declaration
    gpu: bool = False     # a Mosaic GPU semaphore (`plgpu.SemaphoreType`): TPU's counts do not apply

    def join(self, other: Any) -> Any:
        if isinstance(other, SemType):
            if self.dims == other.dims:
                return self
            if self.dims and other.dims:
                return replace(self, dims=join_dims(self.dims, other.dims), scalar_decl=None)
            return UNKNOWN
        return self if _is_none(other) else UNKNOWN


@dataclass(eq=False)
class Site:
    """Where a semaphore entered a helper: the argument at the outermost helper call."""

    arg: Loc              # the argument expression at the call site
    call: Loc             # the call node
    stmt: Loc             # the statement holding the call (for the assertion guard)
    callee: str           # helper name, for messages
    direct: bool = True   # the argument itself is the semaphore (not a tuple holding it)
    callee_node: Any = None  # the helper's def (is it also a kernel?)


@dataclass(eq=False, slots=True)
class Sem(DomainValue):
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

    def __init__(self, kind: str, dims: tuple | None, decl: Loc | None, sites: tuple = (),
                 scalar_decl: tuple | None = None, element: tuple | None = (), gpu: bool = False,
                 evidence: tuple = (), library: str | None = None) -> None:   # native (`records`)
        self.kind = kind
        self.dims = dims
        self.decl = decl
        self.sites = sites
        self.scalar_decl = scalar_decl
        self.element = element
        self.gpu = gpu
        self.evidence = evidence
        self.library = library

    @property
    def loop_tracked(self) -> bool:   # a loop runs again while a semaphore changes
        return True

    @property
    def noted(self) -> bool:          # hover shows it
        return True

    @property
    def scalar(self) -> bool:
        return self.dims == ()

    @property
    def site(self) -> Site | None:
        """The outermost helper call it went through (where a finding is reported)."""
        return self.sites[0] if self.sites else None

    def through(self, site):
        """The same semaphore, having gone through one more helper call (the outermost
        and the two innermost calls are kept: enough to report, and bounded)."""
        sites = self.sites + (site,)
        if len(sites) > 3:
            sites = (sites[0],) + sites[-2:]
        return self._with_sites(sites)

    def without_sites(self):
        return self._with_sites(()) if self.sites else self

    def _with_sites(self, sites: tuple) -> Sem:
        """`dataclasses.replace(self, sites=sites)`, compiled."""
        return Sem(self.kind, self.dims, self.decl, sites, self.scalar_decl, self.element, self.gpu,
                   self.evidence, self.library)

    def join(self, other: Any) -> Any:
        if not isinstance(other, Sem):
            # a semaphore on one path, none on the other (an optional scratch entry): where it
            # is used as a semaphore, the path that has one is the path that reaches the use
            return self if _is_none(other) else UNKNOWN
        if self.scalar and other.scalar:
            # one semaphore; which one (the declaration, the element) only where the paths agree
            same = self.decl is not None and other.decl is not None and self.decl.node is other.decl.node
            if self.element != other.element or not same:
                return replace(self, element=None, decl=self.decl if same else None)
            return self
        if not self.scalar and not other.scalar:
            # non-scalar on both paths: still an error wherever it is used whole
            dims = join_dims(self.dims, other.dims)
            return self if dims == self.dims else replace(self, dims=dims, scalar_decl=None)
        return UNKNOWN

    def same(self, other: Any) -> bool:
        return (self.kind == other.kind and self.dims == other.dims and self.decl is other.decl
                and len(self.sites) == len(other.sites) and all(x is y for x, y in zip(self.sites, other.sites)))

    def signature(self) -> Any:
        return ("S", self.kind, self.dims, id(self.decl), tuple(id(x) for x in self.sites))


@dataclass(eq=False)
class Descriptor(DomainValue):
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

    def join(self, other: Any) -> Any:
        if not isinstance(other, Descriptor):
            return UNKNOWN
        if self.broken != other.broken:
            # built with a semaphore array on one path: an error wherever that path starts it
            return self if self.broken else other
        src = join(self.src, other.src) if self.src is not None and other.src is not None else None
        return Descriptor(join(self.dst, other.dst), src, self.dst_loc, self.src_loc, self.call,
                          self.remote and other.remote, self.stmt, self.context,
                          self.nbytes if self.nbytes == other.nbytes else None)


def join_dims(a: tuple | None, b: tuple | None) -> tuple | None:
    """Dims of a semaphore array that has shape `a` on one path and `b` on another: the
    same rank keeps known lengths; different ranks give None ("some non-scalar shape":
    still an error used whole, unknown once indexed)."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else "?" for x, y in zip(a, b))


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


def _is_none(v: Any) -> bool:
    return isinstance(v, Const) and v.value is None


def holds_sem(value: Any) -> bool:
    """Whether `value` holds a semaphore within 6 levels of containers."""
    return holds(value, _is_sem)


def _is_sem(v: Any) -> bool:
    return isinstance(v, Sem)
