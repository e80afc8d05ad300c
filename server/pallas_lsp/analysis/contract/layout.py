"""What a `pallas_call` passes to its kernel, computed once from its record: the refs in
order (`*scalar_prefetch, *inputs, *outputs, *scratch`), each with its spec and array,
and the kernel's own signature.  Every contract rule, the hover and the inlay hints read
this; anything the code does not decide is None (and the rules stay silent)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from ..interp.functions import resolve_lazy, signature_node
from ..pallas.registry import semaphore_member
from ..pallas.sems import SemType
from ..pallas.values import ArraySpecV, BlockSpecV, PallasCall
from ..records import record
from ..values import Api, Const, Func, Loc, Mapping, Partial, Seq, SeqTail, shape_text


@record(slots=True)
class MapDef:
    """An index map reduced to its definition (None: not a function of this module)."""

    node: ast.AST | None
    block: Any

    @staticmethod
    def of(value: Any) -> MapDef:
        if isinstance(value, Func) and value.path is None:
            return MapDef(value.node if value.node is not None else resolve_lazy(value), value.block)
        return MapDef(None, None)


class RefRole(Enum):
    SCALAR_PREFETCH = "scalar prefetch"
    INPUT = "input"
    OUTPUT = "output"
    SCRATCH = "scratch"


@record(slots=True)
class Ref:
    """One ref Pallas passes to the kernel."""

    role: RefRole
    index: int                 # 1-based within its role
    spec: Any = None           # the BlockSpecV (inputs / outputs) when known
    array: Any = None          # an ArraySpecV (output shapes, known operands) or a scratch type

    def detached(self) -> Ref:
        """This ref as kept after its entry has run (hover, inlay hints): an index map
        becomes its `def` / `lambda` (`MapDef`), so no closure, frame or other tree stays
        alive with it."""
        spec = self.spec
        if not isinstance(spec, BlockSpecV) or not isinstance(spec.index_map, (Func, Partial)):
            return self
        return replace(self, spec=replace(spec, index_map=MapDef.of(spec.index_map)))

    def describe(self) -> str:
        """`input 1: block (8, 128), index_map (i, j) -> (i, 0)`-like text for hover."""
        head = f"{self.role.value} {self.index}"
        parts = []
        if isinstance(self.array, SemType):
            kind = "semaphore" if self.array.kind == "?" else f"{self.array.kind} semaphore"
            parts.append(f"{kind} {'array ' + shape_text(self.array.dims) if self.array.dims else ''}".strip())
        elif isinstance(self.array, ArraySpecV):
            where = f"{self.array.space} " if self.array.space else ""
            dtype = f" {self.array.dtype}" if self.array.dtype else ""
            if self.array.shape is not None:
                parts.append(f"{where}array {shape_text(self.array.shape)}{dtype}")
        if isinstance(self.spec, BlockSpecV):
            if self.spec.block_shape is not None:
                parts.append(f"block {shape_text(self.spec.block_shape)}")
            if self.spec.memory_space:
                parts.append(f"in {self.spec.memory_space}")
        return head + (": " + ", ".join(parts) if parts else "")


@record
class KernelSignature:
    """The kernel as Pallas calls it: the positional parameters left after
    `functools.partial`, which Pallas fills from the front with its refs."""

    name: str
    node: ast.AST                      # the def (or lambda)
    loc: Loc
    params: tuple[str, ...]            # positional parameters, in order
    first_default: int                 # index in `params` of the first one with a default
    keyword_bound: frozenset[str]      # given by keyword through `functools.partial`
    varargs: bool                      # `*refs`: any number more
    missing_keywords: tuple[str, ...]  # keyword-only parameters with no default nor value
    partial_bound: tuple[str, ...] = ()  # parameters `functools.partial` fills positionally
    func: Any = None                     # the Func (its body, when a fix needs it)

    def overfilled(self, n: int) -> list[int]:
        """Indices of the refs (out of `n`) that no parameter takes."""
        return [] if self.varargs else list(range(len(self.params), n))

    def conflicts(self, n: int) -> list[str]:
        """Parameters that would get a ref and a keyword value at once."""
        return [p for p in self.params[:n] if p in self.keyword_bound]

    def unfilled(self, n: int) -> list[str]:
        """Parameters no ref, default or keyword fills (JAX: `missing ... argument`)."""
        return [p for i, p in enumerate(self.params) if i >= n and i < self.first_default
                and p not in self.keyword_bound]


@dataclass
class Layout:
    call: PallasCall
    refs: tuple[Ref, ...] | None       # positional refs in order; None: how many is unknown
    keyword_refs: tuple[str, ...]      # dict scratch: passed by keyword
    kernel: KernelSignature | None
    grid_rank: int | None
    n_prefetch: int | None
    specs: tuple | None = None         # (ref, BlockSpecV) pairs, once `rules.block_specs` ran


def leaves(value: Any) -> list[Any] | None:
    """The items of a list/tuple (one level), or None when it is not one."""
    return list(value.items) if isinstance(value, Seq) else None


def grid_rank(grid: Any) -> int | None:
    if grid is None:
        return 0
    if isinstance(grid, Seq):
        return len(grid.items)
    if isinstance(grid, Const) and type(grid.value) is int:
        return 1
    return None


def _outputs(call: PallasCall) -> list[Ref] | None:
    out = call.out_shape
    items = leaves(out)
    if items is not None:
        specs = leaves(call.out_specs)
        return [Ref(RefRole.OUTPUT, i + 1, specs[i] if specs is not None and len(specs) == len(items) else None,
                    item) for i, item in enumerate(items)]
    if isinstance(out, (ArraySpecV, SemType, Mapping)):
        spec = call.out_specs if isinstance(call.out_specs, BlockSpecV) else None
        return [Ref(RefRole.OUTPUT, 1, spec, out)]
    return None


def _inputs(call: PallasCall, n_prefetch: int | None) -> tuple[list[Ref], list[Ref]] | None:
    """(scalar prefetch refs, input refs), or None when their number is unknown."""
    if n_prefetch is None:
        return None
    specs = leaves(call.in_specs)
    operands = [a.value for a in call.operands] if call.operands is not None else None
    if operands is not None:
        n_inputs = len(operands) - n_prefetch
    elif specs is not None:
        n_inputs = len(specs)
    else:
        return None
    if n_inputs < 0:
        return None
    prefetch = [Ref(RefRole.SCALAR_PREFETCH, i + 1, None, operands[i] if operands else None)
                for i in range(n_prefetch)]
    inputs = [Ref(RefRole.INPUT, i + 1, specs[i] if specs is not None and len(specs) == n_inputs else None,
                  operands[n_prefetch + i] if operands else None) for i in range(n_inputs)]
    return prefetch, inputs


def _scratch_type(value: Any) -> Any:
    """A bare `SemaphoreType.DMA` as the declaration of one semaphore."""
    member = semaphore_member(value.qname) if isinstance(value, Api) else None
    return SemType(member, (), None) if member else value


def _scratch(call: PallasCall) -> tuple[list[Ref] | None, tuple[str, ...]]:
    scratch = call.scratch
    if isinstance(scratch, Seq):
        return [Ref(RefRole.SCRATCH, i + 1, None, _scratch_type(v)) for i, v in enumerate(scratch.items)], ()
    if isinstance(scratch, Mapping):
        return [], tuple(str(k) for k in scratch.items)
    if isinstance(scratch, SeqTail):
        return None, ()
    return None, ()


def kernel_signature(value: Any) -> KernelSignature | None:
    """The kernel's positional parameters, through `functools.partial` (None: not a plain def)."""
    bound_front, bound_names = 0, set()
    while isinstance(value, Partial):
        if any(not hasattr(a, "value") for a in value.args) or "**" in value.kwargs:
            return None
        bound_front += len(value.args)
        bound_names |= set(value.kwargs)
        value = value.func
    fnode: Any = signature_node(value) if isinstance(value, Func) and value.path is None else None
    if fnode is None:
        return None
    args = fnode.args
    positional = [p.arg for p in args.posonlyargs + args.args]
    first_default = len(positional) - len(args.defaults)
    missing = tuple(p.arg for p, d in zip(args.kwonlyargs, args.kw_defaults)
                    if d is None and p.arg not in bound_names)
    return KernelSignature(getattr(fnode, "name", "<lambda>"), fnode, Loc(value.block, fnode),
                           tuple(positional[bound_front:]), max(0, first_default - bound_front),
                           frozenset(bound_names), args.vararg is not None, missing,
                           tuple(positional[:bound_front]), value)


def refs_of(call: PallasCall) -> tuple[tuple[Ref, ...] | None, tuple[str, ...]]:
    """(the positional refs in order, or None when how many is unknown; dict scratch keys)."""
    ins = _inputs(call, call.num_scalar_prefetch)
    outs = _outputs(call)
    scratch, keyword_refs = _scratch(call)
    refs = None
    if ins is not None and outs is not None and scratch is not None:
        refs = tuple(ins[0] + ins[1] + outs + scratch)
    return refs, keyword_refs


def layout_of(call: PallasCall) -> Layout:
    refs, keyword_refs = refs_of(call)
    return Layout(call, refs, keyword_refs, kernel_signature(call.kernel), grid_rank(call.grid),
                  call.num_scalar_prefetch)
