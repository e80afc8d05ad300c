"""What a callable value stands for: the defs behind functions, partials and choices."""

from __future__ import annotations

import ast
from typing import Any

from ..pallas.values import WithScoped
from ..values import Choice, Func, Partial


def resolve_lazy(func: Func) -> ast.AST | None:
    """The def of a top-level function whose block was not parsed yet (parse it now)."""
    tree = func.block.tree
    if tree is None or not tree.body or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    func.node = tree.body[0]
    return func.node


def function_nodes(value: Any, depth: int = 0) -> set[ast.AST]:
    """The defs a callable value stands for (through partials, choices, callable objects)."""
    if depth > 4:
        return set()
    if isinstance(value, Func):
        node = value.node if value.node is not None else resolve_lazy(value)
        return {node} if node is not None else set()
    if isinstance(value, Partial):
        return function_nodes(value.func, depth + 1)
    if isinstance(value, Choice):
        out: set[ast.AST] = set()
        for o in value.options:
            out |= function_nodes(o, depth + 1)
        return out
    if isinstance(value, WithScoped):
        return function_nodes(value.func, depth + 1)
    return set()
