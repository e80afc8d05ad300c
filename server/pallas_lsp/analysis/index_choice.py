"""Which index the quick fix gives a semaphore array passed whole, and whether it is certain.

A wrong index does not fail: the kernel signals one semaphore and waits on another, and
hangs.  So the fix is *safe* (applied by `check --fix` and fix-all) only when the index
is certain:

* the array has one semaphore per missing dimension (`(1,)`): `.at[0]`;
* a remote copy whose other semaphore argument (another array) is fully indexed: the
  same index;
* the same call's other `.at[...]` agree on one slot, the DMA's destination's
  (`make_async_copy(src.at[slot], dst.at[slot], sems)`: `slot`); at a helper call, the
  other `.at[...]` agree and no other argument looks like a slot;
  (these two only when the array's other `.at[...]` in the function, if any, include it;)
* the enclosing loop variable, when every other `.at[...]` of the array in the function
  uses exactly that index (and nothing in the call says otherwise).

Otherwise the fix is a *choice* among the plausible indices, most plausible first: the
same call's other indices, the helper call's slot-like arguments (`_fetch(..., sems,
page, 1 - slot)`: `1 - slot`), the indices the array gets elsewhere in the function
(nearest first), the loop variable, `0`, the other slots of a short array.
"""

from __future__ import annotations

import ast
import re

from typing import Any

from .caches import CACHES
from .pallas.indexing import at_base, index_elts, is_at
from .pallas.model import CheckedCall
from .pallas.registry import REGISTRY
from .records import record

MAX_CHOICES = 4

Index = tuple[str, ...]


@record
class IndexSuggestion:
    index: Index                          # the safe index, or the first choice
    safe: bool
    alternatives: tuple[Index, ...] = ()  # the other choices (none when safe)


def suggest_index(raw: Any, rank: int) -> IndexSuggestion:
    """The index (one entry per missing dimension) for the finding `raw`."""
    at_node = raw.at.node
    seg = raw.at.block.segment
    existing = tuple(seg(e) for e in index_elts(at_node)) if is_at(at_node) else ()
    if all(d == 1 for d in raw.sem.dims):
        return IndexSuggestion(("0",) * rank, True)
    sibling = _sibling_index(raw, at_node, rank)
    neighbours = _neighbour_slots(raw, at_node, set(existing))
    helper_args = _helper_slot_args(raw, at_node) if raw.via is not None else []
    uses = _other_uses(raw, rank, existing)
    loop = raw.context.loop_var
    if not existing:
        by_dst = raw.via is not None or _dst_slot(raw, neighbours)
        certain = _certain(rank, sibling, neighbours, by_dst, helper_args, uses, loop)
        if certain is not None:
            return IndexSuggestion(certain, True)
    pad = ("0",) * (rank - 1)
    near = [(n, *pad) for n in neighbours] + [(a, *pad) for a in helper_args]
    found = [*sibling, *(uses + near if rank > 1 else near + uses)]
    if loop and loop not in existing:
        found.append((loop, *pad))
    found.append(("0",) * rank)
    if rank == 1 and isinstance(raw.sem.dims[0], int):   # the other slots of a short array
        found += [(str(k),) for k in range(1, min(raw.sem.dims[0], MAX_CHOICES))]
    choices = list(dict.fromkeys(found))[:MAX_CHOICES]
    return IndexSuggestion(choices[0], False, tuple(choices[1:]))


def _certain(rank: int, sibling: list[Index], neighbours: list[str], by_dst: bool,
             helper_args: list[str], uses: list[Index], loop: str | None) -> Index | None:
    """The index when it is certain (the rules of the module's docstring), else None."""
    if sibling and (not uses or sibling[0] in uses):
        return sibling[0]
    slot = (neighbours[0],) if len(neighbours) == 1 else None
    if rank == 1 and slot and set(helper_args) <= set(neighbours) and by_dst and (not uses or slot in uses):
        return slot
    if loop and uses and len(set(uses)) == 1 and set(neighbours) | set(helper_args) <= {loop}:
        (use,) = set(uses)
        if loop in use and all(e == loop or e.isdigit() for e in use):
            return use
    return None


def _remote_semaphore_positions() -> dict[str, int]:
    spec = REGISTRY["pltpu.make_async_remote_copy"]
    assert isinstance(spec, CheckedCall)
    return {p.name: spec.position(p.name) for p in spec.sems}


_REMOTE_SEM_POSITIONS = _remote_semaphore_positions()   # {"recv_sem": 3, "send_sem": 2}


def _full_index(node: ast.Subscript, seg: Any, slice_names: frozenset[str]) -> Index | None:
    """The texts of an `.at[...]`'s indices, or None when one keeps a dimension."""
    elts = index_elts(node)
    for e in elts:
        if isinstance(e, (ast.Slice, ast.Starred, ast.Call)):
            return None
        if isinstance(e, ast.Name) and e.id in slice_names:
            return None
    texts = tuple(seg(e) for e in elts)
    return None if any("\n" in t for t in texts) else texts


def _sibling_index(raw: Any, at_node: ast.expr, rank: int) -> list[Index]:
    """For a remote copy, the full index the other semaphore argument uses (send_sem and
    recv_sem are usually indexed alike)."""
    call = raw.call.node if raw.call is not None else None
    if not raw.remote or not isinstance(call, ast.Call) or is_at(at_node):
        return []
    positions = _REMOTE_SEM_POSITIONS.values()
    sems = [a for i, a in enumerate(call.args) if i in positions]
    sems += [k.value for k in call.keywords if k.arg in _REMOTE_SEM_POSITIONS]
    out = []
    text = raw.at.block.segment(at_node)
    for a in sems:   # another array: the same one needs another index
        if a is not at_node and is_at(a) and raw.call.block.segment(at_base(a)) != text:
            index = _full_index(a, raw.call.block.segment, frozenset())
            if index is not None and len(index) == rank:
                out.append(index)
    return out


def _call_args(call: ast.Call, at_node: ast.expr) -> list[ast.expr]:
    """The call's arguments, those nearest the semaphore first: before it (nearest first),
    after it, keywords; for a keyword semaphore, `dst_ref` and `src_ref` first."""
    args = list(call.args)
    pos = next((i for i, a in enumerate(args) if a is at_node), len(args))
    order = list(reversed(args[:pos])) + args[pos + 1:] + [k.value for k in call.keywords]
    if any(k.value is at_node for k in call.keywords):
        by_name = {k.arg: k.value for k in call.keywords}
        order = [by_name[n] for n in ("dst_ref", "src_ref") if n in by_name] + order
    return [a for a in order if a is not at_node]


def _neighbour_slots(raw: Any, at_node: ast.expr, existing: set[str]) -> list[str]:
    """The distinct first indices of the call's other `.at[...]` (slots, not slices)."""
    call = raw.call.node if raw.call is not None else None
    if not isinstance(call, ast.Call):
        return []
    out: list[str] = []
    for a in _call_args(call, at_node):
        if not is_at(a):
            continue
        first = index_elts(a)[0]
        if isinstance(first, (ast.Slice, ast.Starred, ast.Call)):
            continue  # pl.ds(...) and slices keep the dimension: not a slot
        if isinstance(first, ast.Name) and first.id in raw.context.slice_names:
            continue
        text = raw.call.block.segment(first)
        if text not in existing and "\n" not in text and text not in out:
            out.append(text)
    return out


def _dst_slot(raw: Any, neighbours: list[str]) -> bool:
    """Whether a DMA's destination (`dst_ref`) is indexed with the call's only slot: an
    index on the source alone is often a page or a step, not the buffer's slot."""
    if len(neighbours) != 1:   # (the call's other `.at[...]` made the neighbours: a call)
        return False
    call = raw.call.node
    dst = next((k.value for k in call.keywords if k.arg == "dst_ref"),
               call.args[1] if len(call.args) > 2 else None)
    return is_at(dst) and raw.call.block.segment(index_elts(dst)[0]) == neighbours[0]


_SLOT_NAME = re.compile(r"slot|idx|index|^[ijk]$", re.IGNORECASE)


def _helper_slot_args(raw: Any, at_node: ast.expr) -> list[str]:
    """The arguments of the helper call that look like a slot: an integer, arithmetic on
    names (`1 - slot`), a name like `slot` or one the function uses as an index."""
    call = raw.call.node if raw.call is not None else None
    if not isinstance(call, ast.Call):
        return []
    index_names = {n.id for node in ast.walk(_scope(raw)) if is_at(node)
                   for e in index_elts(node) for n in ast.walk(e) if isinstance(n, ast.Name)}
    out: list[str] = []
    for a in _call_args(call, at_node):
        if isinstance(a, ast.Constant):
            ok = isinstance(a.value, int) and not isinstance(a.value, bool)
        elif isinstance(a, (ast.BinOp, ast.UnaryOp)):
            ok = not any(isinstance(n, (ast.Subscript, ast.Call, ast.Attribute)) for n in ast.walk(a))
        elif isinstance(a, ast.Name):
            ok = (a.id in index_names or bool(_SLOT_NAME.search(a.id))) and a.id not in raw.context.slice_names
        else:
            ok = False
        text = raw.call.block.segment(a)
        if ok and "\n" not in text and text not in out:
            out.append(text)
    return out


def _scope(raw: Any) -> ast.AST:
    """The outermost function holding the reported expression (or its whole block)."""
    tree, node = raw.at.block.tree, raw.at.node
    if tree is None:
        return node
    defs = [n for n in _views_and_defs(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.lineno <= node.lineno <= (n.end_lineno or n.lineno)]
    return min(defs, key=lambda n: (n.lineno, -(n.end_lineno or 0))) if defs else tree


def _views_and_defs(tree: ast.AST) -> list[ast.AST]:
    """The `.at[...]` views and the functions of a tree, in `ast.walk` order (memoised:
    a block with many findings is walked once)."""
    found = CACHES.views_and_defs.get(tree)
    if found is None:
        found = CACHES.views_and_defs[tree] = [
            n for n in ast.walk(tree) if is_at(n) or isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return found


def _other_uses(raw: Any, rank: int, existing: Index) -> list[Index]:
    """The indices the same array gets in its other `.at[...]` in the function (for a
    partly indexed view, what they add after the same leading indices first), nearest
    first."""
    at_node = raw.at.node
    base = at_base(at_node) if is_at(at_node) else at_node
    seg = raw.at.block.segment
    text = seg(base)
    found = []
    scope = _scope(raw)
    first, last = getattr(scope, "lineno", 0), getattr(scope, "end_lineno", None)
    for node in _views_and_defs(raw.at.block.tree) if raw.at.block.tree is not None else ast.walk(scope):
        if last is not None and not first <= getattr(node, "lineno", first) <= last:
            continue
        if node is at_node or not is_at(node) or seg(at_base(node)) != text:
            continue
        index = _full_index(node, seg, raw.context.slice_names)
        if index is None or len(index) != len(existing) + rank:
            continue
        other_prefix = index[:len(existing)] != existing
        found.append((other_prefix, abs(node.lineno - at_node.lineno), index[len(existing):]))
    found.sort(key=lambda f: (f[0], f[1]))
    return list(dict.fromkeys(index for _, _, index in found))
