"""Edits that change where a block's code is, not what it does.

Inserting or deleting whole lines that hold no code the analysis reads (blank lines,
comments, and `name = <literal>` inside a function where nothing else names `name`)
leaves every statement of the block as it was, only lower or higher in the document;
text typed inside a comment, or blanks and a comment typed after a line's code, leave
every statement where it was, and text typed inside a docstring (or lines inserted into
or deleted from its inside) changes only a value nothing reads.  Such a block keeps its
parse tree, with the positions (and docstring) of the new text, and with it every result
that refers to its nodes: nothing is analysed again.  Anything else (code edited in
place, a line inside an expression or a string, a statement the code may read) is an
ordinary change.
"""

from __future__ import annotations

import ast
import re

from typing import Any, TypeGuard

from .closure import in_closure
from .module import block_names
from .parse import BlockList, common_prefix, common_suffix, parse_text, parse_uncached, statements_alone
from .records import record

# Nodes that may span the edited place: statements whose bodies take whole lines.
COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While,
            ast.With, ast.AsyncWith, ast.Try, ast.ExceptHandler, ast.Match,
            *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))


# The first line of a statement `relaid` may keep out of the tree (`name = <literal>`).
_ASSIGNMENT = re.compile(r"\s*[A-Za-z_]\w*\s*=(?!=)")
# What may follow the last code of a line: blanks, then a comment.
_BLANKS_THEN_COMMENT = re.compile(r"[ \t]*(?:#.*)?")

# The blanks a line may start with (UTF-8 bytes).
BLANK = frozenset(b" \t\f")

# Expression contexts (`Load`, `Store`, `Del`): shared instances without positions.
_CONTEXTS = frozenset({ast.Load, ast.Store, ast.Del})


@record(slots=True)
class LineEdit:
    """Whole lines inserted into (`count` > 0) or deleted from (`count` < 0) a text, after
    its first `after` lines."""

    after: int
    count: int


@record(slots=True)
class ChangedLine:
    """The one line (1-based `lineno`) an edit changed: its text before and after, the
    first character that differs and where the text after the edit starts in `before`;
    the lines of the texts before and after."""

    lineno: int
    before: str
    after: str
    first: int
    last_before: int
    old_lines: list[str]
    new_lines: list[str]

    @property
    def first_col(self) -> int:
        """`first` as `ast` counts columns: UTF-8 bytes."""
        return len(self.before[:self.first].encode())


@record(slots=True)
class StringEdit:
    """A string statement's new literal (`literal`, parsed alone) and the nodes that end
    where it ends (it, its statement, the bodies it closes): their new end column."""

    constant: ast.Constant
    literal: ast.Constant
    ending: tuple[ast.AST, ...]
    end_col: int

    def apply(self) -> None:
        self.constant.value, self.constant.kind = self.literal.value, self.literal.kind
        for node in self.ending:
            node.end_col_offset = self.end_col   # type: ignore[attr-defined]


def keep_moved_block(blocks: BlockList, package: str | None, creators: frozenset, broad: bool) -> bool:
    """After `blocks.update`: when the edit only moved the code of the one block it
    replaced, or left it the same code (a comment, blanks after the code, a docstring's
    text), put that block back with the new text and its tree (True)."""
    if blocks.replaced is None:
        return False
    old, new = blocks.replaced
    tree = old.tree
    if tree is None or not old.sole_holder:
        return False
    edit = line_edit(old.text, new.text)
    string = None
    if edit is None:
        line = changed_line(old.text, new.text)
        if line is None:
            return False
        if not inert_edit(tree, line):
            string = string_edit(tree, line)
            if string is None:
                return False
    if block_names(old) != block_names(new) \
            or in_closure(old, package, creators, broad) != in_closure(new, package, creators, broad):
        return False
    if edit is not None and not relaid(tree, new.text, edit):
        string = docstring_lines_edit(tree, new.text, edit)
        if string is None:
            return False
    if not blocks.own_nodes(old):   # another tree shares the nodes about to change
        return False
    if edit is not None:
        move(tree, edit)
    if string is not None:
        string.apply()
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


def inert_edit(tree: ast.Module, line: ChangedLine) -> bool:
    """Whether the text before `line`'s edit (the text of `tree`) and after it are the same
    code at the same places: the edit is inside the comment that ends the line (after a
    `#` that starts one), or only blanks and a comment follow its start in both texts,
    where no string is open and no backslash continues the line."""
    in_comment = "#" in line.before[:line.first]
    blanks = bool(_BLANKS_THEN_COMMENT.fullmatch(line.before, line.first)
                  and _BLANKS_THEN_COMMENT.fullmatch(line.after, line.first)) \
        and not line.before[:line.first].rstrip(" \t").endswith("\\")
    if not (in_comment or blanks):
        return False
    strings, gap = _on_line(tree, line.lineno)
    if not _outside_kept_out(line.old_lines, gap, line.lineno):
        return False
    if in_comment:
        hash_at = _comment_start(line.before, line.lineno, strings)
        if hash_at is not None and hash_at < line.first:
            return True
    return blanks and _string_holding(strings, line.lineno, line.first_col) is None


def string_edit(tree: ast.Module, line: ChangedLine) -> StringEdit | None:
    """How `tree` (of the text before `line`'s edit) becomes the tree of the text after
    it when they differ only inside the literal of a string statement (a docstring: a
    value nothing reads), the literal standing alone on its last line but for a comment."""
    chain = statement_chain(tree, line.lineno)
    s: Any = _string_statement(chain)
    if s is None:
        return None
    end = len(line.before[:line.last_before].encode())
    if not (s.lineno, s.col_offset) < (line.lineno, line.first_col) <= (line.lineno, end) < (s.end_lineno, s.end_col_offset):
        return None
    lines = line.new_lines[s.lineno - 1:s.end_lineno]
    end_col = s.end_col_offset
    if line.lineno == s.end_lineno:
        rest = line.before.encode()[end_col:].decode(errors="replace").strip()
        if rest and not rest.startswith("#"):
            return None
        end_col += len(line.after.encode()) - len(line.before.encode())
    literal = _parse_literal(lines, s.col_offset, end_col)
    if literal is None:
        return None
    ending = tuple(n for n in (*chain, s) if (n.end_lineno, n.end_col_offset) == (s.end_lineno, s.end_col_offset))   # type: ignore[attr-defined]
    return StringEdit(s, literal, ending, end_col)


def docstring_lines_edit(tree: ast.Module, new_text: str, edit: LineEdit) -> StringEdit | None:
    """How `tree` (of the text before `edit`) becomes the tree of `new_text` (after `edit`
    moves its nodes) when the edit inserts or deletes whole lines inside the literal of a
    string statement (a docstring: a value nothing reads), after its first line and
    before its last, and the literal is still one string: its new value."""
    s: Any = _string_statement(statement_chain(tree, edit.after))
    if s is None or not (s.lineno <= edit.after and edit.after + max(0, -edit.count) < s.end_lineno):
        return None   # the place, and any line deleted, between the literal's first line and its last
    lines = new_text.split("\n")[s.lineno - 1:s.end_lineno + edit.count]
    literal = _parse_literal(lines, s.col_offset, s.end_col_offset)   # its last line is as it was
    return StringEdit(s, literal, (), s.end_col_offset) if literal is not None else None


def _string_statement(chain: list[ast.AST]) -> ast.Constant | None:
    """The literal of the string statement (a docstring) that ends `chain`, if it does."""
    stmt = chain[-1] if chain else None
    if isinstance(stmt, ast.Expr) and _is_str(stmt.value) and _same_span(stmt, stmt.value):
        return stmt.value
    return None


def changed_line(old: str, new: str) -> ChangedLine | None:
    """The one line on which `new` differs from `old` (the same number of lines), when the
    text typed there holds no character Python refuses in its source."""
    a, b = old.split("\n"), new.split("\n")
    if len(a) != len(b):
        return None
    changed = [i for i in range(len(a)) if a[i] != b[i]]
    if len(changed) != 1:
        return None
    before, after = a[changed[0]], b[changed[0]]
    first = common_prefix(before, after)
    tail = common_suffix(before, after, min(len(before), len(after)) - first)
    typed = after[first:len(after) - tail]
    if "\x00" in typed or any("\ud800" <= c <= "\udfff" for c in typed):
        return None
    return ChangedLine(changed[0] + 1, before, after, first, len(before) - tail, a, b)


def _comment_start(line: str, lineno: int, strings: list[ast.AST]) -> int | None:
    """Where the comment on line `lineno` (`line`, 1-based) starts: the first `#` that none
    of `strings` (the tree's strings on that line) holds."""
    encoded = line.encode()
    at = line.find("#")
    while at >= 0:
        holder = _string_holding(strings, lineno, len(line[:at].encode()))   # `ast` columns count UTF-8 bytes
        if holder is None:
            return at
        if holder.end_lineno > lineno:
            return None
        at = line.find("#", len(encoded[:holder.end_col_offset].decode(errors="ignore")))   # after that string
    return None


def _string_holding(strings: list[ast.AST], lineno: int, col: int) -> Any:
    """The one of `strings` that holds the place after its first character at line
    `lineno`, column `col` (UTF-8 bytes), if one does."""
    return next((s for s in strings if (s.lineno, s.col_offset) < (lineno, col)   # type: ignore[attr-defined]
                 < (s.end_lineno, s.end_col_offset)), None)   # type: ignore[attr-defined]


def _outside_kept_out(lines: list[str], gap: int | None, lineno: int) -> bool:
    """Whether line `lineno` of `lines` is outside every statement `relaid` kept out of the
    tree: on a line of the tree's code (`gap` None), or where no line since the last line
    of code (`gap`) starts an assignment."""
    return gap is None or gap < lineno and not any(_ASSIGNMENT.match(x) for x in lines[gap:lineno])


def _on_line(tree: ast.Module, lineno: int) -> tuple[list[ast.AST], int | None]:
    """The strings of `tree` on line `lineno`; and when no code of it is on that line, the
    last line of code before it in the innermost body (a statement, or its header)."""
    chain = statement_chain(tree, lineno)
    inner: ast.AST = chain[-1] if chain else tree
    spanning = [inner]
    if inner is tree or isinstance(inner, COMPOUND):
        children = _children(inner)
        spanning = [c for c in children if c.lineno <= lineno <= c.end_lineno]   # type: ignore[attr-defined]
        if not spanning:
            return [], max((c.end_lineno for c in children if c.end_lineno < lineno),   # type: ignore[attr-defined]
                           default=getattr(inner, "lineno", 0))
    strings: list[ast.AST] = []
    while spanning:
        c = spanning.pop()
        if isinstance(c, ast.JoinedStr) or isinstance(c, ast.Constant) and isinstance(c.value, (str, bytes)):
            strings.append(c)
        spanning.extend(k for k in _children(c) if k.lineno <= lineno <= k.end_lineno)   # type: ignore[attr-defined]
    return strings, None


def statement_chain(tree: ast.Module, lineno: int) -> list[ast.AST]:
    """The statements of `tree` that hold line `lineno`, outermost first, while there is
    one per level (the last may be a simple statement)."""
    chain: list[ast.AST] = []
    node: ast.AST = tree
    while not chain or isinstance(node, COMPOUND):
        spanning = [c for c in _children(node) if c.lineno <= lineno <= c.end_lineno]   # type: ignore[attr-defined]
        if len(spanning) != 1:
            break
        node = spanning[0]
        chain.append(node)
    return chain


def _is_str(node: ast.AST) -> TypeGuard[ast.Constant]:
    return isinstance(node, ast.Constant) and type(node.value) is str


def _same_span(a: Any, b: Any) -> bool:
    return (a.lineno, a.col_offset, a.end_lineno, a.end_col_offset) \
        == (b.lineno, b.col_offset, b.end_lineno, b.end_col_offset)


def _parse_literal(lines: list[str], col: int, end_col: int) -> ast.Constant | None:
    """The string constant that the text of `lines` from column `col` of the first to
    `end_col` of the last (UTF-8 bytes) is, when it is one whole string literal."""
    try:
        if len(lines) == 1:
            text = lines[0].encode()[col:end_col].decode()
        else:
            text = "\n".join([lines[0].encode()[col:].decode(), *lines[1:-1], lines[-1].encode()[:end_col].decode()])
    except UnicodeDecodeError:
        return None
    tree = parse_uncached(text)
    if tree is None or len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    value = tree.body[0].value
    ends = len(lines), len(text.rsplit("\n", 1)[-1].encode())
    if not _is_str(value) or (value.lineno, value.col_offset) != (1, 0) or (value.end_lineno, value.end_col_offset) != ends:
        return None
    return value


def relaid(tree: ast.Module, new_text: str, edit: LineEdit) -> bool:
    """Whether `new_text` is the code of `tree` (the block before the edit) moved by `edit`:
    only whole compound statements run across the edited place, and the lines it deletes
    hold no code of the tree (blank, comment, or a statement kept out of it before) or the
    lines it inserts only blank lines, comments and `name = <literal>` statements whose
    name nothing else reads."""
    chain = _spanning(tree, edit.after)
    if chain is None or not all(isinstance(c, COMPOUND) for c in chain[1:]):
        return False   # not between two lines of code of one body
    first, last = edit.after + 1, edit.after + abs(edit.count)
    if edit.count < 0:
        return not _starts_within(tree, first, last)
    new_lines = new_text.split("\n")
    lines = new_lines[first - 1:last]
    if all(map(no_code, lines)):
        return True
    if _unread_before_next(chain, new_text, new_lines, edit):
        return True
    new_tree = parse_text(new_text)
    return new_tree is not None and _inserted_are_unread(new_tree, new_text, lines, first)


def _unread_before_next(chain: list[ast.AST], new_text: str, new_lines: list[str], edit: LineEdit) -> bool:
    """Whether the inserted lines are `name = <literal>` statements of a function's body
    (`chain`: the block's tree and the compounds around the place) that nothing else
    names, known without parsing the whole block again: parsed alone, they are such
    statements, all with the blanks before them that `placed_before` takes. False: not
    known so (the block is parsed)."""
    in_function = False
    for c in chain:
        in_function = isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef)) or in_function and not isinstance(c, ast.ClassDef)
    first, last = edit.after + 1, edit.after + edit.count
    stmts = statements_alone(new_lines[first - 1:last], first)
    if not in_function or not stmts \
            or not all(_literal_assignment(x) and _named_once(x.targets[0].id, new_text) for x in stmts):   # type: ignore[attr-defined]
        return False
    blanks = {new_lines[x.lineno - 1].encode()[:x.col_offset] for x in stmts}
    return len(blanks) == 1 and placed_before(chain[-1], edit.after, last, edit.count, new_lines, blanks.pop()) is not None


@record(slots=True)
class BodyPlace:
    """Where code goes in a compound's bodies: before its statement `field[at]`."""

    field: str
    at: int


def placed_before(holder: Any, place: int, end: int, shift: int, new_lines: list[str], blanks: bytes) -> BodyPlace | None:
    """Where statements put after line `place` of a text, on lines up to `end` of the text
    after the edit (whose later lines are `shift` lines further down), each line of them
    starting with `blanks`, go in `holder`'s bodies whatever precedes them: before the
    first statement of a body that starts after `place`, with only blank lines and
    comments between (its decorators before it), whose first line starts with exactly
    `blanks` (as Python's tokenizer compares tabs and spaces), and that is no `elif`.
    None otherwise."""
    if not BLANK.issuperset(blanks):
        return None
    for field in ("body", "orelse", "finalbody"):
        items = getattr(holder, field, None) or []
        at = next((i for i, x in enumerate(items) if _first_line(x) > place), None)
        if at is None or (at and items[at - 1].end_lineno > place):
            continue
        after = items[at]
        start = _first_line(after)
        line = new_lines[after.lineno + shift - 1].encode()
        if after.col_offset != len(blanks) or new_lines[start + shift - 1].encode()[:len(blanks)] != blanks \
                or line[after.col_offset:].startswith(b"elif") or not all(map(no_code, new_lines[end:start + shift - 1])):
            return None
        return BodyPlace(field, at)
    return None


def _first_line(stmt: ast.stmt) -> int:
    """A statement's first line: its first decorator's, if any (nothing goes in between)."""
    return min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])


def _named_once(name: str, text: str) -> bool:
    return text.count(name) == 1 or len(re.findall(rf"\b{name}\b", text)) == 1


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


def _spanning(tree: ast.AST, after: int) -> list[ast.AST] | None:
    """`tree` and the nodes that run across the place after line `after` (1-based),
    outermost first; None where two nodes of one level do."""
    chain: list[ast.AST] = [tree]
    while True:
        spanning = [c for c in _children(chain[-1]) if c.lineno <= after < c.end_lineno]   # type: ignore[attr-defined]
        if not spanning:
            return chain
        if len(spanning) > 1:
            return None
        chain.append(spanning[0])


def _starts_within(tree: ast.AST, first: int, last: int) -> bool:
    """Whether some node of `tree` has code on lines `first`..`last`."""
    stack = [tree]
    while stack:
        for c in _children(stack.pop()):
            if c.lineno <= last and c.end_lineno >= first:   # type: ignore[attr-defined]
                if c.lineno >= first or not isinstance(c, COMPOUND):   # type: ignore[attr-defined]
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
                        and _named_once(c.targets[0].id, text)):   # type: ignore[attr-defined]
                    return False
                covered.update(range(c.lineno, c.end_lineno + 1))   # type: ignore[attr-defined]
            elif isinstance(c, COMPOUND):
                stack.append((c, isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef))
                              or (in_function and not isinstance(c, ast.ClassDef))))
            else:
                return False
    return all(first + i in covered or no_code(line) for i, line in enumerate(lines))


def no_code(line: str) -> bool:
    """A blank line or a comment."""
    return not line.strip() or line.lstrip().startswith("#")


def _literal_assignment(node: ast.AST) -> bool:
    return isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
        and isinstance(node.value, ast.Constant)
