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
import re
import warnings

# A block starts at column 0 with code (not a comment, not a closing bracket).  Triple
# quotes are matched too, so that lines inside a multi-line string never start a block.
_START_OR_QUOTE = re.compile(r'^(?=[^\s#)\]}])|"""|\'\'\'', re.M)
_CONTINUATION = re.compile(r"(?:else|elif|except|finally|case)\b")

_PARSE_CACHE: dict[str, "ast.Module | None"] = {}
_PARSE_CACHE_LIMIT = 20000


class Block:
    """One top-level statement: its text, where it starts, its (lazily parsed) tree."""

    __slots__ = ("key", "text", "start", "_tree", "_lines", "index")

    def __init__(self, key, text: str, start: int, index: int):
        self.key = key          # (text, occurrence): stable identity across edits
        self.text = text
        self.start = start      # 0-based document line of the block's first line
        self.index = index      # position in the module
        self._tree = False
        self._lines = None

    @property
    def tree(self) -> "ast.Module | None":
        """The parsed block, or None when it does not parse (half-typed code)."""
        if self._tree is False:
            self._tree = parse_text(self.text)
        return self._tree

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.text.split("\n")
        return self._lines

    def col(self, rel_line: int, byte_col: int) -> int:
        """Convert an `ast` byte column on block line `rel_line` (0-based) to code points."""
        lines = self.lines
        if rel_line >= len(lines):
            return byte_col
        line = lines[rel_line]
        if line.isascii():
            return byte_col
        return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def segment(self, node: ast.AST) -> str:
        """The source text of `node` (which belongs to this block)."""
        lines = self.lines
        l0, l1 = node.lineno - 1, node.end_lineno - 1
        if l0 == l1:
            b = lines[l0].encode("utf-8")
            return b[node.col_offset:node.end_col_offset].decode("utf-8", "replace")
        parts = [lines[l0].encode("utf-8")[node.col_offset:].decode("utf-8", "replace")]
        parts += lines[l0 + 1:l1]
        parts.append(lines[l1].encode("utf-8")[:node.end_col_offset].decode("utf-8", "replace"))
        return "\n".join(parts)

    def __repr__(self):
        return f"Block(start={self.start}, {self.text[:30]!r})"


def parse_text(text: str) -> "ast.Module | None":
    tree = _PARSE_CACHE.get(text, False)
    if tree is False:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes etc.
                tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        if len(_PARSE_CACHE) >= _PARSE_CACHE_LIMIT:
            _PARSE_CACHE.clear()
        _PARSE_CACHE[text] = tree
    return tree


def block_starts(text: str) -> list[int]:
    """Character offsets where top-level blocks start (the first is always 0)."""
    starts = [0]
    quote = None
    prev_decorator = False
    for m in _START_OR_QUOTE.finditer(text):
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
        if pos == 0:
            prev_decorator = text.startswith("@")
            continue
        if _CONTINUATION.match(text, pos) or prev_decorator:
            prev_decorator = text.startswith("@", pos)
            continue
        prev_decorator = text.startswith("@", pos)
        starts.append(pos)
    return starts


def split_blocks(text: str) -> list[Block]:
    """Split a module into blocks.  Blocks that do not parse alone (a bracket left open
    across a column-0 line, for instance) are merged with their successors until they do,
    a few at most; what still fails stays an unparsable block and is skipped."""
    starts = block_starts(text)
    starts.append(len(text))
    pieces = []
    line = 0
    i = 0
    n = len(starts) - 1
    while i < n:
        a, b = starts[i], starts[i + 1]
        piece = text[a:b]
        j = i + 1
        if parse_text(piece) is None:
            # Try to heal by merging with the next few blocks (e.g. a call whose
            # arguments start at column 0); keep the original split if nothing helps.
            for k in range(i + 2, min(i + 6, n) + 1):
                merged = text[a:starts[k]]
                if parse_text(merged) is not None:
                    piece, j = merged, k
                    break
        pieces.append((piece, line))
        line += piece.count("\n")
        i = j
    seen: dict[str, int] = {}
    blocks = []
    for idx, (piece, start) in enumerate(pieces):
        occ = seen.get(piece, 0)
        seen[piece] = occ + 1
        blocks.append(Block((piece, occ), piece, start, idx))
    return blocks
