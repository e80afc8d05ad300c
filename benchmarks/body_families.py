"""The kernel-body mutation families: where each one mutates a correct module, and how.

Every family edits one expression inside a kernel body (a function that takes refs,
`*_ref` / `*_refs` / `refs`, or is named `*kernel*`, and the functions nested in it), one
edit per mutant, keeping every line where it was:

- ``drop-astype``: a cast in a stored value loses its ``.astype(...)``;
- ``swap-dot``: ``jnp.dot`` / ``jnp.matmul`` / ``lax.dot_general`` / ``pl.dot`` / ``@`` get
  their two operands swapped;
- ``drop-keepdims``: a reduction loses its ``keepdims=True``;
- ``change-reshape``: a reshape's last target length is doubled (its first one when the
  last is ``-1``);
- ``transpose-other``: in a matmul with one transposed operand (``k.T``, ``jnp.transpose(k)``,
  ``k.swapaxes(...)``), the transpose moves to the other operand;
- ``drop-preferred``: a matmul or ``einsum`` loses its ``preferred_element_type=``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from contract_mutants import Editor

MATMULS = frozenset({"dot", "matmul", "dot_general"})
TRANSPOSES = frozenset({"transpose", "swapaxes", "matrix_transpose"})


@dataclass(frozen=True)
class Edit:
    """One mutation: the mutated module and where it is."""

    family: str
    line: int
    col: int
    text: str


def kernel_functions(tree: ast.Module) -> Iterator[ast.FunctionDef]:
    """The functions that take refs or are named like a kernel (nested ones included)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and _is_kernel(node):
            yield node


def _is_kernel(fn: ast.FunctionDef) -> bool:
    params = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
    names = [p.arg for p in params] + [a.arg for a in (fn.args.vararg,) if a is not None]
    return "kernel" in fn.name or any(n.endswith(("_ref", "_refs")) or n == "refs" for n in names)


def kernel_nodes(tree: ast.Module) -> Iterator[ast.AST]:
    """Every node inside a kernel function, once."""
    seen: set[int] = set()
    for fn in kernel_functions(tree):
        for node in ast.walk(fn):
            if id(node) not in seen:
                seen.add(id(node))
                yield node


def _callee(node: ast.AST) -> str | None:
    """`dot` for `jnp.dot(...)` / `lax.dot(...)`, `astype` for `x.astype(...)`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _keyword(call: ast.Call, name: str) -> ast.keyword | None:
    return next((k for k in call.keywords if k.arg == name), None)


def _paren(editor: Editor, node: ast.AST) -> str:
    text = editor.text(node)
    return text if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)) else f"({text})"


def _without_keyword(editor: Editor, call: ast.Call, kw: ast.keyword) -> str:
    """The module with one keyword argument of `call` removed (with its comma; the line
    breaks it spanned stay)."""
    items = sorted([*call.args, *call.keywords], key=editor.start)
    i = items.index(kw)
    a, b = (editor.end(items[i - 1]), editor.end(kw)) if i else \
        (editor.start(kw), editor.start(items[1]) if len(items) > 1 else editor.end(kw))
    return editor.splice(a, b, "\n" * editor.source[a:b].count("\n"))


def drop_astype(tree: ast.Module, editor: Editor) -> Iterator[Edit]:
    for node in ast.walk(tree):
        stored = isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) for t in node.targets) \
            or isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript)
        if not stored:
            continue
        for sub in ast.walk(node.value):  # type: ignore[attr-defined]
            if _callee(sub) == "astype":
                receiver = sub.func.value  # type: ignore[attr-defined]
                yield Edit("drop-astype", sub.lineno, sub.col_offset, editor.replace(sub, _paren(editor, receiver)))


def swap_dot(tree: ast.Module, editor: Editor) -> Iterator[Edit]:
    for node in kernel_nodes(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            a, b = node.left, node.right
        elif _callee(node) in MATMULS and len(node.args) >= 2:  # type: ignore[attr-defined]
            a, b = node.args[0], node.args[1]  # type: ignore[attr-defined]
        else:
            continue
        if a.lineno != a.end_lineno or b.lineno != b.end_lineno:
            continue   # one-line operands: every line stays where it was
        new = editor.replace_all([(a, editor.text(b)), (b, editor.text(a))])
        yield Edit("swap-dot", node.lineno, node.col_offset, new)  # type: ignore[attr-defined]


def drop_keepdims(tree: ast.Module, editor: Editor) -> Iterator[Edit]:
    for node in kernel_nodes(tree):
        if not isinstance(node, ast.Call):
            continue
        kw = _keyword(node, "keepdims")
        if kw is not None and isinstance(kw.value, ast.Constant) and kw.value.value is True:
            yield Edit("drop-keepdims", node.lineno, node.col_offset, _without_keyword(editor, node, kw))


def _reshape_target(call: ast.Call) -> list[ast.expr] | None:
    """The target lengths of `x.reshape(a, b)`, `x.reshape((a, b))`, `jnp.reshape(x, (a, b))`."""
    if _callee(call) != "reshape":
        return None
    is_method = not (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                     and call.func.value.id in ("jnp", "lax", "np"))
    args = call.args if is_method else call.args[1:]
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        return list(args[0].elts)
    return list(args) if args else None


def change_reshape(tree: ast.Module, editor: Editor) -> Iterator[Edit]:
    for node in kernel_nodes(tree):
        lengths = _reshape_target(node) if isinstance(node, ast.Call) else None
        if not lengths:
            continue
        last = lengths[-1]
        if isinstance(last, ast.UnaryOp) and isinstance(last.op, ast.USub):
            last = lengths[0]
        yield Edit("change-reshape", node.lineno, node.col_offset,
                   editor.replace(last, f"{_paren(editor, last)} * 2"))


def _untransposed(node: ast.AST) -> ast.expr | None:
    """`k` of `k.T`, `jnp.transpose(k)`, `k.swapaxes(0, 1)`, `k.transpose()`."""
    if isinstance(node, ast.Attribute) and node.attr == "T":
        return node.value
    if isinstance(node, ast.Call) and _callee(node) in TRANSPOSES:
        func = node.func
        assert isinstance(func, ast.Attribute)
        if isinstance(func.value, ast.Name) and func.value.id in ("jnp", "lax", "np"):
            return node.args[0] if len(node.args) == 1 else None
        return func.value if _callee(node) != "transpose" or not node.args else None
    return None


def transpose_other(tree: ast.Module, editor: Editor) -> Iterator[Edit]:
    for node in kernel_nodes(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            a, b = node.left, node.right
        elif _callee(node) in ("dot", "matmul") and len(node.args) >= 2:  # type: ignore[attr-defined]
            a, b = node.args[0], node.args[1]  # type: ignore[attr-defined]
        else:
            continue
        for moved, other in ((a, b), (b, a)):
            inner = _untransposed(moved)
            if inner is not None and _untransposed(other) is None:
                edits = [(moved, editor.text(inner)), (other, f"{_paren(editor, other)}.T")]
                yield Edit("transpose-other", node.lineno, node.col_offset, editor.replace_all(edits))


def drop_preferred(tree: ast.Module, editor: Editor) -> Iterator[Edit]:
    for node in kernel_nodes(tree):
        if not isinstance(node, ast.Call) or _callee(node) not in MATMULS | {"einsum"}:
            continue
        kw = _keyword(node, "preferred_element_type")
        if kw is not None:
            yield Edit("drop-preferred", node.lineno, node.col_offset, _without_keyword(editor, node, kw))


FAMILIES: dict[str, Callable[[ast.Module, Editor], Iterator[Edit]]] = {
    "drop-astype": drop_astype,
    "swap-dot": swap_dot,
    "drop-keepdims": drop_keepdims,
    "change-reshape": change_reshape,
    "transpose-other": transpose_other,
    "drop-preferred": drop_preferred,
}
