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
"""

from __future__ import annotations

import ast
import builtins
import logging

from . import checks
from .findings import Finding
from .flow import Budget, Context, Frame, Interpreter, import_bindings
from .parse import Block, split_blocks
from .suppression import apply_noqa
from .symbols import LIBRARY_ROOTS
from .values import UNKNOWN, Api

log = logging.getLogger(__name__)

_BUILTINS = frozenset(dir(builtins))
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


def block_names(block: Block) -> frozenset:
    names = _NAMES_CACHE.get(block.text)
    if names is None:
        tree = block.tree
        names = frozenset(_bound_names(tree.body, set())) if tree is not None else frozenset()
        if len(_NAMES_CACHE) > 20000:
            _NAMES_CACHE.clear()
        _NAMES_CACHE[block.text] = names
    return names


class ModuleState:
    """The module as the interpreter sees it during one run: top-level bindings, the
    (lazily computed, per-run cached) values of globals, and imports."""

    def __init__(self, blocks, path=None, package=None, workspace=None):
        self.blocks = blocks
        self.path = path
        self.package = package
        self.workspace = workspace
        self.bindings: dict[str, Block] = {}
        for b in blocks:
            for name in block_names(b):
                self.bindings[name] = b
        self._envs: dict = {}
        self._evaluating: set = set()

    def binding_key(self, name):
        b = self.bindings.get(name)
        return b.key if b is not None else None

    def global_value(self, name, ctx, frame):
        block = self.bindings.get(name)
        ctx.deps[name] = block.key if block is not None else None
        if block is None:
            return Api(name) if name in _BUILTINS else UNKNOWN
        env = self.block_env(block, ctx)
        return env.get(name, UNKNOWN)

    def block_env(self, block, ctx):
        cached = self._envs.get(block.key)
        if cached is None:
            if block.key in self._evaluating or block.tree is None:
                return {}
            self._evaluating.add(block.key)
            sub = Context(self, silent=True)
            frame = Frame({}, None, block, path=None)
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

    def import_values(self, stmt, frame):
        out = []
        for name, qname in import_bindings(stmt, self.package):
            if qname is None:
                out.append((name, UNKNOWN))
                continue
            root = qname.split(".")[0]
            if root in LIBRARY_ROOTS or root in _PALLAS_ROOTS or self.workspace is None:
                out.append((name, Api(qname)))
            else:
                out.append((name, self.workspace.resolve(qname, self.path)))
        return out


class ModuleAnalyzer:
    """Incremental analysis of one document: call `analyze(text)` after every change.

    Keeps per-block parse trees and per-entry results keyed by content, so an edit
    re-parses and re-analyses only what it touched.
    """

    def __init__(self, path: str | None = None, workspace=None, package: str | None = None):
        self.path = path
        self.workspace = workspace
        self.package = package
        self._blocks: dict = {}      # key -> Block (kept across runs, start updated)
        self._entries: dict = {}     # key -> (raw findings, deps)
        self.stats = {"blocks": 0, "entries_run": 0}

    def analyze(self, source: str) -> list[Finding]:
        blocks = self._split(source)
        state = ModuleState(blocks, self.path, self.package, self.workspace)
        entries = {}
        raws = []
        ran = 0
        for block in blocks:
            cached = self._entries.get(block.key)
            if cached is not None and self._valid(cached[1], state):
                found = cached[0]
            else:
                found, deps = self._run_entry(block, state)
                cached = (found, deps)
                ran += 1
            entries[block.key] = cached
            raws.extend(found)
        self._entries = entries
        self.stats = {"blocks": len(blocks), "entries_run": ran}
        return self._finish(raws, source)

    def _split(self, source):
        fresh = split_blocks(source)
        blocks = []
        old = self._blocks
        new = {}
        for b in fresh:
            kept = old.get(b.key)
            if kept is not None:
                kept.start, kept.index = b.start, b.index
                b = kept
            new[b.key] = b
            blocks.append(b)
        self._blocks = new
        return blocks

    def _valid(self, deps, state):
        ws = self.workspace
        for name, key in deps.items():
            if name.startswith("@"):
                if ws is None or ws.version(name[1:]) != key:
                    return False
            elif state.binding_key(name) != key:
                return False
        return True

    def _run_entry(self, block, state):
        if block.tree is None:
            return [], {}
        ctx = Context(state)
        interp = Interpreter(ctx)
        frame = Frame({}, None, block, path=None)
        try:
            interp.run_body(block.tree.body, frame)
            interp.flush_created(frame)
            while ctx.pending:
                interp.invoke_kernel(ctx.pending[0], None)
        except (Budget, RecursionError):
            pass
        except Exception:
            log.exception("pallas-lsp: analysing the block at line %d failed", block.start + 1)
        return ctx.findings, dict(ctx.deps)

    def _finish(self, raws, source) -> list[Finding]:
        live = self._blocks
        best: dict = {}
        for raw in raws:
            if raw.at.block.key not in live or raw.at.path is not None:
                continue
            try:
                f = checks.to_finding(raw)
            except Exception:
                log.exception("pallas-lsp: could not format a finding")
                continue
            prev = best.get(f.span)
            if prev is None or (prev.severity != "error" and f.severity == "error"):
                best[f.span] = f
        findings = sorted(best.values(), key=lambda f: (f.span, f.code))
        if findings:
            findings = apply_noqa(findings, source.split("\n"))
        return findings


def analyze_source(source: str, path: str | None = None, workspace=None) -> list[Finding]:
    """One-shot analysis of a whole module's text (what the CLI uses)."""
    return ModuleAnalyzer(path, workspace).analyze(source)
