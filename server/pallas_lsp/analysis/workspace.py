"""Other modules: names imported from the user's own files and installed libraries.

`from .common import start_copy` or `from mylib.compat import pltpu` are resolved by
finding the module's file as Python's import system would, statically: the importing
file's package, the workspace folders (and their `src/` folder), then, for installed
libraries, the `sys.path` of the Python environment the editor says the project uses
(asked of jedi once and cached; it includes `.pth` path entries) and setuptools'
editable-install finders (`__editable___*_finder.py`, whose `MAPPING` is read, not
imported).  Namespace packages (folders without `__init__.py`) and `.pyi` stubs (when
there is no `.py` source) are followed.  The name is then evaluated there with the same
interpreter.  Nothing is imported or executed.

Results are cached per module and dropped by `invalidate(path)` (the server calls it on
didSave / didChangeWatchedFiles); `generation` tells analysers to re-check entries that
read another module, and `version(module)` whether that module changed.
"""

from __future__ import annotations

import ast
import logging
import os
import re
from collections.abc import Sequence

from .module import ModuleState, block_names
from .parse import ForeignBlock, split_blocks
from .values import UNKNOWN, Api, ModuleV

log = logging.getLogger(__name__)

MAX_MODULE_BYTES = 2_000_000
_INITS = ("__init__.py", "__init__.pyi")
_STUB_BODIES = ("def ", "async def ", "class ", "@")
_EDITABLE_IMPORT = re.compile(r"import\s+(__editable__\w*)")   # `import __editable___x_finder; ...install()`


def package_of(path: str | None, roots: Sequence[str] = ()) -> str | None:
    """Dotted package name of the folder holding `path`: the `__init__.py` packages
    above it, under the namespace-package folders between them and the innermost of
    `roots` (the import roots, see `Workspace.search_roots`) that holds the file.  A
    file directly in a root, or outside every root and every package, has none."""
    if not path:
        return None
    top = _package_root(path)
    d = os.path.dirname(os.path.abspath(path))
    parts = os.path.relpath(d, top).split(os.sep) if d != top else []
    inner = max((r for r in roots if top == r or top.startswith(r.rstrip(os.sep) + os.sep)), key=len, default=None)
    if inner is not None and top != inner:
        namespace = os.path.relpath(top, inner).split(os.sep)
        if all(p.isidentifier() for p in namespace):
            parts = namespace + parts
    return ".".join(parts) or None


def _package_root(path: str) -> str:
    """The folder from which `path`'s top-level package is importable."""
    d = os.path.dirname(os.path.abspath(path))
    while os.path.isfile(os.path.join(d, "__init__.py")):
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return d


class ForeignModule:
    """Another module's top level, evaluated lazily, name by name.  `path` is a file, or
    a namespace package's folder (a module with no names of its own)."""

    def __init__(self, name: str, path: str, text: str, workspace: Workspace) -> None:
        self.name = name
        self.path = path
        stub = path.endswith(".pyi")
        blocks = split_blocks(text, ForeignBlock)
        bindings = {}
        for b in blocks:
            if stub and b.text.startswith(_STUB_BODIES):
                continue   # a stub's functions and classes have no bodies: unknown, not empty
            for n in block_names(b):
                bindings[n] = b
        is_package = os.path.isdir(path) or os.path.basename(path) in _INITS
        package = name if is_package else name.rpartition(".")[0] or None
        self.state = ModuleState(blocks, bindings, path, package, workspace, loc_path=path)

    def value(self, attr, ctx):
        return self.state.global_value(attr, _DepSink(ctx) if not hasattr(ctx, "deps") else ctx, None)


class Workspace:
    def __init__(self, roots=(), interpreter: str | None = None):
        self.roots = [os.path.abspath(r) for r in roots if r]
        self.interpreter = interpreter
        self.generation = 0
        self._modules: dict[tuple[str, str | None], ForeignModule | None] = {}
        self._loading: set[tuple[str, str | None]] = set()
        self._env_paths: list[str] | None = None
        self._editable: list[dict[str, list[str]]] | None = None
        self._found: dict[tuple[str, str | None], str | None] = {}   # find_module's answers
        self._texts: dict[str, str] = {}   # file -> text read instead of the file's (set_text)

    # -- configuration ------------------------------------------------------------
    def set_interpreter(self, interpreter):
        if interpreter != self.interpreter:
            self.interpreter = interpreter
            self._env_paths = None
            self._editable = None
            self.invalidate(None)

    def invalidate(self, path: str | None):
        """A file changed (None: anything may have): forget what was read from it."""
        self._found.clear()   # a new or removed file can change where any name resolves
        if path is None:
            self._modules.clear()
        else:
            path = os.path.abspath(path)
            for name, mod in list(self._modules.items()):
                if mod is None or mod.path == path:
                    del self._modules[name]
        self.generation += 1

    def set_text(self, path: str, text: str | None) -> None:
        """Read `text` as the content of file `path` (None: the file again), like an
        editor's unsaved document.  Other modules already read keep what they took from
        `path` (as after `invalidate`)."""
        path = os.path.abspath(path)
        if text is None:
            self._texts.pop(path, None)
        else:
            self._texts[path] = text
        self.invalidate(path)

    def version(self, module: str):
        path = self.find_module(module, None)
        if path is None:
            return None
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (path, st.st_mtime_ns, st.st_size)

    # -- resolution -----------------------------------------------------------------
    def resolve(self, qname: str, from_path: str | None, ctx=None):
        """The value of `pkg.mod.attr...`: the longest prefix that is a module file,
        then attributes looked up in it.  Unresolvable: an `Api` name (inert)."""
        parts = qname.split(".")
        for cut in range(len(parts), 0, -1):
            modname = ".".join(parts[:cut])
            mod = self.module(modname, from_path)
            if mod is None:
                continue
            if ctx is not None:
                ctx.deps["@" + modname] = self.version(modname)
            rest = parts[cut:]
            if not rest:
                return ModuleV(modname, from_path)
            value = mod.value(rest[0], _DepSink(ctx))
            for attr in rest[1:]:
                value = _attr(value, attr)
            return value
        return Api(qname)

    def module(self, modname: str, from_path: str | None):
        # Keyed by the file found too: which file a name means depends on the importing
        # file's package, so one file's lookup must not answer another's.
        path = self.find_module(modname, from_path)
        key = (modname, path)
        if key in self._modules:
            return self._modules[key]
        if key in self._loading:
            return None
        mod = None
        text = None if path is None else self._texts[path] if path in self._texts else _read_source(path)
        if path is not None and text is not None:
            self._loading.add(key)
            try:
                mod = ForeignModule(modname, path, text, self)
            finally:
                self._loading.discard(key)
        self._modules[key] = mod
        return mod

    def find_module(self, modname: str, from_path: str | None) -> str | None:
        key = (modname, from_path)
        if key not in self._found:
            if len(self._found) > 10_000:
                self._found.clear()
            self._found[key] = self._find_module(modname, from_path)
        return self._found[key]

    def _find_module(self, modname: str, from_path: str | None) -> str | None:
        search = [_package_root(from_path)] if from_path else []
        search += self.search_roots() + self.environment_paths()
        parts = modname.split(".")
        hit = _find_in_path(list(dict.fromkeys(search)), parts)
        if hit is None:
            hit = _find_editable(self.editable_mappings(), parts)
        return hit

    def search_roots(self) -> list[str]:
        """The workspace folders, each followed by its `src/` folder when that holds
        packages rather than being one (the `src` layout)."""
        out = []
        for root in self.roots:
            out.append(root)
            src = os.path.join(root, "src")
            if os.path.isdir(src) and not os.path.isfile(os.path.join(src, "__init__.py")):
                out.append(src)
        return out

    def environment_paths(self) -> list[str]:
        """sys.path of the project's Python environment (asked of jedi, once).  The
        interpreter runs `site`, so `.pth` path entries (old-style editable installs
        included) are in it."""
        if self._env_paths is None:
            self._env_paths = []
            if self.interpreter:
                try:
                    import jedi  # lazy: only when a name is not found in the workspace

                    env = jedi.create_environment(self.interpreter, safe=False)
                    self._env_paths = [p for p in env.get_sys_path() if os.path.isdir(p)]
                except Exception as e:  # noqa: BLE001 -- a wrong interpreter must not break analysis
                    log.warning("pallas-lsp: cannot use interpreter %s: %s", self.interpreter, e)
        return self._env_paths

    def editable_mappings(self) -> list[dict[str, list[str]]]:
        """setuptools' modern editable installs: an import finder named by an
        `__editable__.*.pth` file, whose `MAPPING` (top-level name -> folder or file) and
        `NAMESPACES` (name -> folders) are read from its source, never imported."""
        if self._editable is None:
            self._editable = []
            for site in self.environment_paths():
                for finder in _editable_finders(site):
                    mapping = _read_finder(finder)
                    if mapping:
                        self._editable.append(mapping)
        return self._editable


def _source_or_stub(base: str) -> str | None:
    """`base.py`, else its stub `base.pyi`: the source has the values."""
    for ext in (".py", ".pyi"):
        if os.path.isfile(base + ext):
            return base + ext
    return None


def _find_in(locations: Sequence[str], part: str) -> tuple[str | None, list[str]]:
    """One name in a list of folders as Python's path finder looks it up: the first
    package with an `__init__` or module wins; folders without one are the portions of
    a namespace package, used only when no such package or module exists anywhere."""
    portions = []
    for loc in locations:
        base = os.path.join(loc, part)
        isdir = os.path.isdir(base)
        hit = (_source_or_stub(os.path.join(base, "__init__")) if isdir else None) or _source_or_stub(base)
        if hit is not None:
            return hit, []
        if isdir:
            portions.append(base)
    return None, portions


def _find_in_path(locations: list[str], parts: Sequence[str]) -> str | None:
    """The file of the dotted module `parts` (a namespace package: its first folder)."""
    for i, part in enumerate(parts):
        hit, portions = _find_in(locations, part)
        if i == len(parts) - 1:
            return hit if hit is not None else (portions[0] if portions else None)
        if hit is not None and os.path.basename(hit) in _INITS:
            locations = [os.path.dirname(hit)]
        elif hit is None and portions:
            locations = portions
        else:
            return None   # a plain module has no submodules
    return None


def _find_editable(mappings: Sequence[dict[str, list[str]]], parts: Sequence[str]) -> str | None:
    for mapping in mappings:
        for target in mapping.get(parts[0], ()):
            if os.path.isfile(target):
                if len(parts) == 1:
                    return target
                continue
            init = _source_or_stub(os.path.join(target, "__init__"))
            if len(parts) == 1:
                return init or target
            hit = _find_in_path([target], parts[1:])
            if hit is not None:
                return hit
    return None


def _editable_finders(site: str) -> list[str]:
    """Finder modules that `__editable__*.pth` files in `site` import."""
    try:
        pths = [n for n in os.listdir(site) if n.startswith("__editable__") and n.endswith(".pth")]
    except OSError:
        return []
    out = []
    for name in sorted(pths):
        try:
            with open(os.path.join(site, name), encoding="utf-8", errors="replace") as fh:
                lines = fh.read().splitlines()
        except OSError:
            continue
        for line in lines:
            m = _EDITABLE_IMPORT.match(line)
            if m and os.path.isfile(os.path.join(site, m.group(1) + ".py")):
                out.append(os.path.join(site, m.group(1) + ".py"))
    return out


def _read_source(path: str) -> str | None:
    """A module file's text ("" for a namespace package's folder); None if unreadable."""
    if os.path.isdir(path):
        return ""
    try:
        if os.path.getsize(path) > MAX_MODULE_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError as e:
        log.info("pallas-lsp: cannot read %s: %s", path, e)
        return None


def _read_finder(path: str) -> dict[str, list[str]]:
    """`MAPPING` and `NAMESPACES` of a setuptools editable finder, as literals."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            tree = ast.parse(fh.read(), path)
    except (OSError, SyntaxError, ValueError):
        return {}
    out: dict[str, list[str]] = {}
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and stmt.targets[0].id in ("MAPPING", "NAMESPACES")):
            continue
        try:
            value = ast.literal_eval(stmt.value)
        except ValueError:
            continue
        if not isinstance(value, dict):
            continue
        for key, target in value.items():
            targets = [target] if isinstance(target, str) else target
            if isinstance(key, str) and isinstance(targets, list):
                out.setdefault(key, []).extend(t for t in targets if isinstance(t, str))
    return out


def _attr(value, attr):
    if isinstance(value, (Api, ModuleV)):
        if isinstance(value, ModuleV):
            return Api(f"{value.name}.{attr}")
        from .symbols import child

        return Api(child(value.qname, attr))
    return UNKNOWN


class _DepSink:
    """A stand-in context for evaluating another module's globals: its own deps are not
    the caller's (the caller depends on the module's version instead)."""

    def __init__(self, ctx):
        self.deps = {}
        self.domains = ctx.domains   # the same domains evaluate them
        self.interrupted = ctx.interrupted
