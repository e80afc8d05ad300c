"""The `pallas_call` contract, rule by rule, each exactly as JAX judges it (the corpus in
`tests/contract/` holds JAX's verdict for every case).  A rule reports only what the
code decides: unknown shapes, counts or ranks give silence."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

from ..interp.functions import resolve_lazy
from ..pallas.values import ArraySpecV, BlockSpecV, CompilerParamsV
from ..report import ContractFinding, ContractNote
from ..values import Func, Loc, Mapping, Seq, shape_text
from .layout import Layout, MapDef, Ref, RefRole, leaves
from .suggest import add_parameters, remove_parameters, semantics_fixes


def _plural(n: int, word: str) -> str:
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word[:-1]}ices" if word.endswith("index") else f"{n} {word}s"


def _call_note(layout: Layout, what: str = "the pallas_call") -> tuple[ContractNote, ...]:
    loc = layout.call.loc()
    return (ContractNote(loc, what),) if loc is not None else ()


# --------------------------------------------------------------------------- PAL101

def kernel_arity(layout: Layout) -> Iterator[ContractFinding]:
    """The kernel's positional parameters against the refs Pallas passes."""
    sig, refs = layout.kernel, layout.refs
    if sig is None or refs is None or layout.keyword_refs:
        return
    n = len(refs)
    extra, conflicts, missing = sig.overfilled(n), sig.conflicts(n), sig.unfilled(n)
    if not (extra or conflicts or missing):
        return
    bound = f" (after `functools.partial` binds {', '.join(f'`{p}`' for p in sig.partial_bound)})" \
        if sig.partial_bound else ""
    head = (f"`{sig.name}` takes {_plural(len(sig.params), 'positional parameter')}{bound} but the pallas_call "
            f"passes {_plural(n, 'ref')} ({'; '.join(_ref_summary(refs)) or 'none'}): ")
    fixes: tuple = ()
    if extra:
        names = [_ref_name(refs[i]) for i in extra]
        tail = f"{', '.join(names)} {'have' if len(names) > 1 else 'has'} no parameter. Add one, or drop it."
        fixes = add_parameters(sig, refs)
    elif conflicts:
        tail = (f"{', '.join(f'`{c}`' for c in conflicts)} would get a ref and the keyword value "
                "`functools.partial` gives it.")
    else:
        tail = (f"{', '.join(f'`{m}`' for m in missing)} {'get' if len(missing) > 1 else 'gets'} nothing. Is a "
                "scratch entry (a semaphore?) missing from `scratch_shapes`, or an output from `out_shape`?")
        fixes = remove_parameters(sig, missing)
    pairs = [f"`{p}` ← {_ref_name(r)}" for p, r in zip(sig.params, refs)]
    binding = f" Pallas binds {', '.join(pairs)}." if pairs else ""
    yield ContractFinding("PAL101", sig.loc, f"Kernel parameters do not match the refs: {head}{tail}{binding}",
                          _call_note(layout), fixes)


def _ref_name(ref: Ref) -> str:
    return f"{ref.role.value} {ref.index}"


def _ref_summary(refs: tuple[Ref, ...]) -> list[str]:
    counts: dict[RefRole, int] = {}
    for r in refs:
        counts[r.role] = counts.get(r.role, 0) + 1
    return [_plural(k, role.value) if role is not RefRole.SCRATCH else f"{k} scratch"
            for role, k in counts.items()]


# --------------------------------------------------------------------------- PAL102-PAL104

def block_specs(layout: Layout) -> tuple[tuple[Ref, BlockSpecV], ...]:
    """Every BlockSpec of the call, with the ref it describes when that is known
    (computed once per layout: every grid rule reads it)."""
    if layout.specs is None:
        out = []
        known = set()
        for ref in layout.refs or ():
            if isinstance(ref.spec, BlockSpecV):
                known.add(id(ref.spec))
                out.append((ref, ref.spec))
        for value in (layout.call.in_specs, layout.call.out_specs):   # nested ones too
            for spec in spec_leaves(value):
                if id(spec) not in known:
                    known.add(id(spec))
                    out.append((Ref(RefRole.INPUT, 0), spec))
        layout.specs = tuple(out)
    return layout.specs


def spec_leaves(value: Any, depth: int = 0) -> Iterator[BlockSpecV]:
    if isinstance(value, BlockSpecV):
        yield value
    elif isinstance(value, Seq) and depth < 4:
        for item in value.items:
            yield from spec_leaves(item, depth + 1)
    elif isinstance(value, Mapping) and depth < 4:
        for item in value.items.values():
            yield from spec_leaves(item, depth + 1)


def index_map_def(spec: BlockSpecV) -> ast.AST | None:
    f = spec.index_map
    if isinstance(f, MapDef):
        return f.node
    if not isinstance(f, Func) or f.path is not None:
        return None
    return f.node if f.node is not None else resolve_lazy(f)


def axes_used(spec: BlockSpecV, rank: int) -> tuple[list[str], set[str]] | None:
    """The map's grid-index parameters and the names its body uses (None: not readable)."""
    node: Any = index_map_def(spec)
    if node is None:
        return None
    args = node.args
    params = [a.arg for a in args.posonlyargs + args.args]
    if args.vararg is not None or len(params) < rank:
        return None
    body = node.body if isinstance(node, ast.Lambda) else node
    used = {n.id for n in ast.walk(body) if isinstance(n, ast.Name)}
    return params[:rank], used


def _map_loc(spec: BlockSpecV) -> Loc | None:
    """Where an index map's mistake is reported: a named def's header, else the BlockSpec."""
    node = index_map_def(spec)
    if isinstance(node, ast.FunctionDef):
        return Loc(spec.index_map.block, node)
    return spec.loc


def index_map_arity(layout: Layout) -> Iterator[ContractFinding]:
    rank, n_prefetch = layout.grid_rank, layout.n_prefetch
    if rank is None or n_prefetch is None:
        return
    expected = rank + n_prefetch
    for _, spec in block_specs(layout):
        node = index_map_def(spec)
        loc = _map_loc(spec)
        if node is None or loc is None or loc.path is not None:
            continue
        args = node.args  # type: ignore[attr-defined]
        positional = len(args.posonlyargs) + len(args.args)
        required = positional - len(args.defaults)
        if required <= expected and (expected <= positional or args.vararg is not None):
            continue
        passes = f"{_plural(rank, 'grid index')}" + (f" and {_plural(n_prefetch, 'scalar-prefetch ref')}"
                                                      if n_prefetch else "")
        yield ContractFinding(
            "PAL102", loc,
            f"The index map takes {_plural(positional, 'argument')} but Pallas calls it with {expected}: "
            f"{passes} (grid of rank {rank}). JAX raises a TypeError when it traces the call.",
            _call_note(layout))


def _returned_length(node: ast.AST) -> int | None:
    """How many values an index map returns, when every return is a tuple literal."""
    returned = [node.body] if isinstance(node, ast.Lambda) else \
        [n.value for n in ast.walk(node) if isinstance(n, ast.Return)]
    lengths = set()
    for value in returned:
        if not isinstance(value, ast.Tuple) or any(isinstance(e, ast.Starred) for e in value.elts):
            return None
        lengths.add(len(value.elts))
    return lengths.pop() if len(lengths) == 1 else None


def index_map_results(layout: Layout) -> Iterator[ContractFinding]:
    for _, spec in block_specs(layout):
        node, loc = index_map_def(spec), _map_loc(spec)
        if node is None or loc is None or spec.block_shape is None:
            continue
        n = _returned_length(node)
        rank = len(spec.block_shape)
        if n is None or n == rank:
            continue
        yield ContractFinding(
            "PAL103", loc,
            f"Index map function must return {rank} values to match block_shape={shape_text(spec.block_shape)}. "
            f"Currently returning {n} values: one block index per dimension of the block.",
            _call_note(layout))


def _array_shape(ref: Ref) -> tuple | None:
    return ref.array.shape if isinstance(ref.array, ArraySpecV) else None


def block_rank(layout: Layout) -> Iterator[ContractFinding]:
    for ref, spec in block_specs(layout):
        shape = _array_shape(ref)
        if spec.block_shape is None or shape is None or spec.loc is None:
            continue
        if len(spec.block_shape) == len(shape):
            continue
        yield ContractFinding(
            "PAL104", spec.loc,
            f"Block shape for {_ref_name(ref)} (= {shape_text(spec.block_shape)}) must have the same number of "
            f"dimensions as the array shape {shape_text(shape)}: a block of rank {len(spec.block_shape)} for an "
            f"array of rank {len(shape)} (use `None` for a dimension the kernel does not see).",
            _call_note(layout))


# --------------------------------------------------------------------------- PAL105

def _structure(value: Any) -> Any:
    """A pytree's structure: lists and tuples alike, dict keys, leaves as '*'."""
    if isinstance(value, Seq):
        return tuple(_structure(v) for v in value.items)
    if isinstance(value, Mapping):
        return {k: _structure(v) for k, v in value.items.items()}
    return "*"


def _known_tree(value: Any) -> bool:
    if isinstance(value, Seq):
        return all(_known_tree(v) for v in value.items)
    if isinstance(value, Mapping):
        return all(_known_tree(v) for v in value.items.values())
    return isinstance(value, (ArraySpecV, BlockSpecV))


def spec_trees(layout: Layout) -> Iterator[ContractFinding]:
    call = layout.call
    out_loc = call.arg_locs.get("out_specs")
    if out_loc is not None and _known_tree(call.out_specs) and _known_tree(call.out_shape) \
            and _structure(call.out_specs) != _structure(call.out_shape):
        yield ContractFinding(
            "PAL105", out_loc,
            f"Pytree for `out_specs` and `out_shape` do not match: `out_specs` is {_tree_text(call.out_specs)} but "
            f"`out_shape` is {_tree_text(call.out_shape)}; give one spec per output, in the same structure.",
            _call_note(layout))
    yield from _in_specs_count(layout)


def _tree_text(value: Any) -> str:
    if isinstance(value, Seq):
        return f"a {'list' if value.is_list else 'tuple'} of {len(value.items)}"
    if isinstance(value, Mapping):
        return f"a dict with keys {sorted(map(str, value.items))}"
    return "a single spec" if isinstance(value, BlockSpecV) else "a single array"


def _in_specs_count(layout: Layout) -> Iterator[ContractFinding]:
    call = layout.call
    loc = call.arg_locs.get("in_specs")
    specs = leaves(call.in_specs)
    if loc is None or call.operands is None or layout.n_prefetch is None:
        return
    n_inputs = len(call.operands) - layout.n_prefetch
    if isinstance(call.in_specs, BlockSpecV):
        yield ContractFinding("PAL105", loc, "`in_specs` must be a tuple or a list (one spec per input), "
                              "not a single BlockSpec.", _call_note(layout))
        return
    if specs is None or len(specs) == n_inputs or not all(isinstance(s, BlockSpecV) for s in specs):
        return
    node = loc.node
    if len(specs) > n_inputs and isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) == len(specs):
        loc = Loc(loc.block, node.elts[0] if layout.n_prefetch and n_inputs == len(specs) - layout.n_prefetch
                  else node.elts[n_inputs], loc.path)
    prefetch = (f" (with `num_scalar_prefetch={layout.n_prefetch}`, the first {layout.n_prefetch} operands are "
                "prefetched and take no spec)") if layout.n_prefetch else ""
    yield ContractFinding(
        "PAL105", loc,
        f"Pytree for `in_specs` and `inputs` do not match: {len(specs)} specs for {_plural(n_inputs, 'input')}"
        f"{prefetch}.", _call_note(layout))


# --------------------------------------------------------------------------- PAL106

def dimension_semantics(layout: Layout) -> Iterator[ContractFinding]:
    params = layout.call.compiler_params
    rank = layout.grid_rank
    if not isinstance(params, CompilerParamsV) or rank is None or params.semantics_loc is None:
        return
    sem = params.dimension_semantics
    if not isinstance(sem, Seq) or len(sem.items) == rank:
        return
    yield ContractFinding(
        "PAL106", params.semantics_loc,
        f"Length of grid does not match length of dimension semantics. len(grid)={rank}, "
        f"len(dimension_semantics)={len(sem.items)}: give one of \"parallel\" / \"arbitrary\" per grid axis.",
        _call_note(layout), semantics_fixes(params.semantics_loc, rank, _ignored_axes(layout, rank)))


def _ignored_axes(layout: Layout, rank: int) -> set[int]:
    """The grid axes some output's `index_map` does not use (not "parallel": PAL306)."""
    out: set[int] = set()
    for spec in spec_leaves(layout.call.out_specs):
        read = axes_used(spec, rank)
        if read is not None:
            out |= {axis for axis, name in enumerate(read[0]) if name not in read[1]}
    return out
