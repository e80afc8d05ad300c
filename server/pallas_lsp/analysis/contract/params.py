"""What Pallas binds to each kernel parameter, for hover, inlay hints and go to
definition: `sems` <- "scratch 2: DMA semaphore array (2,)", declared at its
`scratch_shapes` entry."""

from __future__ import annotations

import ast


from ..findings import Span
from ..pallas.sems import SemType
from ..pallas.values import ArraySpecV, BlockSpecV
from ..records import record
from ..report import loc_span
from ..values import Loc, shape_text
from .layout import Layout, Ref


@record(slots=True)
class ParamBinding:
    """A kernel parameter and the ref Pallas passes to it (AST locations: they follow the
    blocks when lines are inserted above)."""

    name: str
    arg: Loc                   # the parameter in the kernel's def
    ref: Ref
    grid_rank: int | None

    def note(self) -> ParamNote:
        """The binding in document coordinates, with its texts (made only when asked)."""
        target = _target(self.ref)
        return ParamNote(self.name, loc_span(self.arg), _label(self.ref),
                         f"`{self.name}` ← {_detail(self.ref, self.grid_rank)}",
                         loc_span(target) if target is not None else None,
                         target.path if target is not None else None)


@record
class ParamNote:
    """A `ParamBinding` in document coordinates."""

    name: str
    span: Span
    label: str
    detail: str
    target: Span | None
    target_path: str | None = None


def _target(ref: Ref) -> Loc | None:
    if isinstance(ref.array, SemType) and ref.array.decl is not None:
        return ref.array.decl
    if isinstance(ref.spec, BlockSpecV) and ref.spec.loc is not None:
        return ref.spec.loc
    if isinstance(ref.array, ArraySpecV) and ref.array.loc is not None:
        return ref.array.loc
    return None


def _label(ref: Ref) -> str:
    head = f"{ref.role.value} {ref.index}"
    if isinstance(ref.array, SemType):
        kind = ref.array.kind if ref.array.kind != "?" else "semaphore"
        return f"{head}, {kind} {shape_text(ref.array.dims)}" if ref.array.dims else f"{head}, {kind}"
    if isinstance(ref.spec, BlockSpecV) and ref.spec.block_shape is not None:
        return f"{head}, block {shape_text(ref.spec.block_shape)}"
    if isinstance(ref.array, ArraySpecV) and ref.array.shape is not None:
        return f"{head}, {shape_text(ref.array.shape)}"
    return head


def _detail(ref: Ref, grid_rank: int | None) -> str:
    lines = [ref.describe()]
    spec = ref.spec
    if isinstance(spec, BlockSpecV) and spec.index_map is not None:
        node = getattr(spec.index_map, "node", None)
        if isinstance(node, ast.Lambda) and spec.loc is not None:
            lines.append(f"index_map `{spec.loc.block.segment(node)}`")
    if grid_rank:
        lines.append(f"grid of rank {grid_rank}")
    return "; ".join(lines)


def parameter_bindings(layout: Layout) -> list[ParamBinding]:
    """One note per kernel parameter Pallas fills (none when the refs are not known)."""
    sig = layout.kernel
    if sig is None or layout.refs is None or sig.loc.path is not None:
        return []
    fnode = sig.node
    args = fnode.args  # type: ignore[attr-defined]
    by_name = {a.arg: a for a in args.posonlyargs + args.args}
    out = []
    for name, ref in zip(sig.params, layout.refs):
        arg = by_name.get(name)
        if arg is None:
            continue
        out.append(ParamBinding(name, Loc(sig.loc.block, arg), ref.detached(), layout.grid_rank))
    return out
