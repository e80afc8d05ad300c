"""What the JAX oracle tests and the accuracy bench share (no JAX import here).

* which modules make up the proof set (``examples/`` and ``tests/corpus/``);
* where the semaphore arguments of DMA / semaphore calls are, read from the AST;
* mutants: a semaphore argument ``X.at[...]`` with its (outermost) index stripped;
* running ``jax_runner.py`` over many modules in 1-2 subprocesses;
* the lines "where JAX raised", for comparing with the analyzer's findings.
"""

from __future__ import annotations

import ast
import json
import os
import queue
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
CORPUS = REPO / "tests" / "corpus"
RUNNER = Path(__file__).resolve().parent / "jax_runner.py"

# Call name -> the semaphore parameters as (position, keyword, role).
SEM_PARAMS: dict[str, tuple[tuple[int, str, str], ...]] = {
    "make_async_copy": ((2, "sem", "sem"),),
    "async_copy": ((2, "sem", "sem"),),
    "make_async_remote_copy": ((2, "send_sem", "send_sem"), (3, "recv_sem", "recv_sem")),
    "async_remote_copy": ((2, "send_sem", "send_sem"), (3, "recv_sem", "recv_sem")),
    "semaphore_signal": ((0, "sem_or_view", "sem"),),
    "semaphore_wait": ((0, "sem_or_view", "sem"),),
    "semaphore_read": ((0, "sem_or_view", "sem"),),
    "core_barrier": ((0, "sem", "sem"),),
}

# Modules that are only imported by others (no ``trace()`` / ``main()``) are still
# analysed; they are traced through the modules that import them.
ENTRY_POINTS = ("trace", "main")


def proof_modules(roots=(EXAMPLES, CORPUS)) -> list[Path]:
    """Every Python module of the proof set, sorted."""
    out = []
    for root in roots:
        out.extend(p for p in Path(root).rglob("*.py") if "__pycache__" not in p.parts)
    return sorted(out)


def has_entry(tree: ast.Module) -> bool:
    return any(
        isinstance(n, ast.FunctionDef) and n.name in ENTRY_POINTS for n in tree.body
    )


def _call_name(func: ast.expr, aliases: dict[str, str | None]) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return aliases.get(func.id, func.id)
    return None


def _aliases(tree: ast.Module) -> dict[str, str]:
    """Module-level re-bindings such as ``copy = pltpu.make_async_copy``; a function the
    module defines itself under a Pallas name maps to None (it is not Pallas)."""
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in SEM_PARAMS:
            out[node.name] = None
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr in SEM_PARAMS
        ):
            out[node.targets[0].id] = node.value.attr
    return out


@dataclass(frozen=True)
class SemArg:
    """One semaphore argument of a DMA / semaphore call."""

    call: str          # e.g. "make_async_copy"
    role: str          # "sem", "send_sem" or "recv_sem"
    node: ast.expr     # the argument expression
    call_line: int     # 1-based line of the call

    @property
    def line(self) -> int:
        return self.node.lineno

    @property
    def is_at_index(self) -> bool:
        """``X.at[...]``: the form the mutation bench strips."""
        return _is_at_index(self.node)


def sem_args(tree: ast.Module) -> list[SemArg]:
    """The semaphore arguments of every DMA / semaphore call, by position or keyword."""
    aliases = _aliases(tree)
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _call_name(node.func, aliases)
        params = SEM_PARAMS.get(name)
        if params is None:
            continue
        # After a `*args` splat positions are unknown: only keywords can be read.
        starred = any(isinstance(a, ast.Starred) for a in node.args)
        for pos, kw, role in params:
            arg = node.args[pos] if pos < len(node.args) and not starred else None
            for k in node.keywords:
                if k.arg == kw:
                    arg = k.value
            if arg is not None:
                out.append(SemArg(name, role, arg, node.lineno))
    return sorted(out, key=lambda a: (a.node.lineno, a.node.col_offset))


def _offset(lines: list[str], lineno: int, col_bytes: int) -> int:
    """Character offset in the text of an AST (line, UTF-8 byte column) position."""
    start = sum(len(s) for s in lines[: lineno - 1])
    return start + len(lines[lineno - 1].encode("utf-8")[:col_bytes].decode("utf-8"))


@dataclass(frozen=True)
class Mutant:
    path: Path          # the original module
    line: int           # 1-based line of the stripped argument
    col: int            # 0-based column (code points)
    call: str
    role: str
    original: str       # e.g. "sems.at[slot]"
    replacement: str    # e.g. "sems"
    source: str         # the whole mutated module

    @property
    def label(self) -> str:
        return f"{rel(self.path)}:{self.line}: {self.call}({self.role}={self.original} -> {self.replacement})"


def _is_at_index(node: ast.expr) -> bool:
    return (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
            and node.value.attr == "at")


def _root_name(node: ast.expr) -> str:
    """``self.p1_send_sem.at[i]`` -> "p1_send_sem": the last plain name in the chain."""
    while True:
        if isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Attribute):
            if node.attr != "at":
                return node.attr
            node = node.value
        elif isinstance(node, ast.Name):
            return node.id
        else:
            return ""


def indirect_sites(tree: ast.Module) -> list[tuple[str, str, ast.expr]]:
    """Semaphore views that reach a DMA indirectly: ``X.at[...]`` (X named like a
    semaphore) passed to a helper, bound to a name, or returned by an accessor."""
    direct = {id(a.node) for a in sem_args(tree)}
    out = []

    def semish(node):
        return (_is_at_index(node) and id(node) not in direct
                and "sem" in _root_name(node).lower())

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            callee = _call_name(node.func, {}) or "?"
            if callee == "select_ref":
                continue
            for a in node.args:
                if semish(a):
                    out.append((callee, "arg", a))
            for k in node.keywords:
                if semish(k.value):
                    out.append((callee, k.arg or "**", k.value))
        elif (isinstance(node, ast.Assign) and semish(node.value)
              and not (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                       and node.targets[0].id == _root_name(node.value))):
            # (`sem = sem.at[i]` is left alone: stripped, it is a no-op that can turn a
            # `while sem.shape:` loop into an endless one.)
            out.append(("=", "view", node.value))
        elif isinstance(node, ast.Return) and node.value is not None and semish(node.value):
            out.append(("return", "accessor", node.value))
    return sorted(out, key=lambda t: (t[2].lineno, t[2].col_offset))


def mutants(path: Path, source: str | None = None, indirect: bool = False) -> list[Mutant]:
    """One mutant per ``X.at[...]`` semaphore argument: the outermost index stripped.

    `indirect=True`: the same for the views of `indirect_sites` (helpers, bindings,
    accessors) instead of the DMA / semaphore call arguments.
    """
    source = Path(path).read_text() if source is None else source
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    if indirect:
        sites = indirect_sites(tree)
    else:
        sites = [(a.call, a.role, a.node) for a in sem_args(tree) if a.is_at_index]
    out = []
    for call, role, node in sites:
        base = node.value.value
        start = _offset(lines, node.lineno, node.col_offset)
        end = _offset(lines, node.end_lineno, node.end_col_offset)
        b0 = _offset(lines, base.lineno, base.col_offset)
        b1 = _offset(lines, base.end_lineno, base.end_col_offset)
        original, replacement = source[start:end], source[b0:b1]
        col = start - sum(len(s) for s in lines[: node.lineno - 1])
        out.append(Mutant(Path(path), node.lineno, col, call, role, original,
                          replacement, source[:start] + replacement + source[end:]))
    return out


def rel(path) -> str:
    try:
        return str(Path(path).resolve().relative_to(REPO))
    except ValueError:
        return str(path)


# -- running JAX ---------------------------------------------------------------------

def jax_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("jax") is not None


def run_jax(paths, jobs: int = 2, coverage: bool = False, module_timeout: float = 180) -> dict:
    """Trace every module with JAX (``jax_runner.py``) in up to `jobs` subprocesses.

    Returns {realpath: record}.  Modules are dealt out round-robin so each process pays
    the JAX import once.  A module that produces no record within `module_timeout`
    seconds (e.g. a kernel waiting forever on a semaphore nobody signals, which the
    interpreter runs as an endless loop) gets a ``"timeout"`` record; its process is
    killed and a new one goes on with the modules after it.
    """
    paths = [str(p) for p in paths]
    jobs = max(1, min(jobs, len(paths)))
    chunks = [paths[i::jobs] for i in range(jobs)]
    results: dict = {}
    threads = [threading.Thread(target=_run_chunk, args=(c, coverage, module_timeout, results))
               for c in chunks if c]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def _pump(stream, lines: queue.Queue) -> None:
    """Copy a subprocess's output lines into a queue; None marks the end."""
    for line in stream:
        lines.put(line)
    lines.put(None)


def _run_chunk(paths, coverage, module_timeout, results) -> None:
    cmd = [sys.executable, str(RUNNER)] + (["--coverage"] if coverage else [])
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONDONTWRITEBYTECODE="1")
    remaining = list(paths)
    while remaining:
        with subprocess.Popen(cmd + remaining, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, env=env) as proc:
            lines: queue.Queue = queue.Queue()
            threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
            while remaining:
                try:
                    line = lines.get(timeout=module_timeout)
                except queue.Empty:
                    proc.kill()
                    results[os.path.realpath(remaining.pop(0))] = {
                        "path": "", "status": "timeout", "kind": None, "shape": None,
                        "message": f"no result within {module_timeout:.0f} s", "exc_type": None,
                        "frames": [], "covered": {}}
                    break
                if line is None:  # the runner died: report the module it was on
                    results[os.path.realpath(remaining.pop(0))] = {
                        "path": "", "status": "error", "kind": None, "shape": None,
                        "message": f"jax_runner exited with {proc.wait()}", "exc_type": None,
                        "frames": [], "covered": {}}
                    break
                if line.startswith("{"):
                    rec = json.loads(line)
                    results[os.path.realpath(rec["path"])] = rec
                    remaining.remove(rec["path"])
            proc.kill()


# -- where JAX raised ----------------------------------------------------------------

def _own_lines(st: ast.stmt) -> range:
    """A simple statement's lines; a compound statement's header (with decorators)."""
    body = getattr(st, "body", None)
    if not body or not isinstance(body, list) or not isinstance(body[0], ast.stmt):
        return range(st.lineno, st.end_lineno + 1)
    first = min([st.lineno] + [d.lineno for d in getattr(st, "decorator_list", [])])
    return range(first, max(first, body[0].lineno - 1) + 1)


def _statement_at(tree: ast.Module, line: int) -> range | None:
    for st in ast.walk(tree):
        if isinstance(st, ast.stmt) and line in _own_lines(st):
            return _own_lines(st)
    return None


def _started_descriptor(stmt: ast.stmt) -> str | None:
    """``cp.start()`` / ``cp.wait()`` in the statement: the descriptor's name."""
    for node in ast.walk(stmt):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("start", "wait", "wait_send", "wait_recv")
            and isinstance(node.func.value, ast.Name)
        ):
            return node.func.value.id
    return None


def _enclosing_function(tree: ast.Module, line: int):
    best = tree
    for n in ast.walk(tree):
        if (isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                and n.lineno <= line <= n.end_lineno
                and (best is tree or n.lineno > best.lineno)):
            best = n
    return best


def jax_site_lines(tree: ast.Module, frame_lines: list[int]) -> set[int]:
    """The lines an analyzer error may sit on to count as "where JAX raised".

    Every statement on the traceback (innermost last) counts, whole (a call spread over
    several lines has its semaphore argument on a later line than the one Python
    reports).  When the innermost statement starts a descriptor held in a variable
    (``cp.start()``), the statements that assigned that variable in the same function
    count too: that is where the semaphore argument is written.
    """
    lines: set[int] = set()
    for line in frame_lines:
        lines.update(_statement_at(tree, line) or ())
    if frame_lines:
        name = None
        for st in ast.walk(tree):
            if isinstance(st, ast.stmt) and frame_lines[-1] in _own_lines(st):
                name = _started_descriptor(st)
                break
        if name:
            fn = _enclosing_function(tree, frame_lines[-1])
            for node in ast.walk(fn):
                if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == name for t in node.targets
                ):
                    lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


def expected_message(kind: str, shape: str) -> str:
    """JAX's own words, which the analyzer's message must start with."""
    return f"Cannot {kind} on a non-()-shaped semaphore: {shape}"


def analyzer_workspace(root: Path = REPO):
    """The analyzer's cross-module index for `root`, when the package provides one."""
    try:
        from pallas_lsp.analysis.workspace import Workspace
    except ImportError:
        return None
    return Workspace([str(root)])


def analyze(path: Path, source: str | None = None, workspace=None):
    """Run the analyzer (the lead's engine) on one module's text."""
    from pallas_lsp.analysis.engine import analyze_source

    source = Path(path).read_text() if source is None else source
    return analyze_source(source, str(path), workspace)


def apply_index_fixes(path: Path, source: str, workspace=None, passes: int = 3,
                      unsafe: bool = False) -> str:
    """`source` after the analyzer's safe index fixes (what `check --fix` applies; with
    `unsafe`, the first choice where the index is not certain, as `--unsafe-fixes`),
    re-analysing after each pass as the CLI does."""
    from pallas_lsp.analysis.fixes import apply_edits, fix_all_edits, split_lines

    for _ in range(passes):
        edits = fix_all_edits(analyze(path, source, workspace), split_lines(source), unsafe)
        if not edits:
            break
        source = apply_edits(source, edits)
    return source
