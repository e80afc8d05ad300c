"""PAL306, revisited output blocks: an output's `index_map` that ignores a grid axis writes
the same block at every step along it.  That is only legal for an "arbitrary" axis that
comes after every axis the map uses (a reduction axis, last): an ignored "parallel" axis
has cores race on the block, and an ignored axis before a used one comes back to a block
it left (JAX's TPU interpreter: `Revisited block ... of output ...`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..pallas.values import CompilerParamsV
from ..report import ContractFinding, ContractNote
from ..values import Api, Const, Seq
from .layout import Layout
from .rules import axes_used, spec_leaves


def grid_sizes(grid: Any) -> list[int | None] | None:
    if isinstance(grid, Const) and type(grid.value) is int:
        return [grid.value]
    if not isinstance(grid, Seq):
        return None
    return [g.value if isinstance(g, Const) and type(g.value) is int else None for g in grid.items]


def _semantics(params: Any, rank: int) -> list[str | None]:
    """"parallel" / "arbitrary" / None (unknown) per axis."""
    sem = params.dimension_semantics if isinstance(params, CompilerParamsV) else None
    if not isinstance(sem, Seq) or len(sem.items) != rank:
        return [None] * rank
    out: list[str | None] = []
    for item in sem.items:
        text = item.value if isinstance(item, Const) and isinstance(item.value, str) else \
            item.qname.rsplit(".", 1)[-1] if isinstance(item, Api) else None
        out.append(text.lower() if text else None)
    return out


def revisited_outputs(layout: Layout) -> Iterator[ContractFinding]:
    rank = layout.grid_rank
    sizes = grid_sizes(layout.call.grid) if rank else None
    if not rank or sizes is None:
        return
    semantics = _semantics(layout.call.compiler_params, rank)
    for spec in spec_leaves(layout.call.out_specs):
        read = axes_used(spec, rank)
        if read is None or spec.loc is None or spec.loc.path is not None:
            continue
        params, used = read
        for axis, name in enumerate(params):
            if name in used or not (sizes[axis] or 0) > 1:
                continue
            message = _why(axis, name, params, used, sizes, semantics[axis])
            if message:
                yield ContractFinding("PAL306", spec.loc, message, _notes(layout))
                break


def _why(axis: int, name: str, params: list[str], used: set[str], sizes: list, semantics: str | None) -> str | None:
    where = f"grid axis {axis} (`{name}`, {sizes[axis]} steps)"
    if semantics == "parallel":
        return (f"Output block revisited: its index_map ignores {where}, marked \"parallel\": the steps along it, "
                "spread over cores, all write the same block and race on it. Index the output by the axis, or "
                "mark it \"arbitrary\" and make it the last axis.")
    later = [b for b in range(axis + 1, len(params)) if params[b] in used and (sizes[b] is None or sizes[b] > 1)]
    if later:
        return (f"Output block revisited: its index_map ignores {where} but uses the later axis {later[0]} "
                f"(`{params[later[0]]}`): the grid comes back to a block after leaving it, and the block written "
                "first is lost (JAX's TPU interpreter: `Revisited block ... of output ...`). Make the ignored "
                "(reduction) axis the last one.")
    return None


def _notes(layout: Layout) -> tuple[ContractNote, ...]:
    loc = layout.call.loc()
    return (ContractNote(loc, "the pallas_call and its grid"),) if loc is not None else ()
