"""A module as the interpreter sees it: which top-level block binds which name, the
(lazily computed) values of its globals, its imports and star imports."""

from __future__ import annotations

import ast
import builtins
import logging
import re
import sys

from .caches import CACHES
from .interp.core import Interpreter
from .interp.frame import Budget, Context, Frame
from .interp.syntax import import_bindings
from .pallas.derived import KNOWN_NAMES
from .parse import Block
from .symbols import LIBRARY_ROOTS, canonical, resolve_relative
from .values import UNKNOWN, Api, Func

log = logging.getLogger(__name__)

_BUILTINS = frozenset(dir(builtins))
STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))  # never followed into
STAR_IMPORT = "*"   # pseudo-name bound by `from module import *`
PALLAS_ROOTS = ("pl", "pltpu", "plgpu")


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




_DEF_NAME = re.compile(r"^(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.MULTILINE)


def def_name(block: Block) -> str | None:
    """The name a `def` / `class` block binds, read from its text (no parse needed)."""
    if not block.text.startswith(("def ", "async ", "class ", "@")):
        return None
    m = _DEF_NAME.search(block.text)
    return m.group(1) if m else None


def block_names(block: Block) -> frozenset:
    names = CACHES.block_names.get(block.text)
    if names is None:
        name = def_name(block)
        if name is not None:
            return CACHES.block_names.put(block.text, frozenset((name,)))
        tree = block.tree
        names = frozenset(_bound_names(tree.body, set())) if tree is not None else frozenset()
        CACHES.block_names.put(block.text, names)
    return names


class ModuleState:
    """The module as the interpreter sees it during one run: top-level bindings, the
    (lazily computed, per-run cached) values of globals, and imports."""

    def __init__(self, blocks, bindings, path=None, package=None, workspace=None, loc_path=None,
                 interrupted=None) -> None:
        self.blocks = blocks
        self.run_alone: frozenset = frozenset()   # function blocks run as entries of their own
        self.interrupted = interrupted   # asked now and then while this run interprets: stop?
        self.path = path            # the file (for resolving imports); may be None
        self.loc_path = loc_path    # set for another module: its locations carry the path
        self.package = package
        self.workspace = workspace
        self.bindings: dict[str, Block] = bindings
        self._envs: dict = {}
        self._resolved: dict = {}   # global name -> (its block's env, the block, the env's deps)
        self._evaluating: set = set()
        self._spelling: dict[str, frozenset[str]] = {}

    def names_of_blocks_spelling(self, word: str) -> frozenset[str]:
        """Top-level names bound by blocks whose text contains `word` (computed once per
        run): a cheap prefilter before walking code for a call of that API."""
        names = self._spelling.get(word)
        if names is None:
            found: set[str] = set()
            for b in self.blocks:
                if word in b.text:
                    found |= block_names(b)
            names = self._spelling[word] = frozenset(found)
        return names

    def binding_key(self, name):
        b = self.bindings.get(name)
        return b.key if b is not None else None

    def resolves(self, name: str, key) -> bool:
        """Whether a dependency an entry recorded (`Context.deps`) holds in this run: the
        global `name` is bound by the block `key`, or the other module `@name` is at the
        version `key`."""
        if name.startswith("@"):
            return self.workspace is not None and self.workspace.version(name[1:]) == key
        return self.binding_key(name) == key

    def global_value(self, name, ctx, frame):
        known = self._resolved.get(name)
        if known is None or self._evaluating:
            return self._resolve(name, ctx)
        env, key, deps = known   # resolved before in this run: its env, as it is now
        if self.loc_path is None:
            ctx.deps[name] = key
        if deps:
            ctx.deps.update(deps)
        return env.get(name, UNKNOWN)

    def _resolve(self, name, ctx):
        block = self.bindings.get(name)
        if block is not None and block.key in self._evaluating:
            # `kernel = functools.partial(kernel, ...)`: inside the block that rebinds the
            # name, it still means the earlier binding.
            block = next((b for b in reversed(self.blocks[:block.index]) if name in block_names(b)), None)
        if self.loc_path is None:   # another module's names: its version is the dependency
            ctx.deps[name] = block.key if block is not None else None
        if block is None:
            if STAR_IMPORT in self.bindings:
                value = self.star_value(name, ctx)
                if value is not None:
                    return value
            return Api(name) if name in _BUILTINS else UNKNOWN
        env = self.block_env(block, ctx)
        cached = self._envs.get(block.key)
        if cached is not None and not self._evaluating:
            self._resolved[name] = (env, block.key, cached[1])
        return env.get(name, UNKNOWN)

    def block_env(self, block, ctx):
        cached = self._envs.get(block.key)
        if cached is None and not block.parses and block.text.startswith(("def ", "async def ")):
            # An undecorated function not parsed yet: parse it only if it is called. One whose
            # body does not parse is the same function of unknown body (its header gives its
            # signature), whether an earlier run tried to parse it or not.
            name = def_name(block)
            if name is not None:
                frame = Frame({}, None, block, path=self.loc_path, module=self)
                cached = ({name: Func(None, frame, block, name, self.loc_path)}, {})
                self._envs[block.key] = cached
        if cached is None:
            if block.key in self._evaluating or block.tree is None:
                return {}
            self._evaluating.add(block.key)
            sub = Context(self, ctx.domains, silent=True, interrupted=ctx.interrupted)
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
                if qname.split(".")[0] in PALLAS_ROOTS:
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
            if root in LIBRARY_ROOTS or root in PALLAS_ROOTS or root in STDLIB or self.workspace is None:
                out.append((name, Api(qname)))
            else:
                out.append((name, self.workspace.resolve(qname, self.path, ctx)))
        return out
