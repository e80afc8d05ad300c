"""What a `pallas_call` (or `pl.kernel`) is made of, for hover: its grid, one row per
operand (kernel parameter, array, block, memory space, index map) and the VMEM its
blocks and scratch take.  Information, not a verdict: where the code does not give a
size, the summary says so instead of guessing.

VMEM as Pallas's TPU lowering allocates it (`jax/_src/pallas/mosaic/lowering.py`, the
`window_params` of each operand): a block in VMEM (the default memory space) is double
buffered, unless its window is trivial (the block is the whole array and its index map
returns literal zeros: `has_trivial_window`, one buffer) or its `pipeline_mode` says
otherwise (`pl.Buffered(1)` or `(2)`); `ANY` / `HBM` operands stay where they are,
`SMEM` blocks and scalar-prefetch operands are in SMEM; a scratch buffer is allocated
once in its space, and semaphores are not memory.  `pl.kernel` blocks nothing: its
operands stay in HBM, and only its scratch takes VMEM.  Sizes are logical (shape times
element size), before Mosaic pads a block to its tiles."""

from __future__ import annotations

import ast
import math

from typing import Any

from ..pallas.model import Binding, Invoker
from ..pallas.values import ArraySpecV, BlockSpecV, CompilerParamsV
from ..records import record
from ..report import loc_span
from ..pallas.sems import SemType
from ..values import Api, Const, Loc, Mapping
from .layout import Layout, Ref, RefRole, leaves
from .rules import index_map_def
from .tiling import bitwidth

VMEM = "VMEM"
_SPACES = {"VMEM", "SMEM", "ANY", "HBM", "VMEM_SHARED", "SEMAPHORE"}


@record
class Operand:
    """One ref the kernel gets, as far as the code gives it."""

    role: RefRole
    index: int                    # 1-based within its role
    param: str | None             # the kernel parameter that receives it
    shape: tuple | None           # the array's shape (ints, or source texts); None: unknown
    dtype: str | None             # the dtype's source text
    block: tuple | None           # the block shape as given (None: the whole array, or no block)
    space: str | None             # "VMEM", "SMEM", ..., "semaphore"; None: not known
    index_map: Loc | None = None  # the `index_map` argument
    buffers: int | None = 0       # VMEM buffers it takes (0: none; None: 1 or 2, not known)
    nbytes: int | None = None     # one buffer's bytes (None: not known)
    semaphore: SemType | None = None
    note: str | None = None       # why the buffer count is what it is, when not the usual

    @property
    def vmem(self) -> bool:
        return self.space == VMEM and self.buffers != 0


@record
class VmemTotal:
    """The VMEM an operand list takes: `nbytes` is exact when nothing else is counted."""

    nbytes: int
    unknown_size: int = 0      # VMEM operands whose size the code does not give
    unknown_buffers: int = 0   # VMEM blocks of 1 or 2 buffers (counted once in `nbytes`)
    unknown_space: int = 0     # operands in a memory space the code does not give (not counted)

    @property
    def exact(self) -> bool:
        return not (self.unknown_size or self.unknown_buffers or self.unknown_space)


@record
class CallSummary:
    """A `pallas_call` as the code gives it (AST locations: they follow the blocks)."""

    at: Loc                         # the callee's name (`pl.pallas_call`): where hover answers
    invoker: str                    # "pl.pallas_call", "pl.kernel", ...
    gridded: bool                   # a `pallas_call` (grid, specs), not a `pl.kernel` (a mesh)
    kernel: str | None              # the kernel's name
    grid: tuple | str | None        # static dims, else the grid's source text; None: not known
    semantics: tuple | str | None   # `dimension_semantics`, values or source text
    n_prefetch: int | None
    operands: tuple[Operand, ...] | None   # None: how many is not known
    total: VmemTotal | None

    def known(self) -> int:
        """How much of it the code gives (of two summaries of one call, hover shows the larger)."""
        rows = self.operands or ()
        return len(rows) * 4 + sum((r.shape is not None) + (r.dtype is not None) + (r.nbytes is not None)
                                   for r in rows)

    def content(self) -> tuple:
        """What the summary says, without where its values come from."""
        return (self.grid, self.semantics, self.n_prefetch, tuple(
            (r.param, r.shape, r.dtype, r.block, r.space, r.buffers, r.nbytes) for r in self.operands or ()))


@record(slots=True)
class CallFacts:
    """What a summary is made from, taken from a call's layout when its entry runs (cheap,
    and free of interpreter frames); the summary itself is computed only when asked for."""

    call: Loc                         # the `pallas_call(...)` call
    invoker: Invoker
    kernel: str | None
    params: tuple[str, ...]           # the kernel's positional parameters
    refs: tuple[Ref, ...] | None
    scratch: Any                      # dict scratch (a Mapping) adds rows passed by keyword
    whole_inputs: bool                # no `in_specs` / `out_specs`: each operand whole
    whole_outputs: bool
    grid: tuple | None                # static dims (() without a grid); None: see `grid_at`
    grid_at: Loc | None
    semantics: tuple | str | None     # `dimension_semantics`, values or source text
    n_prefetch: int | None


def call_facts(layout: Layout) -> CallFacts | None:
    """The facts of one call (None: a call made in another file)."""
    call = layout.call
    loc = call.loc()
    if loc is None or loc.path is not None or not isinstance(loc.node, ast.Call):
        return None
    sig = layout.kernel
    return CallFacts(loc, call.invoker, sig.name if sig is not None else None,
                     sig.params if sig is not None else (),
                     tuple(r.detached() for r in layout.refs) if layout.refs is not None else None,
                     call.scratch if isinstance(call.scratch, Mapping) else None, call.in_specs is None,
                     call.out_specs is None, _static_grid(call.grid), call.arg_locs.get("grid"),
                     _semantics(call.compiler_params), call.num_scalar_prefetch)


def summarize(facts: CallFacts) -> CallSummary:
    rows = _operands(facts)
    grid = facts.grid if facts.grid is not None else source_text(facts.grid_at)
    return CallSummary(Loc(facts.call.block, facts.call.node.func), facts.invoker.name,
                       facts.invoker.binding is Binding.PALLAS_CALL, facts.kernel, grid, facts.semantics,
                       facts.n_prefetch, rows, _total(rows) if rows is not None else None)


def summary_at(calls: list[CallFacts], live: set, line: int, col: int) -> tuple[CallSummary, int] | None:
    """The summary of the call whose name is at (line, col) (of several, the one the code
    says most about), with how many different ones the entries made (a call reached with
    other operands elsewhere)."""
    found = []
    for facts in calls:
        if facts.call.block in live:
            span = loc_span(Loc(facts.call.block, facts.call.node.func))
            if (span.line, span.col) <= (line, col) <= (span.end_line, span.end_col):
                found.append(summarize(facts))
    if not found:
        return None
    return max(found, key=CallSummary.known), len({s.content() for s in found})


# --------------------------------------------------------------------------- operands

def _operands(facts: CallFacts) -> tuple[Operand, ...] | None:
    refs = facts.refs
    if refs is None:
        return None
    names = list(facts.params) + [None] * (len(refs) - len(facts.params))
    blocked = facts.invoker.binding is Binding.PALLAS_CALL
    whole = {RefRole.INPUT: facts.whole_inputs, RefRole.OUTPUT: facts.whole_outputs}
    rows = [_operand(ref, name, blocked, whole.get(ref.role, False)) for ref, name in zip(refs, names)]
    if facts.scratch is not None:   # dict scratch: passed by keyword
        rows += [_scratch(Ref(RefRole.SCRATCH, i + 1, None, v), str(k))
                 for i, (k, v) in enumerate(facts.scratch.items.items())]
    return tuple(rows)


def _operand(ref: Ref, param: str | None, blocked: bool, whole: bool) -> Operand:
    if ref.role is RefRole.SCRATCH:
        return _scratch(ref, param)
    array = ref.array if isinstance(ref.array, ArraySpecV) else None
    shape, dtype = (array.shape, array.dtype) if array is not None else (None, None)
    if ref.role is RefRole.SCALAR_PREFETCH:
        return Operand(ref.role, ref.index, param, shape, dtype, None, "SMEM")
    if not blocked:   # `pl.kernel`: the operand is passed whole, in HBM
        return Operand(ref.role, ref.index, param, shape, dtype, None, "ANY")
    spec = ref.spec if isinstance(ref.spec, BlockSpecV) else None
    if spec is None and not whole:   # specs given, but not one we can pair with this ref
        return Operand(ref.role, ref.index, param, shape, dtype, None, None)
    space = spec.memory_space if spec is not None and spec.memory_space is not None else VMEM
    block = spec.block_shape if spec is not None else None
    dims = block if block is not None else shape
    nbytes = block_bytes(dims, dtype)
    buffers, note = _buffers(spec, shape) if space == VMEM else (0, None)
    return Operand(ref.role, ref.index, param, shape, dtype, block, space if space in _SPACES else None,
                   spec_argument(spec, 1, "index_map"), buffers, nbytes, None, note)


def _scratch(ref: Ref, param: str | None) -> Operand:
    value = ref.array
    if isinstance(value, SemType):
        return Operand(ref.role, ref.index, param, value.dims, None, None, "semaphore", semaphore=value)
    if not isinstance(value, ArraySpecV):
        return Operand(ref.role, ref.index, param, None, None, None, None)
    space = value.space if value.space in _SPACES else None
    return Operand(ref.role, ref.index, param, value.shape, value.dtype, None, space, None,
                   1 if space == VMEM else 0, block_bytes(value.shape, value.dtype))


def block_bytes(dims: tuple | None, dtype: str | None) -> int | None:
    """The bytes of an array of `dims` (None: squeezed, one) and `dtype` (None: not static)."""
    bits = bitwidth(dtype)
    if dims is None or bits is None or not all(d is None or type(d) is int for d in dims):
        return None
    return math.prod(1 if d is None else d for d in dims) * bits // 8


def _buffers(spec: BlockSpecV | None, shape: tuple | None) -> tuple[int | None, str | None]:
    """How many buffers Pallas gives a VMEM block (with why, when not two)."""
    mode = source_text(spec_argument(spec, 2, "pipeline_mode"))
    if mode is not None:
        return None, f"`pipeline_mode={mode}`"
    trivial = _trivial_window(spec, shape)
    if trivial is None:
        return None, "one buffer if the block is the whole array"
    return (1, "the whole array: one buffer") if trivial else (2, None)


def _trivial_window(spec: BlockSpecV | None, shape: tuple | None) -> bool | None:
    """JAX's `has_trivial_window`: the block is the whole array and the index map returns
    literal zeros (None: the code does not decide)."""
    block = spec.block_shape if spec is not None else None
    same = True if block is None else _same_shape(block, shape)   # no block shape: the whole array
    zeros = _zero_map(spec)
    if same is False or zeros is False:
        return False
    return True if same and zeros else None


def _same_shape(block: tuple, shape: tuple | None) -> bool | None:
    if shape is None or not all(type(d) is int for d in shape) or not all(d is None or type(d) is int for d in block):
        return None
    return len(block) == len(shape) and all((1 if b is None else b) == d for b, d in zip(block, shape))


def _zero_map(spec: BlockSpecV | None) -> bool | None:
    """Whether the index map returns literal zeros only (no index map: it does)."""
    if spec is None or spec.index_map is None:
        return True
    node = index_map_def(spec)
    if not isinstance(node, (ast.Lambda, ast.FunctionDef)):
        return None
    params = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
    results = [node.body] if isinstance(node, ast.Lambda) else \
        [r.value for r in ast.walk(node) if isinstance(r, ast.Return)]
    verdicts = {_zeros(r, params) for r in results}
    return verdicts.pop() if len(verdicts) == 1 else None


def _zeros(expr: ast.expr | None, params: set[str]) -> bool | None:
    if expr is None:
        return None
    items = expr.elts if isinstance(expr, (ast.Tuple, ast.List)) else [expr]
    if any(isinstance(e, ast.Starred) for e in items):
        return None
    if all(isinstance(e, ast.Constant) and e.value == 0 and type(e.value) is int for e in items):
        return True
    for e in items:
        if isinstance(e, ast.Constant) or any(isinstance(n, ast.Name) and n.id in params for n in ast.walk(e)):
            return False   # another literal, or a value traced from the grid indices
    return None


def _total(rows: tuple[Operand, ...]) -> VmemTotal:
    nbytes = size = buffers = space = 0
    for r in rows:
        if r.space is None:
            space += 1
        elif not r.vmem:
            continue
        elif r.nbytes is None:
            size += 1
        else:
            nbytes += r.nbytes * (r.buffers or 1)
            buffers += r.buffers is None
    return VmemTotal(nbytes, size, buffers, space)


# --------------------------------------------------------------------------- grid

def _static_grid(grid: Any) -> tuple | None:
    if grid is None:
        return ()
    if isinstance(grid, Const) and type(grid.value) is int:
        return (grid.value,)
    items = leaves(grid)
    if items is not None and all(isinstance(i, Const) and type(i.value) is int for i in items):
        return tuple(i.value for i in items)
    return None


def _semantics(params: Any) -> tuple | str | None:
    if not isinstance(params, CompilerParamsV) or params.dimension_semantics is None:
        return None
    items = leaves(params.dimension_semantics)
    if items is not None and all(isinstance(i, (Const, Api)) for i in items):
        return tuple(i.qname.rsplit(".", 1)[-1].lower() if isinstance(i, Api) else str(i.value) for i in items)
    return source_text(params.semantics_loc)


def spec_argument(spec: BlockSpecV | None, i: int, name: str) -> Loc | None:
    """The argument of a `pl.BlockSpec(...)` call given at position `i` or as `name`."""
    loc = spec.loc if spec is not None else None
    if loc is None or not isinstance(loc.node, ast.Call):
        return None
    node = loc.node
    if i < len(node.args) and not any(isinstance(a, ast.Starred) for a in node.args[:i + 1]):
        return Loc(loc.block, node.args[i])
    given = next((k.value for k in node.keywords if k.arg == name), None)
    return Loc(loc.block, given) if given is not None else None


def source_text(loc: Loc | None) -> str | None:
    """The source text of an argument (a keyword's value)."""
    if loc is None or not isinstance(loc.node, (ast.keyword, ast.expr)):
        return None
    node = loc.node.value if isinstance(loc.node, ast.keyword) else loc.node
    return loc.block.segment(node)
