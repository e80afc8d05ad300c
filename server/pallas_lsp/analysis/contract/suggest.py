"""Fixes for contract findings, as edits on the code: padding `dimension_semantics`
(certain), rounding a block dimension, adding or removing a kernel parameter (choices)."""

from __future__ import annotations

import ast

from ..interp.functions import resolve_lazy
from ..pallas.sems import SemType
from ..report import ContractSuggestion, Edit
from ..values import Loc
from .layout import KernelSignature, Ref, RefRole


def _render(node: ast.Tuple | ast.List, items: list[str]) -> str:
    if isinstance(node, ast.List):
        return "[" + ", ".join(items) + "]"
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def _arbitrary(texts: list[str]) -> str:
    """`"arbitrary"` in the spelling the tuple already uses (`pltpu.ARBITRARY`, quotes)."""
    first = texts[0] if texts else '"parallel"'
    if first[:1] in "'\"":
        return f"{first[0]}arbitrary{first[0]}"
    head, _, _ = first.rpartition(".")
    return f"{head}.ARBITRARY" if head else '"arbitrary"'


def semantics_fixes(loc: Loc, rank: int, ignored: set[int]) -> tuple[ContractSuggestion, ...]:
    """Pad with "arbitrary" (certain), or keep the first `rank` entries (a choice), an axis
    an output ignores (`ignored`) made "arbitrary": a "parallel" one would race (PAL306)."""
    node = loc.node
    if not isinstance(node, (ast.Tuple, ast.List)) or any(isinstance(e, ast.Starred) for e in node.elts):
        return ()
    texts = [loc.block.segment(e) for e in node.elts]
    if len(texts) < rank:
        new = texts + [_arbitrary(texts)] * (rank - len(texts))
        return (ContractSuggestion(f"Pad dimension_semantics to the grid's {rank} axes: {_render(node, new)}",
                                   (Edit(loc, _render(node, new)),), safe=True),)
    new = [_arbitrary(texts) if axis in ignored and "parallel" in text.lower() else text
           for axis, text in enumerate(texts[:rank])]
    return (ContractSuggestion(f"Keep the first {rank}: {_render(node, new)}", (Edit(loc, _render(node, new)),)),)


def block_dim_fixes(loc: Loc | None, axis: int, unit: int, array_dim: int) -> tuple[ContractSuggestion, ...]:
    """Choices for one block dimension given as an integer literal in `BlockSpec((...), ...)`."""
    call = loc.node if loc is not None else None
    if loc is None or not isinstance(call, ast.Call):
        return ()
    shape = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "block_shape"), None)
    if not isinstance(shape, (ast.Tuple, ast.List)) or len(shape.elts) < -axis:
        return ()
    elt = shape.elts[axis]
    if not (isinstance(elt, ast.Constant) and type(elt.value) is int):
        return ()
    b = elt.value
    options = sorted({x for x in ((b // unit) * unit, (b // unit + 1) * unit, array_dim) if 0 < x <= array_dim})
    return tuple(ContractSuggestion(f"Use a block dimension of {x}" + (" (the whole array)" if x == array_dim else ""),
                                    (Edit(Loc(loc.block, elt, loc.path), str(x)),)) for x in options)


def _param_name(ref: Ref, taken: set[str]) -> str:
    if isinstance(ref.array, SemType):
        base = "sems" if ref.array.dims else "sem"
    else:
        base = {RefRole.INPUT: "in", RefRole.OUTPUT: "out", RefRole.SCRATCH: "scratch",
                RefRole.SCALAR_PREFETCH: "prefetch"}[ref.role] + f"{ref.index}_ref"
    name, i = base, 2
    while name in taken:
        name, i = f"{base}{i}", i + 1
    return name


def add_parameters(sig: KernelSignature, refs: tuple[Ref, ...]) -> tuple[ContractSuggestion, ...]:
    """Parameters for the refs the kernel has none for: the last refs (appended), or, when
    the counts say the scalar-prefetch refs were forgotten, those (inserted first)."""
    args = sig.node.args  # type: ignore[attr-defined]
    positional = args.posonlyargs + args.args
    if not positional or args.vararg is not None or sig.partial_bound:
        return ()   # (with functools.partial binding positions, the partial is the suspect)
    prefetch = [r for r in refs if r.role is RefRole.SCALAR_PREFETCH]
    leading = bool(prefetch) and len(sig.params) + len(prefetch) == len(refs)
    missing = prefetch if leading else list(refs[len(sig.params):])
    taken = {a.arg for a in positional + args.kwonlyargs}
    names = []
    for ref in missing:
        names.append(_param_name(ref, taken))
        taken.add(names[-1])
    block, path = sig.loc.block, sig.loc.path
    if leading:
        edit = Edit(Loc(block, positional[0], path), "".join(f"{n}, " for n in names), insert_before=True)
    else:
        edit = Edit(Loc(block, positional[-1], path), "".join(f", {n}" for n in names), insert_after=True)
    return (ContractSuggestion(f"Add kernel parameter{'s' if len(names) > 1 else ''} "
                               + ", ".join(f"`{n}` ({_ref_label(r)})" for n, r in zip(names, missing)), (edit,)),)


def _ref_label(ref: Ref) -> str:
    return f"{ref.role.value} {ref.index}"


def remove_parameters(sig: KernelSignature, missing: list[str]) -> tuple[ContractSuggestion, ...]:
    """Drop trailing parameters no ref fills (`def k(x, o, sem)` -> `def k(x, o)`)."""
    args = sig.node.args  # type: ignore[attr-defined]
    positional = args.posonlyargs + args.args
    names = [a.arg for a in positional]
    if args.defaults or args.vararg or args.kwonlyargs or names[-len(missing):] != missing \
            or len(missing) >= len(names):
        return ()
    body = sig.func.node if sig.func.node is not None else resolve_lazy(sig.func)   # the header alone has no body
    used = {n.id for n in ast.walk(body) if isinstance(n, ast.Name)} if body is not None else set(missing)
    if used & set(missing):
        return ()   # the body uses them: something must be passed, not the parameter dropped
    keep_last, last = positional[-len(missing) - 1], positional[-1]
    if keep_last.end_lineno != last.end_lineno:
        return ()
    gone = _TextRange(keep_last.end_lineno, keep_last.end_col_offset, last.end_col_offset)
    return (ContractSuggestion(f"Remove parameter{'s' if len(missing) > 1 else ''} "
                               + ", ".join(f"`{m}`" for m in missing), (Edit(Loc(sig.loc.block, gone, sig.loc.path), ""),)),)


class _TextRange(ast.AST):
    """A range of one line (byte columns, as `ast` counts them), for a `Loc`."""

    def __init__(self, lineno: int, col_offset: int, end_col_offset: int) -> None:
        super().__init__()
        self.lineno = self.end_lineno = lineno
        self.col_offset, self.end_col_offset = col_offset, end_col_offset
