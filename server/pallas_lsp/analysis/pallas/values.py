"""Abstract values that only Pallas makes (each a `values.DomainValue`): spec objects,
array refs, the callables Pallas APIs return; and the `pallas_call` record (what the
contract checks read)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from ..interp.functions import resolve_lazy
from ..arrays.dtypes import by_name, short
from ..arrays.values import ArrayRef
from ..values import Choice, DomainValue, Func, Loc, Partial
from .model import DescriptorMethod, Invoker


@dataclass(eq=False, slots=True)
class ArraySpecV(DomainValue):
    """`jax.ShapeDtypeStruct(shape, dtype)` or a memory space called with (shape, dtype)."""

    shape: tuple | None           # ints, or source texts where a length is not static
    dtype: str | None             # the dtype's source text
    space: str | None = None      # "VMEM", "SMEM", ... for a memory-space buffer
    loc: Loc | None = None


@dataclass(eq=False, slots=True)
class BlockSpecV(DomainValue):
    """`pl.BlockSpec(block_shape, index_map, memory_space=...)`."""

    block_shape: tuple | None     # ints / None (squeezed) / texts; None when absent or unknown
    index_map: Any                # the abstract value of the index map
    memory_space: str | None      # "ANY", "SMEM", ...; the source text of a space not known; None: not given
    loc: Loc | None = None        # the `pl.BlockSpec(...)` call


@dataclass(eq=False)
class GridSpecV(DomainValue):
    """`pl.GridSpec(...)` / `pltpu.PrefetchScalarGridSpec(...)`: the arguments as given."""

    num_scalar_prefetch: int | None   # None when not static
    grid: Any
    in_specs: Any
    out_specs: Any
    scratch: Any
    loc: Loc | None = None
    arg_locs: dict[str, Loc] = field(default_factory=dict)   # parameter -> the argument given


@dataclass(eq=False)
class CompilerParamsV(DomainValue):
    dimension_semantics: Any
    loc: Loc | None = None
    semantics_loc: Loc | None = None   # the `dimension_semantics=` argument


@dataclass(unsafe_hash=True)
class AxisUse:
    """`pl.program_id(axis)` / `pl.num_programs(axis)` with a static axis, in a kernel."""

    at: Loc
    api: str
    axis: int


@dataclass(eq=False)
class PallasCall:
    """One `pallas_call` / `pl.kernel`: everything the contract is made of, as given."""

    invoker: Invoker
    kernel: Any
    out_shape: Any
    outs: list | None             # the refs Pallas allocates for outputs (None: count unknown)
    out_is_seq: bool
    scratch: Any                  # scratch types (Seq, SeqTail, Mapping) or UNKNOWN
    grid: Any
    in_specs: Any
    out_specs: Any
    num_scalar_prefetch: int | None
    compiler_params: Any
    node: ast.AST | None
    frame: Any
    arg_locs: dict[str, Loc] = field(default_factory=dict)   # parameter -> the argument given
    operands: list | None = field(default=None)   # the inputs it was called with, when known
    ran: bool = False                             # its kernel was interpreted
    axis_uses: list[AxisUse] = field(default_factory=list)   # program_id / num_programs seen running it
    # Its kernel has loops with static bounds or `lax.cond`s on static predicates: a
    # replay, which unrolls and decides them, may count what its first run could not.
    replay_helps: bool = False

    def loc(self) -> Loc | None:
        return self.frame.loc(self.node) if self.node is not None else None


@dataclass(eq=False)
class PallasCallable(DomainValue):
    """`pallas_call(kernel, ...)` awaiting its operands."""

    call: PallasCall


@dataclass(eq=False)
class BufferRef(ArrayRef):
    """A ref to an array buffer the kernel gets (a scratch buffer, an input or output
    block) or a view of one, with what is static of it (`pallas.buffers`)."""

    dims: tuple                   # the leading dims: ints, the name of a length that is not static, or "?"
    open: bool                    # more dims, of unknown number, follow (a whole input array)
    dtype: str | None             # the dtype's name ("float32") when static
    decl: Loc | None = None       # where it is declared (a scratch type, a spec, out_shape)
    space: str | None = None      # "VMEM", "SMEM", "ANY", ... where certain
    view: bool = False            # `x_ref.at[...]`

    def described(self) -> str:
        """`a VMEM ref of f32[16, 128]` (as far as it is known)."""
        ref = f"a {self.space} ref" if self.space else "a ref"
        if self.open and not self.dims and self.dtype is None:
            return ref
        dtype = by_name(self.dtype) if self.dtype is not None else None
        dims = ", ".join(map(str, (*self.dims, *(("...",) if self.open else ()))))
        return f"{ref} of {short(dtype) if dtype else '?'}[{dims}]"

    def signature(self) -> Any:
        """A fresh one each time a kernel runs: alike by what is known."""
        return ("B", self.dims, self.open, self.dtype, self.space, self.view,
                id(self.decl.node) if self.decl is not None else None)

    def stable_signature(self) -> Any:
        """Alike by what is known: where it is declared only names it in findings, which
        a remembered call has none of."""
        return (BufferRef, self.dims, self.open, self.dtype, self.space, self.view)


@dataclass(eq=False)
class AtProperty(DomainValue):
    """`sems.at` / `x_ref.at`: indexed with `[...]` it makes a view (`pallas.indexing`,
    `pallas.buffers`)."""

    ref: Any                      # the Sem or BufferRef


@dataclass(eq=False)
class DescriptorCall(DomainValue):
    """A bound method of a DMA descriptor (`desc.start`)."""

    descriptor: Any
    method: DescriptorMethod


@dataclass(eq=False)
class WhenDecorator(DomainValue):
    condition: bool | None        # static truth of the condition, when known


@dataclass(eq=False)
class LoopDecorator(DomainValue):
    """`pl.loop(lower, upper, step=...)`, awaiting its body."""

    lower: Any
    upper: Any
    step: Any


@dataclass(eq=False)
class WithScopedDecorator(DomainValue):
    types: list
    kwtypes: dict


@dataclass(eq=False)
class WithScoped(DomainValue):
    func: Any
    refs: list
    kwrefs: dict


@dataclass(eq=False)
class CoreMapDecorator(DomainValue):
    scratch: Any                  # the scratch_shapes value (None when not given)


@dataclass(eq=False)
class Pipeline(DomainValue):
    body: Any


@dataclass(eq=False)
class Passthrough(DomainValue):
    """`jax.jit(...)` and friends used as a decorator factory: returns what it wraps."""


@dataclass(eq=False)
class ShardMapped(DomainValue):
    """`jax.shard_map(f, ...)` called at once: calling it traces `f` (`pallas/sharding.py`)."""

    func: Any


PALLAS_CALLABLES = (PallasCallable, DescriptorCall, WhenDecorator, LoopDecorator, WithScopedDecorator, WithScoped,
                    CoreMapDecorator, Pipeline, Passthrough, AtProperty, ShardMapped)


def function_nodes(value: Any, depth: int = 0) -> set[ast.AST]:
    """The defs a callable value stands for (through partials, choices, `with_scoped`)."""
    if depth > 4:
        return set()
    if isinstance(value, Func):
        node = value.node if value.node is not None else resolve_lazy(value)
        return {node} if node is not None else set()
    if isinstance(value, (Partial, WithScoped)):
        return function_nodes(value.func, depth + 1)
    if isinstance(value, Choice):
        out: set[ast.AST] = set()
        for o in value.options:
            out |= function_nodes(o, depth + 1)
        return out
    return set()
