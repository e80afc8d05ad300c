"""The creator closure: which top-level definitions are analysed on their own.

A definition is an entry only if it may make semaphores itself or mention a name that
may stand for them; the others can only be given semaphores by a caller, and the
caller's entry analyses them there (see docs/architecture.md, Incrementality)."""

from __future__ import annotations

import ast
import re
import sys

from .caches import CACHES
from .interp.syntax import import_bindings
from .module import PALLAS_ROOTS, STDLIB, block_names, def_name
from .pallas.derived import CREATORS, CREATORS_BROAD
from .parse import Block
from .symbols import LIBRARY_ROOTS

# Which APIs make semaphores is derived from the registry (`pallas.derived.CREATORS`).
# Module-level statements may also bind an alias of an API (`from ... import kernel`).
_ALIAS_EXTRA = re.compile(r"\bkernel\b")
_LOCAL_IMPORT = re.compile(r"^[ \t]+(?:from|import)[ \t]", re.MULTILINE)


def is_definition(block: Block) -> bool:
    return def_name(block) is not None


_WORD = re.compile(r"[A-Za-z_]\w*")


class _Facts:
    """What the creator closure needs of a block, computed once per text (and package).

    `creates`: the block mentions a creating API (module-level statements: or an alias of
    one), or imports from a module outside the standard library, JAX and Pallas (its
    values are code we do not see here; in a function: any import).  `creates_broad`:
    the same, counting `pallas_call` (used with a star import in the module).  `words`:
    its identifiers, as a tuple of interned strings (a fraction of the memory of a set of
    fresh strings).  The last two are computed only when asked for."""

    __slots__ = ("_broad", "_words", "creates", "text")

    def __init__(self, block, package):
        text = self.text = block.text
        creates = bool(CREATORS.search(text))
        if not creates:
            if is_definition(block):
                creates = bool(_LOCAL_IMPORT.search(text))
            else:
                creates = bool(_ALIAS_EXTRA.search(text)) or _imports_unseen_code(block, package)
        self.creates = creates
        self._broad = True if creates else None
        self._words = None

    @property
    def creates_broad(self) -> bool:
        if self._broad is None:
            self._broad = bool(CREATORS_BROAD.search(self.text))
        return self._broad

    @property
    def words(self) -> tuple:
        if self._words is None:
            self._words = tuple(map(sys.intern, set(_WORD.findall(self.text))))
        return self._words


def _facts(block, package) -> _Facts:
    key = (block.text, package)
    facts = CACHES.facts.get(key)
    if facts is None:
        facts = CACHES.facts.put(key, _Facts(block, package))
    return facts


def _imports_unseen_code(block, package) -> bool:
    if "import" not in block.text or block.tree is None:
        return False
    for stmt in ast.walk(block.tree):
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
                return True
            for _, qname in import_bindings(stmt, package):
                root = qname.split(".")[0] if qname else None
                if root is None or not (root in LIBRARY_ROOTS or root in PALLAS_ROOTS or root in STDLIB):
                    return True
    return False


def creator_closure(blocks, package, broad=False) -> frozenset:
    """Top-level names that may stand for semaphores or for what makes them: the names
    bound by blocks that create (see `_facts`), then, until nothing changes, the names
    bound by blocks that mention one of those names (other than their own).  A function
    whose block is outside can only be given semaphores by a caller, whose entry follows
    it there.  `broad`: count `pallas_call` as creating (a star import in the module)."""
    creators: set = set()
    rest = []
    for b in blocks:
        facts = _facts(b, package)
        if facts.creates_broad if broad else facts.creates:
            creators.update(block_names(b))
        else:
            rest.append((b, facts.words))
    grew = True
    while grew and rest:
        grew = False
        keep = []
        for b, words in rest:
            if creators.isdisjoint(words) or not _mentions_other(words, block_names(b), creators):
                keep.append((b, words))
            else:
                grew = True
                creators.update(block_names(b))
        rest = keep
    return frozenset(creators)


def _mentions_other(words, own, names) -> bool:
    return any(w in names and w not in own for w in words)


def in_closure(block, package, creators, broad) -> tuple[bool, bool]:
    """(in `creators`' closure, by its own words): whether `block` belongs to the closure,
    and whether it does because it creates (not through the names it mentions)."""
    facts = _facts(block, package)
    if facts.creates_broad if broad else facts.creates:
        return True, True
    return _mentions_other(facts.words, block_names(block), creators), False
