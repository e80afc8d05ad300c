"""Edits that change where a block's code is, not what it does.

Inserting or deleting whole lines that hold no code the analysis reads (blank lines,
comments, and `name = <literal>` inside a function where nothing else names `name`)
leaves every statement of the block as it was, only lower or higher in the document.
Such a block keeps its parse tree, with the positions of the new text, and with it every
result that refers to its nodes: nothing is analysed again.  Anything else (a line
edited in place, a line inside an expression or a string, a statement the code may read)
is an ordinary change.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .closure import in_closure
from .module import block_names
from .parse import BlockList, parse_text

# Nodes that may span the edited place: statements whose bodies take whole lines.
_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While,
             ast.With, ast.AsyncWith, ast.Try, ast.ExceptHandler, ast.Match,
             *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))


# Expression contexts (`Load`, `Store`, `Del`): shared instances without positions.
_CONTEXTS = frozenset({ast.Load, ast.Store, ast.Del})


@dataclass(frozen=True, slots=True)
class LineEdit:
    """Whole lines inserted into (`count` > 0) or deleted from (`count` < 0) a text, after
    its first `after` lines."""

    after: int
    count: int


def keep_moved_block(blocks: BlockList, package: str | None, creators: frozenset, broad: bool) -> bool:
    """After `blocks.update`: when the edit only moved the code of the one block it
    replaced, put that block back with the new text and its tree (True)."""
    if blocks.replaced is None:
        return False
    old, new = blocks.replaced
    if not old.sole_holder:
        return False
    edit = line_edit(old.text, new.text)
    if edit is None or block_names(old) != block_names(new) \
            or in_closure(old, package, creators, broad) != in_closure(new, package, creators, broad):
        return False
    tree = old.tree
    if tree is None or not relaid(tree, new.text, edit):
        return False
    move(tree, edit)
    blocks.keep(old, new)
    return True


def line_edit(old: str, new: str) -> LineEdit | None:
    """The whole lines `new` inserts into or deletes from `old`, if that is all it does."""
    a, b = old.split("\n"), new.split("\n")
    if len(a) == len(b):
        return None
    p = 0
    while p < min(len(a), len(b)) and a[p] == b[p]:
        p += 1
    s = 0
    while s < min(len(a), len(b)) - p and a[-1 - s] == b[-1 - s]:
        s += 1
    if p + s != min(len(a), len(b)):
        return None   # lines changed in place too
    return LineEdit(p, len(b) - len(a))


def relaid(tree: ast.Module, new_text: str, edit: LineEdit) -> bool:
    """Whether `new_text` is the code of `tree` (the block before the edit) moved by `edit`:
    only whole compound statements run across the edited place, and the lines it deletes
    hold no code of the tree (blank, comment, or a statement kept out of it before) or the
    lines it inserts only blank lines, comments and `name = <literal>` statements whose
    name nothing else reads."""
    if not _only_compounds_span(tree, edit.after):
        return False
    first, last = edit.after + 1, edit.after + abs(edit.count)
    if edit.count < 0:
        return not _starts_within(tree, first, last)
    lines = new_text.split("\n")[first - 1:last]
    if all(map(_no_code, lines)):
        return True
    new_tree = parse_text(new_text)
    return new_tree is not None and _inserted_are_unread(new_tree, new_text, lines, first)


def move(tree: ast.Module, edit: LineEdit) -> None:
    """Give the nodes of `tree` their lines after `edit` (a node that ends before it
    holds none that moves)."""
    after, count = edit.after, edit.count
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        end = getattr(node, "end_lineno", None)
        if end is not None:
            if end <= after:
                continue
            node.end_lineno = end + count   # type: ignore[attr-defined]
            if node.lineno > after:   # type: ignore[attr-defined]
                node.lineno += count  # type: ignore[attr-defined]
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend(v for v in value if isinstance(v, ast.AST) and type(v) not in _CONTEXTS)
            elif isinstance(value, ast.AST) and type(value) not in _CONTEXTS:
                stack.append(value)


def _children(node: ast.AST) -> list[ast.AST]:
    """The nodes with positions under `node`: its children, and the children of those
    that have none (a def's `arguments`, a `with` item, a `case`)."""
    out = []
    for c in ast.iter_child_nodes(node):
        if getattr(c, "end_lineno", None) is not None:
            out.append(c)
        else:
            out.extend(_children(c))
    return out


def _only_compounds_span(tree: ast.AST, after: int) -> bool:
    """Whether every node that runs across the place after line `after` (1-based) is a
    statement with a body: the place is between two lines of code of one body."""
    node = tree
    while True:
        spanning = [c for c in _children(node) if c.lineno <= after < c.end_lineno]   # type: ignore[attr-defined]
        if not spanning:
            return True
        if len(spanning) > 1 or not isinstance(spanning[0], _COMPOUND):
            return False
        node = spanning[0]


def _starts_within(tree: ast.AST, first: int, last: int) -> bool:
    """Whether some node of `tree` has code on lines `first`..`last`."""
    stack = [tree]
    while stack:
        for c in _children(stack.pop()):
            if c.lineno <= last and c.end_lineno >= first:   # type: ignore[attr-defined]
                if c.lineno >= first or not isinstance(c, _COMPOUND):   # type: ignore[attr-defined]
                    return True
                stack.append(c)
    return False


def _inserted_are_unread(tree: ast.Module, text: str, lines: list[str], first: int) -> bool:
    """Whether the code of the inserted `lines` (from line `first` of `tree`'s text) is
    only `name = <literal>` statements of function bodies whose name nothing else spells."""
    last = first + len(lines) - 1
    covered: set[int] = set()
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, in_function = stack.pop()
        for c in _children(node):
            if c.end_lineno < first or c.lineno > last:   # type: ignore[attr-defined]
                continue
            if c.lineno >= first:   # type: ignore[attr-defined]
                if not (in_function and _literal_assignment(c) and c.end_lineno <= last   # type: ignore[attr-defined]
                        and len(re.findall(rf"\b{c.targets[0].id}\b", text)) == 1):   # type: ignore[attr-defined]
                    return False
                covered.update(range(c.lineno, c.end_lineno + 1))   # type: ignore[attr-defined]
            elif isinstance(c, _COMPOUND):
                stack.append((c, isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef))
                              or (in_function and not isinstance(c, ast.ClassDef))))
            else:
                return False
    return all(first + i in covered or _no_code(line) for i, line in enumerate(lines))


def _no_code(line: str) -> bool:
    """A blank line or a comment."""
    return not line.strip() or line.lstrip().startswith("#")


def _literal_assignment(node: ast.AST) -> bool:
    return isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
        and isinstance(node.value, ast.Constant)
