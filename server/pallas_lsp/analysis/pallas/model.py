"""The types of the Pallas API model: one frozen spec per API, with enums for roles.

`registry.py` holds the entries; everything else (the interpreter's handlers, the checks,
the messages, the fixes, the creator words, the CLI prefilter, the docs table) reads them.
Names are canonical (`symbols.canonical`): `pl.*`, `pltpu.*`, `plgpu.*`, `jax.*`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class SemRole(Enum):
    """What a semaphore argument is to the call."""

    DST = "dst"      # a DMA's destination (receive) semaphore: `sem`, `recv_sem`
    SRC = "src"      # a remote DMA's source (send) semaphore: `send_sem`
    SEM = "sem"      # the semaphore of a signal / wait / read / barrier


class Action(Enum):
    """What a checked call does with its semaphores."""

    BUILD = "build"  # returns a DMA descriptor; its methods use the semaphores
    START = "start"  # builds a descriptor and starts it at once
    CHECK = "check"  # uses the semaphore right away


class SemEffect(Enum):
    """What a call does to its semaphore's count (for the protocol rules)."""

    SIGNAL = "signal"   # increments it (a DMA start, `pl.semaphore_signal`)
    WAIT = "wait"       # waits for it and decrements it


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"


class ApiKind(Enum):
    """Which handler of the interpreter gives an API its meaning."""

    CHECKED_CALL = "checked call"
    SEMAPHORE_TYPE = "semaphore type"
    SEMAPHORE_SPACE = "semaphore memory space"
    BARRIER_SEMAPHORE = "barrier semaphore"
    INDEX_KEEPER = "index that keeps its dimension"
    SELECTOR = "ref selector"
    EMPTY_REF_LIKE = "ref allocator"
    ARRAY_SPEC = "array description"
    MEMORY_SPACE = "memory space"
    BLOCK_SPEC = "block spec"
    GRID_SPEC = "grid spec"
    COMPILER_PARAMS = "compiler params"
    INVOKER = "kernel invoker"
    PASSTHROUGH = "function wrapper"
    SCALAR_RESULT = "scalar result"
    PROGRAM_ID = "grid index"
    TRACED_INDEX = "traced int32 scalar"
    LIBRARY_CLASS = "library class"


class Binding(Enum):
    """How an invoker calls the user function it is given, and with what."""

    PALLAS_CALL = "kernel(*scalar_prefetch, *inputs, *outputs, *scratch)"
    KERNEL = "body(*inputs, *outputs, *scratch_types)"
    CORE_MAP = "f(*scratch_shapes) or f(**scratch_shapes)"
    RUN_SCOPED = "f(*refs, **kw_refs) for run_scoped(f, *types, **kw_types)"
    WITH_SCOPED = "decorated(*call_args, *refs, **kw_refs)"
    EMIT_PIPELINE = "body(*in_blocks, *out_blocks, *scratches)"
    WHEN = "decorated body traced once (never for a static False)"
    LOOP = "decorated body(i)"
    FORI_LOOP = "body(i, carry)"
    WHILE_LOOP = "cond(carry), body(carry)"
    COND = "true_fun(*operands), false_fun(*operands)"
    SWITCH = "each branch(*operands)"
    TREE_MAP = "f(*leaves) for each leaf of the trees, results in the first tree's structure"
    SHARD_MAP = "f(*per-device operands), traced once each time the mapped function is called"


@dataclass(unsafe_hash=True)
class SemParam:
    """A semaphore parameter of a checked call."""

    name: str
    role: SemRole


@dataclass(unsafe_hash=True)
class Api:
    """Base of every entry: the canonical name and what it is."""

    name: str

    @property
    def kind(self) -> ApiKind:
        raise NotImplementedError

    def describe(self) -> str:
        return self.kind.value


@dataclass(unsafe_hash=True)
class CheckedCall(Api):
    """A call that takes semaphore arguments (`params`: its positional parameters)."""

    params: tuple[str, ...]
    sems: tuple[SemParam, ...]
    action: Action
    rule: str | None = None        # the rule for START / CHECK
    verb: str = "signal"           # JAX's word: "Cannot {verb} on a non-()-shaped semaphore"
    remote: bool = False
    deprecated_for: str | None = None
    kinds: frozenset[str] | None = None   # the semaphore kinds JAX accepts (None: not checked)
    effect: SemEffect | None = None       # on the semaphore's count (None: none we track)
    copies: tuple[str, str] | None = None  # a DMA's (source, destination) parameters: checked alike
    count: str | None = None              # the parameter with the amount signalled / waited (default 1)
    # Keywords that, given (other than None / True), make the count another device's or
    # core's, or leave it in place (`decrement=False`): not counted.
    count_elsewhere: tuple[str, ...] = ()
    reads_count: bool = False             # returns the semaphore's count (a traced int32)

    @property
    def kind(self) -> ApiKind:
        return ApiKind.CHECKED_CALL

    def describe(self) -> str:
        roles = ", ".join(f"`{p.name}` ({p.role.value})" for p in self.sems)
        return f"{self.action.value}: semaphores {roles}" + (f"; deprecated, use `{self.deprecated_for}`"
                                                            if self.deprecated_for else "")

    def position(self, param: str) -> int:
        return self.params.index(param)


@dataclass(unsafe_hash=True)
class DescriptorMethod:
    """A method of a DMA descriptor: the semaphores it uses and the rule it falls under."""

    name: str
    roles: tuple[SemRole, ...]
    rule: str
    verb: str
    kinds: frozenset[str] | None = None   # the semaphore kinds JAX accepts (None: not checked)
    effect: SemEffect = SemEffect.WAIT


@dataclass(unsafe_hash=True)
class SemaphoreType(Api):
    """`SemaphoreType.DMA` / `REGULAR` / `BARRIER` (called with a shape, or bare)."""

    member: str

    @property
    def kind(self) -> ApiKind:
        return ApiKind.SEMAPHORE_TYPE

    def describe(self) -> str:
        return f"{self.member} semaphore type: bare (one semaphore) or called with a shape"


@dataclass(unsafe_hash=True)
class Simple(Api):
    """An entry whose meaning is its kind alone (index keepers, selectors, wrappers, ...)."""

    what: ApiKind
    params: tuple[str, ...] = ()

    @property
    def kind(self) -> ApiKind:
        return self.what


@dataclass(unsafe_hash=True)
class SemField:
    """A semaphore field every instance of a library class has, as JAX declares it:
    `dims` holds the source text of lengths that are not static (the rank is what
    matters)."""

    name: str
    kind: str                 # "DMA", "REGULAR", ...
    dims: tuple


@dataclass(unsafe_hash=True)
class LibraryClass(Api):
    """A library class user code subclasses (`class MyRef(pltpu.BufferedRef)`): its
    methods see the semaphore fields JAX gives every instance (an array, or `None` where
    the instance has no such buffer)."""

    fields: tuple[SemField, ...]

    @property
    def kind(self) -> ApiKind:
        return ApiKind.LIBRARY_CLASS

    def describe(self) -> str:
        fields = ", ".join(f"`{f.name}` ({f.kind}, one per {' x '.join(map(str, f.dims))})" for f in self.fields)
        return f"library class: subclasses' methods see the semaphore fields {fields}"


@dataclass(unsafe_hash=True)
class MemorySpace(Api):
    """A memory space (`pltpu.VMEM`, `pltpu.SMEM`, `pl.ANY`, ...): called with (shape,
    dtype) it declares a scratch buffer; given as `memory_space=` it places a block."""

    space: str

    @property
    def kind(self) -> ApiKind:
        return ApiKind.MEMORY_SPACE

    def describe(self) -> str:
        return f"memory space {self.space}: `(shape, dtype)` declares a buffer"


@dataclass(unsafe_hash=True)
class Spec(Api):
    """A constructor of a spec value, with its parameters in order (positional first)."""

    what: ApiKind
    params: tuple[str, ...]

    @property
    def kind(self) -> ApiKind:
        return self.what

    def describe(self) -> str:
        return f"{self.what.value}({', '.join(self.params)})"


@dataclass(unsafe_hash=True)
class Invoker(Api):
    """An API that runs a user function with refs Pallas allocates.

    `params`: its positional parameters (the function first); `outputs` and `scratch`:
    the keywords that carry the output shapes and the scratch types (the first of
    `outputs` is also the second positional parameter)."""

    binding: Binding
    params: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    scratch: tuple[str, ...] = ()

    @property
    def kind(self) -> ApiKind:
        return ApiKind.INVOKER

    def describe(self) -> str:
        return self.binding.value
