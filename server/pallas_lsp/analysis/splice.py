"""A character typed into one simple statement of a block, or into the header of an `if`,
`while`, `for` or `with`, or a statement typed on a blank line of a body: the new tree is
the old one with that statement (or header) parsed again.

A keystroke in a large kernel changes one line of one statement. Parsing the whole block
again makes every node new, and with them every fact memoised per node (what each loop
reads, each function's parameters, ...). Here only the edited statement is parsed, alone
(its lines as they stand, under an `if 1:`; a header with a `pass` for its body), and the
new tree shares every other node with the old one: the statements around it are the same
objects, and only the nodes on the path from the block down to it are copies. The result is
the tree Python parses from the new text, or None where that is not sure (the statement's
first line changed before its code, it no longer parses alone, or it became more or other
than one statement on the same lines); the block is then parsed as usual.

Trees that share nodes form a family (`parse.Block.adopt_spliced`): a tree the relay
(`relay.py`) is about to change in place must first be its nodes' only holder
(`parse.BlockList.own_nodes`).
"""

from __future__ import annotations

import ast
import copy
from typing import Any

from .parse import BlockList, statements_alone
from .relay import BLANK, COMPOUND, ChangedLine, changed_line, placed_before, statement_chain


def splice_edited_block(blocks: BlockList) -> bool:
    """After `blocks.update`: when the one block the edit replaced had a tree and the edit
    changed one line that `spliced_tree` decides alone (in a simple statement, a header, or
    a statement typed on a blank line), give the new block that tree (True)."""
    if blocks.replaced is None:
        return False
    old, new = blocks.replaced
    tree = old.tree if old.parses else None
    if tree is None or new.parses:
        return False
    line = changed_line(old.text, new.text)
    spliced = spliced_tree(tree, line) if line is not None else None
    if spliced is None:
        return False
    new.adopt_spliced(spliced, old)
    return True


def spliced_tree(tree: ast.Module, line: ChangedLine) -> ast.Module | None:
    """`tree` (of the text before `line`'s edit) as the text after it parses, sharing every
    node but those of the edited statement and the statements holding it; None if unsure."""
    chain = statement_chain(tree, line.lineno)
    held = next((k for k in range(len(chain) - 1, -1, -1) if isinstance(chain[k], ast.stmt)), None)
    if held is None:
        return None
    if held == len(chain) - 1 and isinstance(chain[held], COMPOUND) and not line.before.strip():
        return _spliced_insertion(tree, chain, line)
    if not _indented(chain[held], line):
        return None
    if type(chain[held]) in HEADERS:
        return _spliced_header(tree, chain[:held + 1], line)
    if isinstance(chain[held], COMPOUND) or held != len(chain) - 1:
        return None
    stmt: Any = chain[held]
    first, last = stmt.lineno, stmt.end_lineno
    new = _parsed_alone(line.new_lines[first - 1:last], first)
    if new is None or (new.lineno, new.col_offset, new.end_lineno) != (first, stmt.col_offset, last):
        return None
    if line.lineno != last and new.end_col_offset != stmt.end_col_offset:
        return None
    if not (_ends_line(line.old_lines[last - 1], stmt.end_col_offset)
            and _ends_line(line.new_lines[last - 1], new.end_col_offset)):
        return None   # a `;` after it: the statements holding it end there
    return _path_copied(tree, chain, new, (last, stmt.end_col_offset))


# The compound statements whose header (the lines before their body) is parsed again alone,
# and the fields it gives them.
HEADERS: dict[type, tuple[str, ...]] = {ast.If: ("test",), ast.While: ("test",), ast.For: ("target", "iter"),
                                        ast.AsyncFor: ("target", "iter"), ast.With: ("items",),
                                        ast.AsyncWith: ("items",)}


def _indented(stmt: Any, line: ChangedLine) -> bool:
    """Whether `stmt` starts a line after blanks (not at column 0: a block of its own) that
    the edit left as they were."""
    indent = line.old_lines[stmt.lineno - 1].encode()[:stmt.col_offset]
    return stmt.col_offset > 0 and BLANK.issuperset(indent) \
        and not (line.lineno == stmt.lineno and line.first_col < stmt.col_offset)


def _spliced_header(tree: ast.Module, chain: list[ast.AST], line: ChangedLine) -> Any:
    """The tree with the header of `chain[-1]` (an `if`, `while`, `for` or `with`) parsed
    again, when the edit is in it and its body starts on a line of its own."""
    stmt: Any = chain[-1]
    first, body = stmt.lineno, stmt.body[0].lineno
    if not first <= line.lineno < body:
        return None
    indent = line.new_lines[first - 1][:stmt.col_offset]
    parsed = _parsed_alone([*line.new_lines[first - 1:body - 1], indent + " pass"], first)
    if type(parsed) is not type(stmt) or (parsed.lineno, parsed.col_offset) != (first, stmt.col_offset) \
            or len(parsed.body) != 1 or parsed.body[0].lineno != body or getattr(parsed, "orelse", None):
        return None
    header = copy.copy(stmt)
    for field in HEADERS[type(stmt)]:
        setattr(header, field, getattr(parsed, field))
    return _path_copied(tree, chain, header, (stmt.end_lineno, stmt.end_col_offset))


def _spliced_insertion(tree: ast.Module, chain: list[ast.AST], line: ChangedLine) -> Any:
    """The tree with a statement typed on a blank line of the body of `chain[-1]`: the line
    holds that one statement, where `placed_before` says Python puts it."""
    new = _parsed_alone([line.after], line.lineno)
    if new is None or new.end_lineno != line.lineno or not _ends_line(line.after, new.end_col_offset):
        return None
    holder: Any = chain[-1]
    place = placed_before(holder, line.lineno - 1, line.lineno, 0, line.new_lines,
                          line.after.encode()[:new.col_offset])
    if place is None:
        return None
    items = getattr(holder, place.field)
    grown = copy.copy(holder)
    setattr(grown, place.field, [*items[:place.at], new, *items[place.at:]])
    return _path_copied(tree, chain, grown, (holder.end_lineno, holder.end_col_offset))


def _ends_line(text: str, end_col: int) -> bool:
    """Whether only blanks and a comment follow column `end_col` (UTF-8 bytes) of `text`
    (a line of a text split at "\n": a "\r" may end it)."""
    rest = text.encode()[end_col:].strip(b" \t\f\r")
    return not rest or rest.startswith(b"#")


def _parsed_alone(lines: list[str], first: int) -> Any:
    """The one statement `lines` (indented, starting at line `first`) hold, with the
    positions it has in the block; None if they hold no statement or more than one."""
    body = statements_alone(lines, first)
    return body[0] if body is not None and len(body) == 1 else None


def _path_copied(tree: ast.Module, chain: list[ast.AST], new: ast.stmt, old_end: tuple[int, int]) -> Any:
    """`tree` with `chain[-1]` replaced by `new`: a copy of each statement holding it (the
    ones that ended where it ended end where `new` does), the rest shared; None if a
    holder does not hold the next one in a list of statements."""
    old_child: ast.AST = chain[-1]
    new_child: ast.AST = new
    for parent in reversed([tree, *chain[:-1]]):
        holder = copy.copy(parent)
        if not _replace_in(holder, old_child, new_child):
            return None
        if (getattr(parent, "end_lineno", None), getattr(parent, "end_col_offset", None)) == old_end:
            holder.end_col_offset = new.end_col_offset   # type: ignore[attr-defined]
        old_child, new_child = parent, holder
    return new_child   # type: ignore[return-value]


def _replace_in(holder: ast.AST, old: ast.AST, new: ast.AST) -> bool:
    """In `holder` (a copy, whose lists are still the original's), put `new` where `old` is:
    in one of its lists of statements, or in the body of one of its `case`s (False: nowhere)."""
    for field in holder._fields:
        items = getattr(holder, field, None)
        if type(items) is not list:
            continue
        for i, item in enumerate(items):
            if item is old:
                setattr(holder, field, [*items[:i], new, *items[i + 1:]])
                return True
            if isinstance(item, ast.match_case) and any(s is old for s in item.body):
                case = copy.copy(item)
                _replace_in(case, old, new)
                setattr(holder, field, [*items[:i], case, *items[i + 1:]])
                return True
    return False
