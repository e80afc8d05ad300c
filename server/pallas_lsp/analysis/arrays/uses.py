"""Where the value of an expression goes, as far as the syntax of its function says:
what a quick fix asks before it changes the dtype or the shape of that value (PAL404's
accumulator, PAL405's `keepdims`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..interp.syntax import parents

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@dataclass(unsafe_hash=True)
class Read:
    """One place that reads the value: the expression itself, or a read of the name it is
    assigned to, with its parent expression or statement."""

    node: ast.expr
    parent: ast.AST


def reads(scope: ast.AST | None, node: ast.expr) -> tuple[Read, ...] | None:
    """Every read of `node`'s value in its function `scope`: `node` itself where it is used
    in place or stored into a ref, else each read of the name it is assigned to (`acc = jnp.dot(...)`).  None
    where the reads cannot all be found: the name bound more than once, declared
    `global` / `nonlocal`, or bound by anything but a plain `name = node`."""
    if not isinstance(scope, _SCOPES):
        return None
    up = parents(scope)
    parent = up.get(node, (None, ""))[0]
    if parent is None:
        return None
    if not isinstance(parent, ast.Assign) or len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Subscript):
        return (Read(node, parent),)   # used in place, or stored (`o_ref[...] = node`)
    if len(parent.targets) != 1 or not isinstance(parent.targets[0], ast.Name):
        return None
    name = parent.targets[0].id
    names = [n for n in ast.walk(scope) if isinstance(n, ast.Name) and n.id == name]
    declared = any(isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names for n in ast.walk(scope))
    if declared or sum(not isinstance(n.ctx, ast.Load) for n in names) != 1:
        return None
    return tuple(Read(n, up[n][0]) for n in names if isinstance(n.ctx, ast.Load))


def is_cast(read: Read, up: dict[ast.AST, tuple[ast.AST, str]]) -> bool:
    """`value.astype(...)`: the call decides the dtype that goes on."""
    attribute = read.parent
    if not isinstance(attribute, ast.Attribute) or attribute.attr != "astype" or attribute.value is not read.node:
        return False
    call = up.get(attribute, (None, ""))[0]
    return isinstance(call, ast.Call) and call.func is attribute
