"""Facts read off the syntax: imports, `nonlocal`, `:=` in expressions, pattern names,
import-error handlers."""

from __future__ import annotations

import ast
import weakref
from dataclasses import dataclass
from typing import Any

from ..caches import CACHES
from ..symbols import canonical, resolve_relative
from .lists import LIST_METHODS


def catches_import_error(handler: ast.ExceptHandler) -> bool:
    t = handler.type
    names = t.elts if isinstance(t, ast.Tuple) else [t]
    return bool(names) and all(isinstance(n, ast.Name) and n.id in ("ImportError", "ModuleNotFoundError")
                               for n in names)


def nonlocal_names(fnode: Any, func_block_text: str | None = None) -> frozenset[str]:
    """Names a function declares `nonlocal` (its assignments write to the enclosing frame)."""
    memo = CACHES.nonlocals
    cached = memo.data.get(weakref.ref(fnode))
    if cached is None and func_block_text is not None and "nonlocal" not in func_block_text:
        cached = memo[fnode] = frozenset()  # the common case, without walking the body
    if cached is None:
        out = set()
        stack = list(fnode.body) if not isinstance(fnode, ast.Lambda) else []
        while stack:
            n = stack.pop()
            if isinstance(n, ast.Nonlocal):
                out.update(n.names)
            elif not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.extend(ast.iter_child_nodes(n))
        cached = memo[fnode] = frozenset(out)
    return cached


def walrus_targets(node: ast.AST) -> frozenset[str]:
    """Names a `:=` in an expression binds (not in its lambdas), memoised."""
    memo = CACHES.walrus
    cached = memo.data.get(weakref.ref(node))
    if cached is None:
        out = set()
        stack = list(ast.iter_child_nodes(node))
        while stack:
            n = stack.pop()
            if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
                out.add(n.target.id)
            if not isinstance(n, ast.Lambda):
                stack.extend(ast.iter_child_nodes(n))
        cached = memo[node] = frozenset(out)
    return cached


def parents(tree: ast.AST) -> dict[ast.AST, tuple[ast.AST, str]]:
    """Each node's parent and the field it is in (a `match` case or a `try` handler
    counts as a field of its own), memoised per tree."""
    cached = CACHES.parents.get(tree)
    if cached is None:
        cached = CACHES.parents[tree] = _parents(tree)
    return cached


def _parents(tree: ast.AST) -> dict[ast.AST, tuple[ast.AST, str]]:
    out: dict[ast.AST, tuple[ast.AST, str]] = {}
    for node in ast.walk(tree):
        for name, value in ast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for k, child in enumerate(items):
                if isinstance(child, ast.AST):
                    out[child] = (node, f"{name}[{k}]" if isinstance(child, (ast.match_case, ast.ExceptHandler))
                                  else name)
    return out


# Statements and expressions after which a generator may or may not yield what follows.
_BRANCHING = (ast.If, ast.While, ast.Try, ast.Match, ast.Break, ast.Continue, ast.Return, ast.Raise, ast.IfExp,
              ast.BoolOp, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))


def generator_kind(fnode: Any, func_block_text: str | None = None) -> str | None:
    """None for a plain function; for a generator (`yield` in its own scope), "static"
    when its body has no branch, early exit or `while` (it yields the same items, in the
    same order, each time its `for` loops are unrolled), else "dynamic"."""
    memo = CACHES.generators
    cached = memo.data.get(weakref.ref(fnode))
    if cached is None and func_block_text is not None and "yield" not in func_block_text:
        cached = memo[fnode] = ""  # the common case, without walking the body
    if cached is None:
        yields = branches = False
        stack = list(fnode.body) if not isinstance(fnode, ast.Lambda) else []
        while stack:
            n = stack.pop()
            yields = yields or isinstance(n, (ast.Yield, ast.YieldFrom))
            branches = branches or isinstance(n, _BRANCHING)
            if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.extend(ast.iter_child_nodes(n))
        cached = memo[fnode] = ("dynamic" if branches else "static") if yields else ""
    return cached or None


@dataclass(frozen=True, slots=True)
class LoopFacts:
    reads: frozenset[str]     # names the body (and a `while` test) reads, `+=` included; not a list it only grows
    changed: frozenset[str]   # lists whose methods the body calls (`xs.pop()`)


def loop_facts(loop: ast.For | ast.While) -> LoopFacts:
    """What a loop's body reads and which lists it changes, functions in it included."""
    memo = CACHES.loop_facts
    found = memo.data.get(weakref.ref(loop))
    if found is None:
        parts = [*loop.body, loop.test] if isinstance(loop, ast.While) else loop.body
        nodes = [n for part in parts for n in ast.walk(part)]
        methods = [(n.func.attr, n.func.value) for n in nodes if isinstance(n, ast.Call)
                   and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)]
        # a list the body only grows is not read, unless the body also binds its name
        # (then what it grows may be another name's list in the next round)
        bound = {n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        grown = {id(receiver) for attr, receiver in methods if attr in _GROWING and receiver.id not in bound}
        augmented = {n.target.id for n in nodes if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}
        reads = frozenset(n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                          and id(n) not in grown) | augmented
        changed = frozenset(receiver.id for attr, receiver in methods if attr in LIST_METHODS)
        found = memo[loop] = LoopFacts(reads, changed)
    return found


_GROWING = ("append", "extend", "insert")


def pattern_names(pattern: ast.pattern) -> list[str]:
    names = []
    for n in ast.walk(pattern):
        name = getattr(n, "name", None)
        if isinstance(name, str):
            names.append(name)
        rest = getattr(n, "rest", None)
        if isinstance(rest, str):
            names.append(rest)
    return names



def import_bindings(stmt: ast.Import | ast.ImportFrom, package: str | None = None) -> list[tuple[str, str | None]]:
    """Names an import statement binds, with the fully qualified name each refers to."""
    out: list[tuple[str, str | None]] = []
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            if alias.asname:
                out.append((alias.asname, canonical(alias.name)))
            else:
                root = alias.name.split(".")[0]
                out.append((root, canonical(root)))
    else:
        mod = resolve_relative(stmt.module, stmt.level, package)
        for alias in stmt.names:
            if alias.name == "*":
                continue
            name = alias.asname or alias.name
            out.append((name, canonical(f"{mod}.{alias.name}") if mod else None))
    return out
