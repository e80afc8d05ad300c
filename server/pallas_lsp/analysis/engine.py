"""Entry points of the analysis: source text in, findings out, incrementally.

How a run goes (`ModuleAnalyzer.analyze`):

1. split the text into top-level blocks (`parse.py`); unchanged blocks keep their parsed tree;
2. index which block binds which top-level name;
3. every block is an *entry*: its statements are interpreted (`interp/`), top-level
   functions and classes that nothing calls are run with unknown arguments, and
   `pallas_call`s run their kernels with the refs Pallas allocates.  An entry's findings
   are cached with the names it looked up and the block each resolved to; the next run
   reuses them unless one of those bindings changed;
4. findings are de-duplicated, `# noqa` is applied, positions are made absolute.

A run can be cancelled (the text changed again), between entries and every few thousand
steps inside one: it raises `Cancelled`, and the entries it finished stay cached, so the
next run only does what is left.
"""

from __future__ import annotations

import ast
import bisect
import logging
import re
from collections.abc import Callable
from dataclasses import field
from typing import Any

from . import checks
from .arrays.domain import ArrayDomain
from .arrays.notes import ValueNote, note_at, value_notes
from .closure import creator_closure, in_closure, is_definition
from .contract import ContractResult, check_calls
from .contract.params import ParamNote
from .contract.summary import CallSummary, summary_at
from .findings import Finding, Span
from .interp.core import Interpreter
from .interp.domain import Domain
from .interp.frame import Budget, Context, Frame, Interrupted
from .interp.summaries import Summaries
from .module import STAR_IMPORT, ModuleState, block_names
from .pallas.domain import NamedSem, PallasDomain
from .pallas.indexed_use import Evidence, inferred_array
from .pallas.invokers import invoke_kernel
from .pallas.kinds import settle_kind_choices
from .pallas.protocol import Protocol
from .pallas.replay import replay_kernels
from .parse import Block, BlockList
from .recall import EarlierResults
from .records import record
from .relay import keep_moved_block
from .splice import splice_edited_block
from .report import ContractFinding, loc_span
from .suppression import apply_noqa
from .values import shape_text
from .workspace import package_of

log = logging.getLogger(__name__)

# The domains an entry's interpreter asks, in order (`interp.domain`), unless an analyzer
# is given others; stateless.
DOMAINS: tuple[Domain, ...] = (ArrayDomain(), PallasDomain())

_LONE_CR = re.compile(r"\r(?!\n)")


@record(slots=True)
class EntryResult:
    """What running one entry gave: its raw findings, the global names it read (with the
    block each resolved to; `@module` keys: another module's version), the semaphores it
    named (for hover), and whether it was skipped (outside the creator closure)."""

    findings: tuple = ()
    deps: dict = field(default_factory=dict)
    views: tuple = ()
    bindings: tuple = ()      # contract.params.ParamBinding: what kernel parameters receive
    calls: tuple = ()         # contract.summary.CallFacts: each pallas_call, for its hover
    kernels: frozenset = frozenset()   # the defs its run surely gave refs to (pallas_call, pl.kernel)
    leaned_on: frozenset = frozenset()  # blocks whose own entries run what it handed to unknown code
    skipped: bool = False
    invoked: bool = False     # a kernel another entry runs with its refs: not run on its own
    cut: bool = False         # steps ran out: its next run takes no call remembered from another

    @property
    def reads_other_modules(self) -> bool:
        return any(k.startswith("@") for k in self.deps)


def _no_longer_alone(block: Block, cached: EntryResult, alone: frozenset) -> bool:
    """A function or class that ran as an entry of its own, now outside the creator
    closure: its entry is skipped now (its run's values and findings go)."""
    return not cached.skipped and not cached.invoked and block not in alone and is_definition(block)


def _counted_apart(ctx: Context, complete: bool) -> bool:
    """Steps (or Python's stack) ran out in a run that took remembered calls: where, the
    run without them decides."""
    return bool(ctx.summary_hits) and (ctx.cut or not complete)


def _ran_out_before(stale: list, added: set) -> set:
    """The blocks whose last run ran out of steps, and the blocks an edit made of one (the
    new text of a definition binds its name): their next run takes no remembered call. It
    would run out again and be made again without them, which decides (`_counted_apart`)."""
    cut = {block for block, result in stale if result.cut}
    names = {name for block in cut for name in block_names(block)}
    return cut | {block for block in added if not names.isdisjoint(block_names(block))} if names else cut


_SKIPPED = EntryResult(skipped=True)
_INVOKED = EntryResult(invoked=True)


@record
class _Formatted:
    """A finding formatted for the block positions in `key` (re-made when one moves)."""

    key: tuple
    finding: Finding


class Cancelled(Exception):
    """`analyze` was told to stop: its text is superseded.  What it finished is kept."""


class ModuleAnalyzer:
    """Incremental analysis of one document: call `analyze(text)` after every change.

    Keeps per-block parse trees and per-entry results keyed by content, so an edit
    re-parses and re-analyses only what it touched.
    """

    def __init__(self, path: str | None = None, workspace=None, package: str | None = None,
                 domains: tuple[Domain, ...] = DOMAINS):
        self.path = path
        self.workspace = workspace
        self.domains = domains   # what every entry's interpreter asks, in order
        roots = workspace.search_roots() if workspace is not None else ()
        self.package = package if package is not None else package_of(path, roots)
        self._block_list = BlockList()
        self._bindings: dict[str, Block] = {}
        self._ws_generation = None
        self._creators = None
        self._alone: frozenset = frozenset()
        self._broad = False
        self._entries: dict = {}     # key -> (raw findings, deps)
        self._earlier = EarlierResults()   # stale results, for an edit that takes the code back
        self._summaries = Summaries()      # calls of other modules' functions, remembered across runs
        self._cut_before: set = set()      # blocks whose last run ran out of steps
        self._formatted: dict = {}   # id(raw) -> (block starts it depends on, Finding)
        self.stats = {"blocks": 0, "entries_run": 0, "moved": 0, "spliced": 0, "calls_remembered": 0}
        self._remembered = 0   # calls taken from `_summaries` by the analysis under way

    def analyze(self, source: str, cancelled: Callable[[], bool] | None = None) -> list[Finding]:
        """Findings for `source`.  `cancelled` is asked between entries and every
        `INTERRUPT_EVERY` interpreter steps; when it says True the run stops with
        `Cancelled` (the analyzer stays consistent with `source`: finished entries are
        kept, the others run next time)."""
        # Parsing and interpreting allocate many small, long-lived objects (AST nodes):
        # callers run this with the cyclic GC paused (`pallas_lsp.memory.frozen_after`).
        return self._analyze(source, cancelled)

    def _analyze(self, source: str, cancelled) -> list[Finding]:
        if "\r" in source:
            source = _LONE_CR.sub("\n", source)  # old Mac line ends: same length, same lines
        old = set(self._block_list.blocks)
        blocks = self._block_list.update(source)
        moved = self._creators is not None and keep_moved_block(self._block_list, self.package, self._creators,
                                                                self._broad)
        if moved:
            blocks = self._block_list.blocks
            self._formatted = {}   # positions inside the kept block moved
        spliced = not moved and self._creators is not None and splice_edited_block(self._block_list)
        new = set(blocks)
        changed = new.symmetric_difference(old)
        self._block_list.retire(old - new)
        changed_names: set[str] = set()
        for b in changed:
            changed_names.update(block_names(b))
        bindings = self._bindings
        if len(changed_names) > 8:
            bindings.clear()
            bindings.update((name, b) for b in blocks for name in block_names(b))
        else:
            for name in changed_names:
                bindings.pop(name, None)
                for b in reversed(blocks):
                    if name in block_names(b):
                        bindings[name] = b
                        break
        state = ModuleState(blocks, bindings, self.path, self.package, self.workspace, interrupted=cancelled)
        # the setting the cached entries were valid in (a stale one is kept with it)
        valid_under = self._setting()
        ws_changed = self.workspace is not None and self.workspace.generation != self._ws_generation
        if ws_changed:
            self._ws_generation = self.workspace.generation
        self._summaries.renew(self._ws_generation)
        broad = self._broad
        creators = self._creator_names(blocks, changed, new)
        creators_changed = creators != self._creators
        self._creators = creators
        anew = creators_changed or broad != self._broad
        state.run_alone = self._alone = self._run_alone(blocks if anew else changed & new, old - new, creators, anew)
        # Keep only the entries still valid for this text (so that a cancelled run leaves
        # a consistent cache), then run the others.
        old_entries = self._entries
        entries = self._entries = {}
        todo = []
        stale = [(block, old_entries[block]) for block in old - new if block in old_entries]
        for block in blocks:
            cached = old_entries.get(block)
            if cached is None or (changed_names and not changed_names.isdisjoint(cached.deps)) \
                    or (ws_changed and cached.reads_other_modules and not _other_modules_hold(state, cached.deps)) \
                    or (creators_changed and (cached.skipped or cached.leaned_on)) \
                    or (anew and _no_longer_alone(block, cached, state.run_alone)):
                todo.append(block)
                if cached is not None:
                    stale.append((block, cached))
            else:
                entries[block] = cached
        self._cut_before = _ran_out_before(stale, new - old)
        self._remembered = 0
        try:
            ran = self._run_todo(entries, todo, state, cancelled)
        finally:   # kept after the runs, which may recall the results they replace
            for block, result in stale:
                self._earlier.keep(block, result, valid_under)
        raws = [raw for block in blocks for raw in entries[block].findings]
        self.stats = {"blocks": len(blocks), "entries_run": ran, "moved": int(moved), "spliced": int(spliced),
                      "calls_remembered": self._remembered}
        return self._finish(raws)

    def _run_todo(self, entries: dict, todo: list, state: ModuleState, cancelled) -> int:
        """Run the entries in `todo` into `entries`: how many ran."""
        blocks = state.blocks
        # Later blocks first: a kernel's `pallas_call` usually follows it, and a kernel
        # another entry runs with its refs needs no run of its own with unknown ones.
        ran = 0
        kernels, leaned = _union(entries, "kernels"), _union(entries, "leaned_on")
        for block in reversed(todo):
            if is_definition(block) and block not in self._alone:
                # A function or class that creates no semaphore itself: run with
                # unknown arguments it cannot find anything; the entries that give
                # it semaphores analyse it.
                entries[block] = _SKIPPED
            elif block not in leaned and _kernel_def(block) in kernels:
                entries[block] = _INVOKED
            else:
                ran += self._run_into(entries, block, state, cancelled)
                kernels |= entries[block].kernels
                leaned |= entries[block].leaned_on
        for block in blocks:   # no longer run by the entry that ran it, or leaned on: on its own
            if entries[block].invoked and (_kernel_def(block) not in kernels or block in leaned):
                ran += self._run_into(entries, block, state, cancelled)
        if cancelled is not None and ran and cancelled():
            raise Cancelled
        return ran

    def _run_alone(self, added, removed, creators, anew: bool) -> frozenset:
        """The function blocks in the closure (run as entries of their own): updated for
        the blocks an edit added and removed, or made anew when the closure moved."""
        kept = frozenset() if anew else self._alone - removed
        return kept | {b for b in added if is_definition(b) and in_closure(b, self.package, creators, self._broad)[0]}

    def _run_into(self, entries: dict, block: Block, state: ModuleState, cancelled) -> int:
        """Run one entry into `entries` (1: one entry run; 0: a result kept from an
        earlier text holds again)."""
        earlier = self._earlier.recall(block, self._setting(), state.resolves)
        if earlier is not None:
            entries[block] = earlier
            return 0
        if cancelled is not None and cancelled():
            raise Cancelled
        try:
            entries[block] = self._run_entry(block, state, block not in self._cut_before)
        except Interrupted:
            raise Cancelled from None
        return 1

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
                inside, creates = in_closure(b, self.package, old, broad)
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
            for view in cached.views:
                if type(view) is not NamedSem or view.block not in live:
                    continue
                block, sem = view.block, view.sem
                node: Any = view.node
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
                             loc_span(sem.decl) if sem.decl is not None else None,
                             sem.decl.path if sem.decl is not None else None)

    def value_notes(self) -> list[ValueNote]:
        """The array values the last `analyze` saw named in the document (hover, inlay
        hints), one per place, in document order."""
        live = set(self._block_list.blocks)
        return value_notes([v for cached in self._entries.values() for v in cached.views], live)

    def value_at(self, line: int, col: int) -> ValueNote | None:
        """The array value named at (line, col), if the analysis knows one."""
        return note_at(self.value_notes(), line, col)

    def parameter_notes(self) -> list[ParamNote]:
        """What Pallas binds to every kernel parameter the last `analyze` saw (for inlay
        hints, hover and go to definition), in document order, one per parameter."""
        live = set(self._block_list.blocks)
        notes: dict[tuple, ParamNote] = {}
        for cached in self._entries.values():
            for binding in cached.bindings:
                if binding.arg.block in live:
                    note = binding.note()
                    key = (note.span.line, note.span.col)
                    if key not in notes or _knows_more(note, notes[key]):
                        notes[key] = note   # which entry ran first does not decide
        return [notes[k] for k in sorted(notes)]

    def parameter_at(self, line: int, col: int) -> ParamNote | None:
        """The kernel parameter at (line, col), if Pallas binds a known ref to it."""
        for note in self.parameter_notes():
            s = note.span
            if s.line == line and s.col <= col <= s.end_col:
                return note
        return None

    def call_at(self, line: int, col: int) -> tuple[CallSummary, int] | None:
        """The `pallas_call` named at (line, col), with how many versions of it the entries saw."""
        return summary_at([s for c in self._entries.values() for s in c.calls], set(self._block_list.blocks), line, col)

    def binding_of_entry_at(self, line: int, col: int) -> ParamNote | None:
        """The kernel parameter fed by the spec or scratch entry at (line, col)."""
        for note in self.parameter_notes():
            t = note.target
            if t is not None and note.target_path is None and (t.line, t.col) <= (line, col) <= (t.end_line, t.end_col):
                return note
        return None

    def _setting(self) -> tuple:
        """What every entry result depends on beyond the names it read: the blocks run as
        entries of their own, the creator closure, the workspace's generation."""
        return self._alone, self._creators, self._ws_generation

    def _run_entry(self, block: Block, state: ModuleState, remembered: bool) -> EntryResult:
        """`remembered`: calls of other modules' functions may be taken from earlier runs
        (`interp.summaries`); they count every step a run of them takes, which the
        in-run memo may not: where steps (or Python's stack) ran out in such a run, the
        run without them decides."""
        if block.tree is None:
            return EntryResult()
        result = self._entry(block, state, self._summaries) if remembered else None
        if result is None:
            result = self._entry(block, state, None)
            assert result is not None
        return result

    def _entry(self, block: Block, state: ModuleState, summaries: Summaries | None) -> EntryResult | None:
        """One entry's result; None when steps ran out in a run that took remembered calls."""
        ctx, interp, complete = self._run_block(block, state, self.domains, True, None, summaries)
        if _counted_apart(ctx, complete):
            return None
        arrays = ctx.evidence.arrays()
        if arrays:   # again, with the names known to be semaphore arrays by their use
            ctx, interp, complete = self._run_block(block, state, self.domains, False, arrays, summaries)
        contract = self._check_contracts(interp, ctx)
        if _counted_apart(ctx, complete):
            return None
        self._remembered += ctx.summary_hits
        settle_kind_choices(ctx.protocol)
        checks.report_inside_indexing_helpers(ctx.findings, ctx.indexed_sites, ctx.kernel_nodes)
        for raw in ctx.findings:
            decl = raw.sem.decl
            if decl is not None and id(decl.node) in ctx.indexed_decls:
                raw.decl_indexed = True
        protocol = self._judge_protocol(state, ctx) if complete else []
        return EntryResult((*ctx.findings, *ctx.rule_findings, *contract.findings, *protocol), dict(ctx.deps),
                           tuple(ctx.views), contract.bindings, contract.calls,
                           frozenset(ctx.certain_kernels) if complete else frozenset(),  # a kernel cut short
                           frozenset(ctx.leaned_on), cut=ctx.cut)

    @staticmethod
    def _run_block(block: Block, state: ModuleState, domains: tuple[Domain, ...], collect: bool,
                   arrays: dict | None, summaries: Summaries | None) -> tuple[Context, Interpreter, bool]:
        """Run an entry's block and the kernels it makes: (its context, its interpreter,
        whether it ran to the end). `collect`: the evidence of semaphore arrays known by
        their use (`arrays`: what an earlier run found); `summaries`: calls of other
        modules' functions remembered from earlier runs."""
        ctx = Context(state, domains, interrupted=state.interrupted, run_alone=state.run_alone, entry_block=block,
                      summaries=summaries)
        ctx.protocol = Protocol()
        ctx.evidence = Evidence() if collect else None
        if arrays:
            ctx.overrides = {binding: inferred_array(views) for binding, views in arrays.items()}
        interp = Interpreter(ctx)
        frame = Frame({}, None, block, path=None, module=state)
        assert block.tree is not None
        try:
            interp.run_body(block.tree.body, frame)
            interp.flush_created(frame)
            while ctx.pending:
                invoke_kernel(interp, ctx.pending[0], None)
            return ctx, interp, True
        except Budget:
            ctx.cut = True
        except RecursionError:
            pass
        except Exception:
            log.exception("pallas-lsp: analysing the block at line %d failed", block.start + 1)
        return ctx, interp, False

    @staticmethod
    def _judge_protocol(state: ModuleState, ctx: Context) -> list[ContractFinding]:
        """On a whole run: errors from the kernels a replay decides, warnings from pairing
        on the other declarations."""
        protocol = ctx.protocol
        verdicts = replay_kernels(state, protocol, ctx.domains)
        return [*verdicts.findings, *protocol.findings(verdicts.decided)]

    @staticmethod
    def _check_contracts(interp: Interpreter, ctx: Context) -> ContractResult:
        try:
            return check_calls(interp, ctx.calls)
        except (Budget, RecursionError):
            ctx.cut = True
        except Exception:
            log.exception("pallas-lsp: checking a pallas_call contract failed")
        return ContractResult((), ())

    def _finish(self, raws) -> list[Finding]:
        live = set(self._block_list.blocks)
        best: dict = {}
        formatted = {}
        for raw in raws:
            if raw.at.block.key not in live or raw.at.path is not None:
                continue
            contract = isinstance(raw, ContractFinding)
            key = raw.position_key() if contract else checks.position_key(raw)
            cached = self._formatted.get(id(raw))
            if cached is not None and cached.key == key:
                f = cached.finding
            else:
                try:
                    f = raw.to_finding() if contract else checks.to_finding(raw)
                except Exception:
                    log.exception("pallas-lsp: could not format a finding")
                    continue
            formatted[id(raw)] = _Formatted(key, f)
            slot = (f.span, f.code[:4])   # one finding per place and rule family (PAL0xx, PAL1xx, ...)
            prev = best.get(slot)
            if prev is None or _preference(f) > _preference(prev):
                best[slot] = f
        self._formatted = formatted
        findings = sorted(best.values(), key=lambda f: (f.span, f.code))
        if findings:
            findings = apply_noqa(findings, _DocumentLines(self._block_list.blocks))
        return findings


def _knows_more(a: ParamNote, b: ParamNote) -> bool:
    """Of two entries' notes on one parameter, whether `a` is shown: the one with the place
    that feeds it, then the one that says more (the array it receives), then the first
    in text order."""
    return (a.target is not None, len(a.detail), b.detail) > (b.target is not None, len(b.detail), a.detail)


def _preference(f: Finding) -> tuple[bool, bool, int]:
    """Of two findings at one place: an error over a warning, then a shape JAX would
    print over one with unknown lengths (another entry's run knew the declaration), then
    the shape with more lengths known (`(2, n - 1)` over `(?, ?)`, an array known only by
    its use): which entry ran first does not decide."""
    shape = f.shape or ()
    return (f.severity == "error", bool(shape) and all(isinstance(d, int) for d in shape),
            sum(d != "?" for d in shape))


@record
class SemaphoreInfo:
    """A semaphore as the analysis sees it at one place (hover text)."""

    text: str
    kind: str
    dims: tuple | None
    decl: Span | None
    decl_path: str | None

    def describe(self) -> str:
        """Markdown for hover: what it is, where it was declared, what to do."""
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


def _kernel_def(block: Block) -> ast.AST | None:
    """The `def` a function block binds (None for any other block)."""
    tree = block.tree if is_definition(block) else None
    node = tree.body[0] if tree is not None and tree.body else None
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _other_modules_hold(state: ModuleState, deps: dict) -> bool:
    """Whether every other module an entry read (`@module` deps) is at the version it read."""
    return all(state.resolves(name, key) for name, key in deps.items() if name.startswith("@"))


def _union(entries: dict, field_name: str) -> set:
    """The union of one set field over the entries (`kernels`: the defs their runs gave
    refs to; `leaned_on`: the blocks whose own entries they count on)."""
    out: set = set()
    for entry in entries.values():
        out |= getattr(entry, field_name)
    return out


class _DocumentLines:
    """Lines of the document, read through its blocks (no split of the whole text)."""

    def __init__(self, blocks):
        self._blocks = blocks
        self._starts = [b.start for b in blocks]

    def __len__(self):
        b = self._blocks[-1] if self._blocks else None
        return b.start + b.line_count if b else 0

    def __getitem__(self, line):
        if line < 0:
            line += len(self)
        i = bisect.bisect_right(self._starts, line) - 1
        if i < 0:
            raise IndexError(line)
        block = self._blocks[i]
        if line - block.start >= block.line_count:
            raise IndexError(line)
        return block.line(line - block.start)


def analyze_source(source: str, path: str | None = None, workspace=None,
                   domains: tuple[Domain, ...] = DOMAINS) -> list[Finding]:
    """One-shot analysis of a whole module's text (what the CLI uses)."""
    return ModuleAnalyzer(path, workspace, domains=domains).analyze(source)
