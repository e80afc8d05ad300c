"""Other modules: names imported from the user's own files and installed libraries.

`from .common import start_copy` or `from mylib.compat import pltpu` are resolved by
finding the module's file (statically: the importing file's package, the workspace
folders; then, for installed libraries, the `sys.path` of the Python environment the
editor says the project uses, asked of jedi once and cached) and evaluating the name
there with the same interpreter.  Nothing is imported or executed.

Results are cached per module and dropped by `invalidate(path)` (the server calls it on
didSave / didChangeWatchedFiles); `generation` tells analysers to re-check entries that
read another module, and `version(module)` whether that module changed.
"""

from __future__ import annotations

import logging
import os

from .module import ModuleState, block_names
from .parse import split_blocks
from .values import UNKNOWN, Api, ModuleV

log = logging.getLogger(__name__)

MAX_MODULE_BYTES = 2_000_000


def package_of(path: str | None) -> str | None:
    """Dotted package name of the folder holding `path` (walking up `__init__.py`s)."""
    if not path:
        return None
    d = os.path.dirname(os.path.abspath(path))
    parts = []
    while os.path.isfile(os.path.join(d, "__init__.py")):
        parts.append(os.path.basename(d))
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    if not parts:
        return None
    return ".".join(reversed(parts))


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
    """Another module's top level, evaluated lazily, name by name."""

    def __init__(self, name, path, text, workspace):
        self.name = name
        self.path = path
        blocks = split_blocks(text)
        bindings = {}
        for b in blocks:
            for n in block_names(b):
                bindings[n] = b
        package = name if os.path.basename(path) == "__init__.py" else name.rpartition(".")[0] or None
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
        self._found: dict[tuple[str, str | None], str | None] = {}   # find_module's answers

    # -- configuration ------------------------------------------------------------
    def set_interpreter(self, interpreter):
        if interpreter != self.interpreter:
            self.interpreter = interpreter
            self._env_paths = None
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
        if path is not None:
            try:
                if os.path.getsize(path) <= MAX_MODULE_BYTES:
                    with open(path, encoding="utf-8", errors="replace") as fh:
                        text = fh.read()
                    self._loading.add(key)
                    try:
                        mod = ForeignModule(modname, path, text, self)
                    finally:
                        self._loading.discard(key)
            except OSError as e:
                log.info("pallas-lsp: cannot read %s: %s", path, e)
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
        rel = modname.replace(".", os.sep)
        search = []
        if from_path:
            search.append(_package_root(from_path))
        search.extend(self.roots)
        for root in search:
            hit = _module_file(root, rel)
            if hit:
                return hit
        for root in self.environment_paths():
            hit = _module_file(root, rel)
            if hit:
                return hit
        return None

    def environment_paths(self) -> list[str]:
        """sys.path of the project's Python environment (asked of jedi, once)."""
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


def _module_file(root: str, rel: str) -> str | None:
    base = os.path.join(root, rel)
    for cand in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(cand):
            return cand
    return None


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
