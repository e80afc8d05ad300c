"""Source text -> top-level blocks, each parsed on its own and cached by content.

A *block* is one top-level statement (with its decorators and its `else`/`except`
continuations).  Parsing block by block gives two things at once:

* error tolerance: a syntax error in one function only loses that block; the rest of
  the module is still analysed;
* incrementality: an edit changes the text of one block, so only that block is parsed
  again, and analysis results that did not read it stay valid.

Line numbers inside a block's tree are relative to the block (line 1 = its first line);
`Block.start` maps them back to the document.  Column offsets in `ast` are UTF-8 byte
offsets; `Block.col` converts them to code points for the (rare) non-ASCII lines.
"""

from __future__ import annotations

import ast
import bisect
import re
import warnings
import weakref
from array import array
from typing import Any

from .caches import CACHES

# A block starts at column 0 with code (not a comment, not a closing bracket).  Triple
# quotes are matched too, so that lines inside a multi-line string never start a block.
_START_OR_QUOTE = re.compile(r'^(?=[^\s#)\]}])|"""|\'\'\'', re.MULTILINE)
_CONTINUATION = re.compile(r"(?:else|elif|except|finally|case)\b")
# Blocks that left the document kept for an edit that brings their text back (an undo,
# a character typed and deleted): the same object returns, and with it its results.
LEFT_BLOCKS = 16


class Block:
    """One top-level statement: its text, where it starts, its (lazily parsed) tree."""

    __slots__ = ("__weakref__", "_starts", "_tree", "_walrus", "index", "offset", "start", "text")
    shares_trees = True   # a tree parsed once for equal texts (`CACHES.parse`)

    def __init__(self, text: str, start: int, offset: int):
        self.text = text
        self.start = start      # 0-based document line of the block's first line
        self.offset = offset    # character offset of the block in the document
        self.index = 0          # position in the module
        self._tree: ast.Module | None | bool = False
        self._starts: array | None = None   # offsets of its lines (compact: kept for every block)
        self._walrus: bool | None = None

    @property
    def may_bind_in_expressions(self) -> bool:
        """Whether its text spells `:=` (read once: a moved line never adds one)."""
        if self._walrus is None:
            self._walrus = ":=" in self.text
        return self._walrus

    @property
    def key(self):
        """Identity of the block across edits (the object itself: kept while its text is)."""
        return self

    @property
    def tree(self) -> ast.Module | None:
        """The parsed block, or None when it does not parse (half-typed code)."""
        if self._tree is False:
            self._tree = parse_text(self.text) if self.shares_trees else parse_uncached(self.text)
            if self._tree is not None:
                CACHES.holders.setdefault(self._tree, weakref.WeakSet()).add(self)
        return self._tree if isinstance(self._tree, ast.Module) else None

    @property
    def parses(self) -> bool:
        """Whether the block was parsed and parses (it is not parsed here)."""
        return isinstance(self._tree, ast.Module)

    def adopt_spliced(self, tree: ast.Module, source: Block) -> None:
        """Take `tree`, `source`'s tree with one statement parsed again (`splice.py`): the
        two share their other nodes, a family of trees (`CACHES.families`) no other text's
        block is given (it is not in `CACHES.parse`)."""
        self._tree = tree
        CACHES.holders.setdefault(tree, weakref.WeakSet()).add(self)
        family = CACHES.families.get(source._tree)
        if family is None:
            family = CACHES.families[source._tree] = [(weakref.ref(source._tree), source.text)]
        family[:] = [(ref, text) for ref, text in family if ref() is not None]   # the trees still held
        family.append((weakref.ref(tree), self.text))
        CACHES.families[tree] = family

    def take_place(self, new: Block) -> None:
        """Take `new`'s text and place, keeping this block's tree, whose nodes the caller
        gave the positions they have in `new` (`relay.move`): results that refer to them stay."""
        CACHES.parse.discard(self.text, self._tree)   # the tree no longer has this text's positions
        self.text, self.start, self.offset, self.index = new.text, new.start, new.offset, new.index
        self._starts = None

    def release(self) -> None:
        """This block left its document: it no longer holds its tree (it may live on in
        garbage the GC does not see, frozen)."""
        holders = self._holders()
        if holders is not None:
            holders.discard(self)

    @property
    def sole_holder(self) -> bool:
        """Whether no other block holds this block's parse tree (equal texts share one)."""
        holders = self._holders()
        return holders is not None and len(holders) == 1

    def _holders(self) -> Any:
        """The blocks holding this block's parsed tree (`CACHES.holders`), if it has one."""
        return CACHES.holders.get(self._tree) if isinstance(self._tree, ast.Module) else None

    @property
    def line_count(self) -> int:
        return len(self._line_starts())

    def line(self, i: int) -> str:
        """The block's line `i` (0-based) without its newline; "" past the end."""
        starts = self._line_starts()
        if i >= len(starts):
            return ""
        end = starts[i + 1] - 1 if i + 1 < len(starts) else len(self.text)
        return self.text[starts[i]:end]

    def _line_starts(self) -> array:
        starts = self._starts
        if starts is None:
            starts = self._starts = array("I", [0])
            find = self.text.find
            at = find("\n")
            while at >= 0:
                starts.append(at + 1)
                at = find("\n", at + 1)
        return starts

    def col(self, rel_line: int, byte_col: int) -> int:
        """Convert an `ast` byte column on block line `rel_line` (0-based) to code points."""
        line = self.line(rel_line)   # "" past the end
        if line.isascii():
            return byte_col
        return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def segment(self, node: Any) -> str:
        """The source text of `node` (which belongs to this block)."""
        line = self.line
        l0, l1 = node.lineno - 1, node.end_lineno - 1
        if l0 == l1:
            b = line(l0).encode("utf-8")
            return b[node.col_offset:node.end_col_offset].decode("utf-8", "replace")
        parts = [line(l0).encode("utf-8")[node.col_offset:].decode("utf-8", "replace")]
        parts += [line(i) for i in range(l0 + 1, l1)]
        parts.append(line(l1).encode("utf-8")[:node.end_col_offset].decode("utf-8", "replace"))
        return "\n".join(parts)

    def __repr__(self):
        return f"Block(start={self.start}, {self.text[:30]!r})"


class ForeignBlock(Block):
    """A block of another module (`workspace.py`): its tree is its own, never one a block
    of the document holds too (a helper copied between sibling modules), so that an edit
    that only moves the document's block can keep its tree (`relay.py`)."""

    __slots__ = ()
    shares_trees = False


def parse_text(text: str) -> ast.Module | None:
    """The tree of `text`, shared with every other text equal to it; None: no parse."""
    tree = CACHES.parse.get(text, False)
    if not isinstance(tree, (ast.Module, type(None))):
        tree = CACHES.parse.put(text, parse_uncached(text))
    return tree


def parse_uncached(text: str) -> ast.Module | None:
    """The tree of `text`, made afresh and kept nowhere; None: no parse."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes etc.
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def statements_alone(lines: list[str], first: int) -> list[ast.stmt] | None:
    """The statements indented `lines` (lines `first`.. of a block's text) hold when
    parsed alone, with the positions they have in the block; None: they do not parse."""
    wrapper = parse_uncached("if 1:\n" + "\n".join(lines))
    if wrapper is None:
        return None
    body = wrapper.body[0].body   # type: ignore[attr-defined]
    return [ast.increment_lineno(stmt, first - 2) for stmt in body]


def block_starts(text: str, begin: int = 0, end: int | None = None) -> list[int]:
    """Character offsets where top-level blocks start, in [begin, end).

    `begin` must itself be a block start (0, or a start found before); it is included."""
    starts = [begin]
    quote = None
    prev_decorator = text.startswith("@", begin)
    for m in _START_OR_QUOTE.finditer(text, begin, len(text) if end is None else end):
        tok = m.group()
        if tok:
            if quote is None:
                quote = tok
            elif quote == tok:
                quote = None
            continue
        if quote is not None:
            continue
        pos = m.start()
        if pos == begin:
            continue
        if _CONTINUATION.match(text, pos) or prev_decorator:
            prev_decorator = text.startswith("@", pos)
            continue
        prev_decorator = text.startswith("@", pos)
        starts.append(pos)
    return starts


def common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    for step in (65536, 4096, 256, 1):  # C-speed slice compares, coarse to fine
        while i + step <= n and a[i:i + step] == b[i:i + step]:
            i += step
    return i


def common_suffix(a: str, b: str, limit: int) -> int:
    la, lb = len(a), len(b)
    k = 0
    for step in (65536, 4096, 256, 1):
        while k + step <= limit and a[la - k - step:la - k] == b[lb - k - step:lb - k]:
            k += step
    return k


class BlockList:
    """The blocks of one document, kept up to date edit by edit.

    `update(new_text)` finds the changed region by comparing with the previous text,
    re-splits only the blocks around it and keeps every other `Block` object (so their
    parse trees and the analysis results keyed by them stay valid); blocks after the
    edit only have their offsets and line numbers shifted.  Blocks that left the document
    (`retire`) come back when their text does."""

    def __init__(self) -> None:
        self.text: str | None = None
        self.blocks: list[Block] = []
        # (old block, its new text's block) when the last update replaced one block by one
        self.replaced: tuple[Block, Block] | None = None
        self._left: dict[str, Block] = {}   # text -> a block that left, oldest first

    def retire(self, blocks) -> None:
        """`blocks` left the document: keep the last LEFT_BLOCKS (they hold their trees)
        for their texts' return; the others release theirs."""
        for b in blocks:
            earlier = self._left.pop(b.text, None)
            if earlier is not None and earlier is not b:
                earlier.release()
            self._left[b.text] = b
        while len(self._left) > LEFT_BLOCKS:
            self._left.pop(next(iter(self._left))).release()

    def _reuse(self, blocks) -> dict[str, list[Block]]:
        """Text -> the blocks an update may keep for it: `blocks`, then one that left."""
        reuse: dict[str, list[Block]] = {}
        for b in blocks:
            reuse.setdefault(b.text, []).append(b)
        for text, b in self._left.items():
            reuse.setdefault(text, []).append(b)
        return reuse

    def update(self, new: str) -> list[Block]:
        before = self.blocks
        self.replaced = None
        after = self._update(new)
        known = set(before)
        for text, b in list(self._left.items()):
            if b.index < len(after) and after[b.index] is b:
                del self._left[text]   # back in the document, as it was
                known.add(b)
        kept = set(after)
        gone = [b for b in before if b not in kept]
        if len(gone) == 1 and len(before) == len(after):
            fresh = [b for b in after if b not in known]
            if len(fresh) == 1 and fresh[0].index == gone[0].index:
                self.replaced = (gone[0], fresh[0])
        return after

    def _update(self, new: str) -> list[Block]:
        old, blocks = self.text, self.blocks
        self.text = new
        if old is None or not blocks:
            self.blocks = _split_range(new, 0, len(new), 0, {})
            return self.blocks
        p = common_prefix(old, new)
        if p == len(old) == len(new):
            return blocks
        s = common_suffix(old, new, min(len(old), len(new)) - p)
        old_end, new_end = len(old) - s, len(new) - s
        if any(q in chunk for chunk in (old[max(0, p - 3):old_end + 3], new[max(0, p - 3):new_end + 3])
               for q in ('"""', "'''")):
            # String boundaries may have moved: split everything again, but keep the
            # Block objects whose text is unchanged.
            self.blocks = _split_range(new, 0, len(new), 0, self._reuse(blocks))
            return self.blocks
        offsets = [b.offset for b in blocks]
        i = max(0, bisect.bisect_right(offsets, p) - 2)
        j = bisect.bisect_right(offsets, old_end) + 1
        delta = len(new) - len(old)
        begin = offsets[i]
        end = offsets[j] + delta if j < len(blocks) else len(new)
        mid = _split_range(new, begin, end, blocks[i].start, self._reuse(blocks[i:j]))
        if mid and j < len(blocks) and mid[-1].text.startswith("@"):
            self.blocks = []  # a decorator now joins the next block: rare, split all
            return self.update_full(new, blocks)
        line_delta = (new.count("\n", begin, end) - old.count("\n", begin, offsets[j] if j < len(blocks) else len(old)))
        tail = blocks[j:]
        for b in tail:
            b.offset += delta
            b.start += line_delta
        result = blocks[:i] + mid + tail
        for idx in range(i, len(result)):
            result[idx].index = idx
        self.blocks = result
        return result

    def keep(self, old: Block, new: Block) -> None:
        """Put `old` back in the place of `new` (the block that replaced it), with its text."""
        old.take_place(new)
        self.blocks[new.index] = old

    def own_nodes(self, block: Block) -> bool:
        """Before `block`'s tree is changed in place (`relay.py`): make it the only tree
        holding its nodes. The other trees of its family (`Block.adopt_spliced`) must be
        held by blocks that left this document only: those blocks are forgotten (their
        text, when it returns, is parsed again) and so are the trees. False (nothing
        done) where another tree of the family is held elsewhere."""
        tree = block._tree
        family = CACHES.families.get(tree)
        if family is None:
            return True
        left = {id(b) for b in self._left.values()}
        others = [(other, text) for other, text in ((ref(), text) for ref, text in family)
                  if other is not None and other is not tree]
        holders = [h for other, _ in others for h in CACHES.holders.get(other, ())]
        if any(id(h) not in left for h in holders):
            return False
        for h in holders:
            del self._left[h.text]
            h.release()
        for other, text in others:
            CACHES.parse.discard(text, other)
            CACHES.families.pop(other, None)
        CACHES.families.pop(tree, None)
        return True

    def update_full(self, new, old_blocks):
        self.text = new
        self.blocks = _split_range(new, 0, len(new), 0, self._reuse(old_blocks))
        return self.blocks


def _open_brackets(piece: str) -> bool:
    """Cheap test (no parse) for a block that leaves a bracket open, i.e. one that may
    continue on a line starting at column 0."""
    return (piece.count("(") + piece.count("[") + piece.count("{")
            > piece.count(")") + piece.count("]") + piece.count("}"))


def _split_range(text: str, begin: int, end: int, first_line: int, reuse: dict,
                 make: type[Block] = Block) -> list[Block]:
    """Blocks of text[begin:end].  Blocks that do not parse alone (a bracket left open
    across a column-0 line, for instance) are merged with their successors until they
    do, a few at most; what still fails stays an unparsable block and is skipped."""
    starts = block_starts(text, begin, end)
    starts.append(end)
    blocks: list[Block] = []
    line = first_line
    i = 0
    n = len(starts) - 1
    while i < n:
        a, b = starts[i], starts[i + 1]
        piece = text[a:b]
        j = i + 1
        if _open_brackets(piece) and parse_text(piece) is None:
            for k in range(i + 2, min(i + 6, n) + 1):
                merged = text[a:starts[k]]
                if parse_text(merged) is not None:
                    piece, j = merged, k
                    break
        olds = reuse.get(piece)
        if olds:
            block = olds.pop(0)
            block.start, block.offset = line, a
        else:
            block = make(piece, line, a)
        block.index = len(blocks)
        blocks.append(block)
        line += piece.count("\n")
        i = j
    return blocks


def split_blocks(text: str, make: type[Block] = Block) -> list[Block]:
    """Split a whole module into blocks (one-shot), made by `make`."""
    return _split_range(text, 0, len(text), 0, {}, make)
