"""The defs behind functions: parsed lazily, or their headers alone."""

from __future__ import annotations

import ast

from ..caches import CACHES
from ..values import Func


def resolve_lazy(func: Func) -> ast.AST | None:
    """The def of a top-level function whose block was not parsed yet (parse it now)."""
    tree = func.block.tree
    if tree is None or not tree.body or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    func.node = tree.body[0]
    return func.node


def signature_node(func: Func) -> ast.AST | None:
    """The def of `func` with its parameters, without parsing the body of a top-level
    def not parsed yet (its header alone is parsed: what a signature needs)."""
    if func.node is not None:
        return func.node
    text = func.block.text if func.block is not None else ""
    node = CACHES.headers.get(text, False)
    if node is False:
        node = CACHES.headers.put(text, _parse_header(text))
    return node


def _parse_header(text: str) -> ast.AST | None:
    """`def name(params) -> ann:` of a def's text, parsed with a `pass` body."""
    depth = 0
    quote = None
    for i, ch in enumerate(text):
        if quote is not None:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == ":" and depth == 0:
            try:
                tree = ast.parse(text[:i + 1] + " pass")
            except SyntaxError:
                return None
            node = tree.body[0] if tree.body else None
            return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        elif ch == "#":
            return None   # a comment in the header: give up (the full parse will do)
    return None
