"""Entry points of the analysis: source text in, findings out, incrementally.

How a run goes (`ModuleAnalyzer.analyze`):

1. split the text into top-level blocks (`parse.py`); blocks whose text did not change
   keep their parsed tree;
2. index which block binds which top-level name;
3. every block is an *entry*: its statements are interpreted (`flow.py`), top-level
   functions and classes that nothing calls are run with unknown arguments, and
   `pallas_call`s run their kernels with the refs Pallas allocates.  An entry's findings
   are cached with the names it looked up and the block each resolved to; the next run
   reuses them unless one of those bindings changed;
4. findings are de-duplicated, `# noqa` is applied, positions are made absolute.

A run can be cancelled between entries (the text changed again): it raises `Cancelled`,
and the entries it finished stay cached, so the next run only does what is left.
"""

from __future__ import annotations

import ast
import bisect
import builtins
import logging
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

from ..memory import gc_paused
from . import checks
from .api import KNOWN_NAMES
from .findings import Finding, Span
from .flow import Budget, Context, Frame, Interpreter, import_bindings
from .parse import Block, BlockList
from .suppression import apply_noqa
from .symbols import LIBRARY_ROOTS, canonical, resolve_relative
from .values import UNKNOWN, Api, Func
from .workspace import package_of

log = logging.getLogger(__name__)

_BUILTINS = frozenset(dir(builtins))
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))  # never followed into
STAR_IMPORT = "*"   # pseudo-name bound by `from module import *`
_PALLAS_ROOTS = ("pl", "pltpu", "plgpu")


def _bound_names(stmts, out):
    """Names bound at module level by these statements (not inside defs/classes)."""
    for s in stmts:
        t = type(s)
        if t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            out.add(s.name)
        elif t in (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor):
            targets = s.targets if t is ast.Assign else [s.target]
            for target in targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        out.add(n.id)
            if t in (ast.For, ast.AsyncFor):
                _bound_names(s.body, out)
                _bound_names(s.orelse, out)
        elif t in (ast.Import, ast.ImportFrom):
            for alias in s.names:
                if alias.name != "*":
                    out.add(alias.asname or alias.name.split(".")[0])
                else:
                    out.add(STAR_IMPORT)
        elif t in (ast.If, ast.While):
            _bound_names(s.body, out)
            _bound_names(s.orelse, out)
        elif t in (ast.With, ast.AsyncWith):
            _bound_names(s.body, out)
        elif t is ast.Try or t.__name__ == "TryStar":
            _bound_names(s.body, out)
            _bound_names(s.orelse, out)
            _bound_names(s.finalbody, out)
            for h in s.handlers:
                _bound_names(h.body, out)
    return out


_NAMES_CACHE: dict[str, frozenset] = {}


_DEF_NAME = re.compile(r"^(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.MULTILINE)


def def_name(block: Block) -> str | None:
    """The name a `def` / `class` block binds, read from its text (no parse needed)."""
    if not block.text.startswith(("def ", "async ", "class ", "@")):
        return None
    m = _DEF_NAME.search(block.text)
    return m.group(1) if m else None


def block_names(block: Block) -> frozenset:
    names = _NAMES_CACHE.get(block.text)
    if names is None:
        name = def_name(block)
        if name is not None:
            names = frozenset((name,))
            _NAMES_CACHE[block.text] = names
            return names
        tree = block.tree
        names = frozenset(_bound_names(tree.body, set())) if tree is not None else frozenset()
        if len(_NAMES_CACHE) > 20000:
            _NAMES_CACHE.clear()
        _NAMES_CACHE[block.text] = names
    return names


class ModuleState:
    """The module as the interpreter sees it during one run: top-level bindings, the
    (lazily computed, per-run cached) values of globals, and imports."""

    def __init__(self, blocks, bindings, path=None, package=None, workspace=None, loc_path=None):
        self.blocks = blocks
        self.path = path            # the file (for resolving imports); may be None
        self.loc_path = loc_path    # set for another module: its locations carry the path
        self.package = package
        self.workspace = workspace
        self.bindings: dict[str, Block] = bindings
        self._envs: dict = {}
        self._evaluating: set = set()

    def binding_key(self, name):
        b = self.bindings.get(name)
        return b.key if b is not None else None

    def global_value(self, name, ctx, frame):
        block = self.bindings.get(name)
        if block is not None and block.key in self._evaluating:
            # `kernel = functools.partial(kernel, ...)`: inside the block that rebinds the
            # name, it still means the earlier binding.
            block = next((b for b in reversed(self.blocks[:block.index]) if name in block_names(b)), None)
        ctx.deps[name] = block.key if block is not None else None
        if block is None:
            if STAR_IMPORT in self.bindings:
                value = self.star_value(name, ctx)
                if value is not None:
                    return value
            return Api(name) if name in _BUILTINS else UNKNOWN
        env = self.block_env(block, ctx)
        return env.get(name, UNKNOWN)

    def block_env(self, block, ctx):
        cached = self._envs.get(block.key)
        if cached is None and block._tree is False and block.text.startswith(("def ", "async def ")):
            # An undecorated function not parsed yet: parse it only if it is called.
            name = def_name(block)
            if name is not None:
                frame = Frame({}, None, block, path=self.loc_path, module=self)
                cached = ({name: Func(None, frame, block, name, self.loc_path)}, {})
                self._envs[block.key] = cached
        if cached is None:
            if block.key in self._evaluating or block.tree is None:
                return {}
            self._evaluating.add(block.key)
            sub = Context(self, silent=True)
            frame = Frame({}, None, block, path=self.loc_path, module=self)
            try:
                Interpreter(sub).run_body(block.tree.body, frame)
            except (Budget, RecursionError):
                pass
            except Exception:  # an interpreter bug must not take the run down
                log.exception("pallas-lsp: evaluating a top-level block failed")
            finally:
                self._evaluating.discard(block.key)
            cached = (frame.env, dict(sub.deps))
            self._envs[block.key] = cached
        env, deps = cached
        ctx.deps.update(deps)
        return env

    def star_value(self, name, ctx):
        """`name` through a `from module import *` (a re-export), if that module has it."""
        ctx.deps[STAR_IMPORT] = self.bindings[STAR_IMPORT].key
        for block in reversed(self.blocks):
            if STAR_IMPORT not in block_names(block):
                continue
            for stmt in ast.walk(block.tree):
                if not (isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names)):
                    continue
                mod = resolve_relative(stmt.module, stmt.level, self.package)
                if not mod:
                    continue
                qname = canonical(f"{mod}.{name}")
                if qname.split(".")[0] in _PALLAS_ROOTS:
                    if qname in KNOWN_NAMES:
                        return Api(qname)
                    continue
                if self.workspace is not None and mod.split(".")[0] not in LIBRARY_ROOTS:
                    foreign = self.workspace.module(mod, self.path)
                    if foreign is not None and (name in foreign.state.bindings or STAR_IMPORT in foreign.state.bindings):
                        ctx.deps["@" + mod] = self.workspace.version(mod)
                        return foreign.value(name, ctx)
        return None

    def import_values(self, stmt, frame, ctx):
        out = []
        for name, qname in import_bindings(stmt, self.package):
            if qname is None:
                out.append((name, UNKNOWN))
                continue
            root = qname.split(".")[0]
            if root in LIBRARY_ROOTS or root in _PALLAS_ROOTS or root in _STDLIB or self.workspace is None:
                out.append((name, Api(qname)))
            else:
                out.append((name, self.workspace.resolve(qname, self.path, ctx)))
        return out


# Words of the APIs that make semaphores, or that turn semaphore types into refs.  Calls
# that only use one (`pl.semaphore_signal`, ...) are not among them, nor is `pallas_call`
# (with its `scratch_shapes`): a kernel gets semaphores only from semaphore types made
# elsewhere, and what makes those is a creator itself (or a name bound to one, below).
_CREATORS = re.compile(r"run_scoped|with_scoped|core_map|\.kernel\b|get_barrier_semaphore|"
                       r"empty_ref_like|emit_pipeline|SemaphoreType|SEMAPHORE|new_ref|get_global")
# With a `from module import *` in the module, names may come from code we do not see:
# every call of a kernel is then taken to possibly allocate semaphores.
_CREATORS_BROAD = re.compile(_CREATORS.pattern + r"|pallas_call|scratch")
# Module-level statements may also bind an alias of an API (`from ... import kernel`).
_ALIAS_EXTRA = re.compile(r"\bkernel\b")
_LOCAL_IMPORT = re.compile(r"^[ \t]+(?:from|import)[ \t]", re.MULTILINE)
_SKIPPED = "#skipped"
_SKIPPED_ENTRY = ((), {_SKIPPED: None}, False, ())
_LONE_CR = re.compile(r"\r(?!\n)")


def _is_definition(block) -> bool:
    return def_name(block) is not None


_WORD = re.compile(r"[A-Za-z_]\w*")
_FACTS_CACHE: dict[tuple, _Facts] = {}


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
        creates = bool(_CREATORS.search(text))
        if not creates:
            if _is_definition(block):
                creates = bool(_LOCAL_IMPORT.search(text))
            else:
                creates = bool(_ALIAS_EXTRA.search(text)) or _imports_unseen_code(block, package)
        self.creates = creates
        self._broad = True if creates else None
        self._words = None

    @property
    def creates_broad(self) -> bool:
        if self._broad is None:
            self._broad = bool(_CREATORS_BROAD.search(self.text))
        return self._broad

    @property
    def words(self) -> tuple:
        if self._words is None:
            self._words = tuple(map(sys.intern, set(_WORD.findall(self.text))))
        return self._words


def _facts(block, package) -> _Facts:
    key = (block.text, package)
    facts = _FACTS_CACHE.get(key)
    if facts is None:
        if len(_FACTS_CACHE) > 20000:
            _FACTS_CACHE.clear()
        facts = _FACTS_CACHE[key] = _Facts(block, package)
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
                if root is None or not (root in LIBRARY_ROOTS or root in _PALLAS_ROOTS or root in _STDLIB):
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


def _in_closure(block, package, creators, broad) -> tuple[bool, bool]:
    """(in `creators`' closure, by its own words): whether `block` belongs to the closure,
    and whether it does because it creates (not through the names it mentions)."""
    facts = _facts(block, package)
    if facts.creates_broad if broad else facts.creates:
        return True, True
    return _mentions_other(facts.words, block_names(block), creators), False


class Cancelled(Exception):
    """`analyze` was told to stop: its text is superseded.  What it finished is kept."""


class ModuleAnalyzer:
    """Incremental analysis of one document: call `analyze(text)` after every change.

    Keeps per-block parse trees and per-entry results keyed by content, so an edit
    re-parses and re-analyses only what it touched.
    """

    def __init__(self, path: str | None = None, workspace=None, package: str | None = None):
        self.path = path
        self.workspace = workspace
        self.package = package if package is not None else package_of(path)
        self._block_list = BlockList()
        self._bindings: dict[str, Block] = {}
        self._ws_generation = None
        self._creators = None
        self._broad = False
        self._entries: dict = {}     # key -> (raw findings, deps)
        self._formatted: dict = {}   # id(raw) -> (block starts it depends on, Finding)
        self.stats = {"blocks": 0, "entries_run": 0}

    def analyze(self, source: str, cancelled: Callable[[], bool] | None = None) -> list[Finding]:
        """Findings for `source`.  `cancelled` is asked between entries; when it says
        True the run stops with `Cancelled` (the analyzer stays consistent with
        `source`: finished entries are kept, the others run next time)."""
        # Parsing and interpreting allocate many small, long-lived objects (AST nodes):
        # the cyclic GC would rescan them again and again (more than half the time of a
        # first analysis).  Nothing here makes cycles that must die early.
        with gc_paused():
            return self._analyze(source, cancelled)

    def _analyze(self, source: str, cancelled) -> list[Finding]:
        if "\r" in source:
            source = _LONE_CR.sub("\n", source)  # old Mac line ends: same length, same lines
        old = set(self._block_list.blocks)
        blocks = self._block_list.update(source)
        new = set(blocks)
        changed = new.symmetric_difference(old)
        changed_names = set()
        for b in changed:
            changed_names.update(block_names(b))
        bindings = self._bindings
        if len(changed_names) > 8:
            bindings.clear()
            for b in blocks:
                for name in block_names(b):
                    bindings[name] = b
        else:
            for name in changed_names:
                bindings.pop(name, None)
                for b in reversed(blocks):
                    if name in block_names(b):
                        bindings[name] = b
                        break
        state = ModuleState(blocks, bindings, self.path, self.package, self.workspace)
        ws_changed = self.workspace is not None and self.workspace.generation != self._ws_generation
        if ws_changed:
            self._ws_generation = self.workspace.generation
        creators = self._creator_names(blocks, changed, new)
        creators_changed = creators != self._creators
        self._creators = creators
        # Keep only the entries still valid for this text (so that a cancelled run leaves
        # a consistent cache), then run the others.
        old_entries = self._entries
        entries = self._entries = {}
        todo = []
        for block in blocks:
            cached = old_entries.get(block)
            if cached is None or (changed_names and not changed_names.isdisjoint(cached[1])) \
                    or (ws_changed and cached[2] and not self._external_valid(cached[1])) \
                    or (creators_changed and _SKIPPED in cached[1]):
                todo.append(block)
            else:
                entries[block] = cached
        ran = 0
        for block in todo:
            if cancelled is not None and cancelled():
                raise Cancelled
            if _is_definition(block) and not _in_closure(block, self.package, creators, self._broad)[0]:
                # A function or class that creates no semaphore itself: run with
                # unknown arguments it cannot find anything; the entries that give
                # it semaphores analyse it.
                entries[block] = _SKIPPED_ENTRY
            else:
                found, deps, views = self._run_entry(block, state)
                entries[block] = (found, deps, any(k.startswith("@") for k in deps), views)
                ran += 1
        if cancelled is not None and ran and cancelled():
            raise Cancelled
        raws = [raw for block in blocks for raw in entries[block][0]]
        self.stats = {"blocks": len(blocks), "entries_run": ran}
        return self._finish(raws)

    def _creator_names(self, blocks, changed, live):
        """The module's `creator_closure`, recomputed only when a change may move it.

        It cannot when every changed block is outside the closure, or inside because it
        creates itself, and the names bound by the changed blocks inside are the same
        before and after the change (the typical keystroke in a kernel or its wrapper)."""
        broad = STAR_IMPORT in self._bindings
        old = self._creators
        if old is not None and broad == self._broad:
            removed, added = [], []
            stable = True
            for b in changed:
                inside, creates = _in_closure(b, self.package, old, broad)
                if not inside:
                    continue
                if b in live:
                    if not creates:
                        stable = False
                        break
                    added.append(sorted(block_names(b)))
                else:
                    removed.append(sorted(block_names(b)))
            if stable and sorted(removed) == sorted(added):
                return old
        self._broad = broad
        return creator_closure(blocks, self.package, broad)

    def semaphore_at(self, line: int, col: int) -> SemaphoreInfo | None:
        """What the last `analyze` knows of the semaphore named at (line, col): for hover."""
        live = set(self._block_list.blocks)
        best = None
        for cached in self._entries.values():
            for block, node, sem, _ in cached[3]:
                if block not in live:
                    continue
                l0 = block.start + node.lineno - 1
                if l0 != line or node.end_lineno != node.lineno:
                    continue
                c0, c1 = block.col(node.lineno - 1, node.col_offset), block.col(node.lineno - 1, node.end_col_offset)
                if c0 <= col <= c1 and (best is None or c1 - c0 < best[0]):
                    best = (c1 - c0, block, node, sem)
        if best is None:
            return None
        _, block, node, sem = best
        return SemaphoreInfo(block.segment(node), sem.kind, sem.dims,
                             checks.loc_span(sem.decl) if sem.decl is not None else None,
                             sem.decl.path if sem.decl is not None else None)

    def _external_valid(self, deps):
        ws = self.workspace
        return all(ws.version(name[1:]) == key for name, key in deps.items() if name.startswith("@"))

    def _run_entry(self, block, state):
        if block.tree is None:
            return [], {}, []
        ctx = Context(state)
        interp = Interpreter(ctx)
        frame = Frame({}, None, block, path=None, module=state)
        try:
            interp.run_body(block.tree.body, frame)
            interp.flush_created(frame)
            while ctx.pending:
                interp.invoke_kernel(ctx.pending[0], None)
        except (Budget, RecursionError):
            pass
        except Exception:
            log.exception("pallas-lsp: analysing the block at line %d failed", block.start + 1)
        checks.report_inside_indexing_helpers(ctx.findings, ctx.indexed_sites, ctx.kernel_nodes)
        checks.index_hints(ctx.findings, ctx.views)
        for raw in ctx.findings:
            decl = raw.sem.decl
            if decl is not None and id(decl.node) in ctx.indexed_decls:
                raw.decl_indexed = True
        return ctx.findings, dict(ctx.deps), ctx.views

    def _finish(self, raws) -> list[Finding]:
        live = set(self._block_list.blocks)
        best: dict = {}
        formatted = {}
        for raw in raws:
            if raw.at.block.key not in live or raw.at.path is not None:
                continue
            key = checks.position_key(raw)
            cached = self._formatted.get(id(raw))
            if cached is not None and cached[0] == key:
                f = cached[1]
            else:
                try:
                    f = checks.to_finding(raw)
                except Exception:
                    log.exception("pallas-lsp: could not format a finding")
                    continue
            formatted[id(raw)] = (key, f)
            prev = best.get(f.span)
            if prev is None or (prev.severity != "error" and f.severity == "error"):
                best[f.span] = f
        self._formatted = formatted
        findings = sorted(best.values(), key=lambda f: (f.span, f.code))
        if findings:
            findings = apply_noqa(findings, _DocumentLines(self._block_list.blocks))
        return findings


@dataclass(frozen=True)
class SemaphoreInfo:
    """A semaphore as the analysis sees it at one place (hover text)."""

    text: str
    kind: str
    dims: tuple | None
    decl: Span | None
    decl_path: str | None

    def describe(self) -> str:
        """Markdown for hover: what it is, where it was declared, what to do."""
        from .values import shape_text

        kind = "semaphore" if self.kind == "?" else f"{self.kind} semaphore"
        where = ""
        if self.decl is not None:
            where = (f", declared at line {self.decl.line + 1}" if self.decl_path is None
                     else f", declared in {self.decl_path}:{self.decl.line + 1}")
        if self.dims == ():
            return f"`{self.text}`: one {kind} (shape `()`){where}."
        shape = "a shape that depends on the path" if self.dims is None else f"shape `{shape_text(self.dims)}`"
        return (f"`{self.text}`: an array of {kind}s, {shape}{where}. A DMA or a signal takes one "
                f"semaphore: index it with `.at[...]`.")


class _DocumentLines:
    """Lines of the document, read through its blocks (no split of the whole text)."""

    def __init__(self, blocks):
        self._blocks = blocks
        self._starts = [b.start for b in blocks]

    def __len__(self):
        b = self._blocks[-1] if self._blocks else None
        return b.start + len(b.lines) if b else 0

    def __getitem__(self, line):
        if line < 0:
            line += len(self)
        i = bisect.bisect_right(self._starts, line) - 1
        if i < 0:
            raise IndexError(line)
        lines = self._blocks[i].lines
        if line - self._blocks[i].start >= len(lines):
            raise IndexError(line)
        return lines[line - self._blocks[i].start]


def analyze_source(source: str, path: str | None = None, workspace=None) -> list[Finding]:
    """One-shot analysis of a whole module's text (what the CLI uses)."""
    return ModuleAnalyzer(path, workspace).analyze(source)
