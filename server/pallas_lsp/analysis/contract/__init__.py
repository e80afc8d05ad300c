"""The `pallas_call` contract (rules PAL101-PAL107, PAL201, PAL202): what a kernel, its
specs, its grid and its blocks must agree on before JAX accepts the call."""

from __future__ import annotations



from ..interp.frame import Evaluator
from ..pallas.model import Binding
from ..pallas.values import PallasCall
from ..records import record
from ..report import ContractFinding
from .grid_axes import grid_axes
from .layout import layout_of
from .params import ParamBinding, parameter_bindings
from .revisits import revisited_outputs
from .rules import (
    block_rank,
    dimension_semantics,
    index_map_arity,
    index_map_results,
    kernel_arity,
    spec_trees,
)
from .summary import CallFacts, call_facts
from .tiling import block_tiling

# The rules about the grid and the specs hold for `pallas_call`; `pl.kernel` (a mesh, no
# grid) shares only the kernel's arity.
# In JAX's order: one finding per place and rule family is kept, the first one.
_GRID_RULES = (index_map_arity, block_rank, index_map_results, spec_trees, dimension_semantics, block_tiling,
               revisited_outputs)


@record
class ContractResult:
    findings: tuple[ContractFinding, ...]
    bindings: tuple[ParamBinding, ...]     # what each kernel parameter receives
    calls: tuple[CallFacts, ...] = ()    # what each call's summary is made from (hover)


def check_calls(ev: Evaluator, calls: list[PallasCall]) -> ContractResult:
    """Every contract finding of the pallas_calls one entry saw (each call once), what
    their kernels' parameters receive, and what their summaries are made from."""
    out: list[ContractFinding] = []
    bindings: list[ParamBinding] = []
    facts: list[CallFacts] = []
    seen: set[int] = set()
    for call in calls:
        if id(call.node) in seen and call.operands is None:
            continue
        seen.add(id(call.node))
        layout = layout_of(call)
        bindings.extend(parameter_bindings(layout))
        made = call_facts(layout)
        if made is not None:
            facts.append(made)
        out.extend(kernel_arity(layout))
        if call.invoker.binding is Binding.PALLAS_CALL:
            for rule in _GRID_RULES:
                out.extend(rule(layout))
            out.extend(grid_axes(ev, layout))
    return ContractResult(tuple(out), tuple(bindings), tuple(facts))
