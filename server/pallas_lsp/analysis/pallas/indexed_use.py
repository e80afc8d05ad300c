"""Semaphore arrays known by their use.  A name whose value the code does not give (a ref
taken from an iterator over a list of unknown length, a parameter nobody calls with a
known value) is still known to be a semaphore array when the same binding is indexed
elsewhere and that view is given as a semaphore (`sems.at[slot]` to a DMA, to a helper
that gives its parameter to one, or named first: `recv_sem = sems.at[0]`): `x.at[i]` of
a `()` ref does not trace.  Its rank is the
number of indices.  A first run of an entry collects this evidence and the unknown names
given whole where a semaphore goes; when some name is both, the entry runs again with
those names as arrays (`Sem(kind="?", dims=("?",) * rank)`, `evidence` holding the
views), and the whole use is checked like any other (correct code needs no second run).

Only a name bound once in its function (a parameter, or one assignment; assignments of
`None` aside) qualifies, and a use is not judged against views on another branch of the
same `if` / `try` / conditional expression: configuration code may index a name only
where it is an array."""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..caches import CACHES
from ..interp.frame import Binding
from ..interp.syntax import parents as syntax_parents
from ..values import UNKNOWN, Loc, SliceV
from .indexing import at_base, index_elts, is_at
from .sems import Sem

MAX_VIEWS = 8   # views kept as evidence of one name


@dataclass(unsafe_hash=True)
class View:
    """`name.at[...]` given as a semaphore: the name is an array of this rank.  `via`:
    where the name was handed whole to the helper whose parameter this view indexes."""

    rank: int
    at: Loc
    via: Loc | None = None

    @property
    def place(self) -> Loc:
        """Where the view shows itself in the name's own function."""
        return self.via or self.at


@dataclass(unsafe_hash=True)
class Flow:
    """`source` given to `target` (a helper's parameter, or a name assigned it) at `at`:
    whole (`view` None), or as a view of it."""

    target: Binding
    source: Binding
    view: View | None
    at: Loc

    def __init__(self, target: Binding, source: Binding, view: View | None, at: Loc) -> None:   # native (`records`)
        self.target = target
        self.source = source
        self.view = view
        self.at = at


@dataclass
class Evidence:
    """What a first run of an entry saw: views given as semaphores, unknown names given
    whole as semaphores, and helper arguments and assignments that may be either."""

    views: dict[Binding, list[View]] = field(default_factory=dict)
    whole_uses: set[Binding] = field(default_factory=set)
    flows: list[Flow] = field(default_factory=list)     # to helpers' parameters
    aliases: list[Flow] = field(default_factory=list)   # to names: `recv_sem = sems.at[0]`
    notes: int = 0      # semaphore uses noted (a use noted again counts again)

    def note_semaphore(self, node: ast.AST | None, frame: Any, lookup: Any) -> None:
        """An unknown value given where a semaphore goes, written as `node`."""
        given = _given(node, frame, lookup)
        if given is None:
            return
        source, view = given
        self.notes += 1
        if view is None:
            self.whole_uses.add(source)
        else:
            self.views.setdefault(source, []).append(view)

    def note_argument(self, param: Binding, node: ast.AST | None, frame: Any, lookup: Any) -> None:
        """An unknown value bound to a helper's parameter, written as `node`."""
        given = _given(node, frame, lookup)
        if given is not None:
            self.flows.append(Flow(param, *given, frame.loc(node)))

    def note_alias(self, name: str, node: ast.AST, frame: Any, lookup: Any) -> None:
        """`name = other` or `name = other.at[...]` of an unknown `other`: used whole, or a
        view, if `name` goes where a semaphore goes."""
        target, given = _binding(name, frame), _given(node, frame, lookup)
        if target is not None and given is not None and given[0] != target:
            self.aliases.append(Flow(target, *given, frame.loc(node)))

    def arrays(self) -> dict[Binding, tuple[View, ...]]:
        """The names known to be semaphore arrays and used whole as semaphores (the
        only ones a second run would judge), with the views that show they are arrays."""
        used = self._used_whole()
        views = self._views(used)
        out = {}
        for binding in used:
            found = views.get(binding)
            if found and len({v.rank for v in found}) == 1 and binds_once(binding.scope, binding.name):
                unique = {(id(v.at.node), id(v.place.node)): v for v in found}   # a loop sees a view per pass
                out[binding] = tuple(unique.values())[:MAX_VIEWS]
        return out

    def _used_whole(self) -> set[Binding]:
        """Names given whole where a semaphore goes, or handed whole to such a parameter."""
        used = set(self.whole_uses)
        handed = [f for f in (*self.flows, *self.aliases) if f.view is None]
        for _ in range(len(handed)):
            more = {f.source for f in handed if f.target in used} - used
            if not more:
                break
            used |= more
        return used

    def _views(self, used: set[Binding]) -> dict[Binding, list[View]]:
        """Each name's views: given as semaphores, given to a parameter used as one, or
        (for a name handed whole to a parameter that has views) the parameter's."""
        views = {b: list(vs) for b, vs in self.views.items()}
        for flow in (*self.flows, *self.aliases):
            if flow.view is not None and flow.target in used:
                views.setdefault(flow.source, []).append(flow.view)
        handed = [f for f in self.flows if f.view is None]
        for _ in range(len(handed)):   # the same rank as the parameter's views
            given = {f.source: View(views[f.target][0].rank, views[f.target][0].at, f.at) for f in handed
                     if f.source not in views and f.target in views}
            if not given:
                break
            for source, view in given.items():
                views[source] = [view]
        return views


def inferred_array(views: tuple[View, ...]) -> Sem:
    return Sem("?", ("?",) * views[0].rank, None, evidence=views)


def judged_against(sem: Sem, use: Loc) -> bool:
    """Whether a whole use of an inferred array is an error: some view that shows it is
    an array is not on another branch of a condition than the use."""
    places = [view.place for view in sem.evidence]
    return any(not _exclusive(p.node, use.node, p.block.tree if p.block else None)
               for p in places if p.path == use.path and p.block is use.block)


def _binding(name: str, frame: Any) -> Binding | None:
    holder = frame.holder(name)
    if holder is None or holder.func is None or not isinstance(holder.scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    return Binding(holder.scope, name)


def _given(node: ast.AST | None, frame: Any, lookup: Any) -> tuple[Binding, View | None] | None:
    """What an unknown value written as `node` is: a name's whole binding (view None), or
    a view of one."""
    if isinstance(node, ast.Name):
        binding = _binding(node.id, frame)
        return (binding, None) if binding is not None else None
    return _view(node, frame, lookup)


def _view(node: ast.AST | None, frame: Any, lookup: Any) -> tuple[Binding, View] | None:
    """`name.at[i, ...]` with indices that each drop a dimension."""
    if not is_at(node) or not isinstance(at_base(node), ast.Name):
        return None
    elts = index_elts(node)
    for e in elts:
        if isinstance(e, (ast.Slice, ast.Starred, ast.Call)) or (isinstance(e, ast.Constant) and e.value is Ellipsis):
            return None
        if isinstance(e, ast.Name) and isinstance(lookup(e.id, frame), SliceV):
            return None
    base = at_base(node)
    assert isinstance(base, ast.Name)
    if lookup(base.id, frame) is not UNKNOWN:
        return None
    binding = _binding(base.id, frame)
    return (binding, View(len(elts), frame.loc(node))) if binding is not None else None


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def binds_once(fnode: Any, name: str) -> bool:
    """Whether `fnode` binds `name` once: a parameter or one assignment (`name = None`
    aside), never in a loop target, and no nested function rebinds it (`nonlocal`)."""
    counts = CACHES.bindings.get(fnode)
    if counts is None:
        counts = CACHES.bindings[fnode] = _binding_counts(fnode)
    return counts.get(name) == 1


def _binding_counts(fnode: Any) -> dict[str, int]:
    """How many times `fnode` binds each name (2 for "more than once")."""
    a = fnode.args
    counts = Counter(p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if p is not None)
    many: set[str] = set()
    stack: list[ast.AST] = list(fnode.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
            many.update(x.id for x in ast.walk(n.target) if isinstance(x, ast.Name))
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and n.value.value is None:
            continue   # `name = None`: where it is used as a semaphore, the other binding reached it
        counts.update(_bound_names(n))
        if isinstance(n, _SCOPES):   # what a nested scope binds is its own, but for `nonlocal`
            many.update(x for m in ast.walk(n) if isinstance(m, ast.Nonlocal) for x in m.names)
        else:
            stack.extend(ast.iter_child_nodes(n))
    counts.update({name: 2 for name in many})
    return dict(counts)


def _bound_names(node: ast.AST) -> list[str]:
    """The names this node itself binds in the scope it is in."""
    if isinstance(node, ast.Name):
        return [node.id] if not isinstance(node.ctx, ast.Load) else []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler)):
        return [node.name] if node.name else []
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [a.asname or a.name.split(".")[0] for a in node.names]
    return []


def _exclusive(a: ast.AST, b: ast.AST, tree: Any) -> bool:
    """Whether `a` and `b` are on different branches of one `if`, `try` or conditional
    expression (or cannot be placed: then they are treated as such)."""
    if tree is None:
        return True
    parents = syntax_parents(tree)
    path_a, path_b = _path(parents, a, tree), _path(parents, b, tree)
    if path_a is None or path_b is None:
        return True
    for (node_a, field_a), (node_b, field_b) in zip(path_a, path_b):
        if node_a is not node_b:
            return False
        if field_a != field_b:
            return _apart(node_a, field_a, field_b)
    return False


_TRY_STAR = (ast.TryStar,) if hasattr(ast, "TryStar") else ()


def _apart(node: ast.AST, field_a: str, field_b: str) -> bool:
    """Whether two fields of `node` never both run: an `if`'s two branches, two cases of
    a `match`, a `try`'s handler and anything but its `finally`."""
    fields = {field_a, field_b}
    if isinstance(node, (ast.If, ast.IfExp)):
        return fields == {"body", "orelse"}
    if isinstance(node, ast.Match):
        return all(f.startswith("cases[") for f in fields)
    if isinstance(node, (ast.Try, *_TRY_STAR)):
        return any(f.startswith("handlers[") for f in fields) and "finalbody" not in fields
    return False


def _path(parents: dict, target: ast.AST, tree: ast.AST) -> list[tuple[ast.AST, str]] | None:
    """The (node, field) steps from `tree` down to `target`."""
    steps = []
    node = target
    while node is not tree:
        up = parents.get(node)
        if up is None:
            return None
        steps.append(up)
        node = up[0]
    return steps[::-1]
