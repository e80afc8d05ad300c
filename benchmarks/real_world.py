#!/usr/bin/env python3
"""Accuracy on real, published Pallas kernels (not written for this project).

Downloads pinned wheels of public kernel libraries from PyPI (tokamax, tpu-inference,
sglang-jax, ejkernel, easydel, qwix, ringattention, maxtext, fjformer, axlearn,
recurrentgemma: the ones whose wheels ship Pallas TPU code) plus the Pallas ops shipped
inside `jax`, and measures:

* false errors and warnings: every finding on this shipped (and presumably correct) code is listed;
* recall: for every call argument of the form `<name with "sem">.at[...]`, the index is
  stripped and the mutant must be flagged on that line (semaphores handed to helpers,
  descriptor classes and DMAs alike); counted apart, mutants flagged where a helper is
  called, with a related location on the mutated line, and mutants missed in their own
  file but flagged from a caller: a module of the same wheel that imports the mutated
  one, or imports such a module (found by their import statements), analysed with the
  mutant in place of the file, has a finding with a related location on the mutated line.
  Apart: views assigned to a name (`sem = self.sem_recvs.at[slot]`), stripped, must give
  a finding the shipped file does not have (it is reported where the name is used).

    python benchmarks/real_world.py [--keep DIR]

Needs network access to PyPI for the wheels (cached in DIR between runs). Nothing from
the libraries is imported or executed. Prints figures; exit status 1 on a false error or warning.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pallas_lsp.analysis.engine import analyze_source
from pallas_lsp.analysis.workspace import Workspace, package_of

import published
from published import WHEELS


def fetch(dest: pathlib.Path) -> list[pathlib.Path]:
    """The published wheels' roots, then jax's own Pallas code (when jax is installed)."""
    roots = published.fetch(dest)
    try:
        import jax

        roots.append(pathlib.Path(jax.__file__).parent)
    except ImportError:
        pass
    return roots


def _is_at(node) -> bool:
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "at"


def mutants(src: str, assigned: bool = False):
    """(line, original text, mutated source) for each `<sem>.at[...]` call argument, or
    (`assigned`) each one assigned to a name (`sem = self.sem_recvs.at[slot]`)."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return
    lines = src.split("\n")
    for node in ast.walk(tree):
        if assigned:
            views = [node.value] if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) else []
        else:
            views = list(node.args) + [k.value for k in node.keywords] if isinstance(node, ast.Call) else []
        for a in views:
            if not _is_at(a) or a.lineno != a.end_lineno:
                continue
            base = ast.get_source_segment(src, a.value.value) or ""
            if "sem" not in base.lower():
                continue
            raw = lines[a.lineno - 1].encode()
            new = raw[:a.col_offset] + base.encode() + raw[a.end_col_offset:]
            yield a.lineno, ast.get_source_segment(src, a), "\n".join(
                lines[:a.lineno - 1] + [new.decode()] + lines[a.lineno:])


def _flagged(findings, line: int, path: str) -> str | None:
    """What caught the mutant: "line", a finding on `line`; "linked", one elsewhere (a
    helper's call site) with a related location on `line` (no path: this file); None: missed."""
    if any(f.span.line + 1 == line for f in findings):
        return "line"
    same = pathlib.Path(path).resolve()
    if any(r.span.line + 1 == line and (r.path is None or pathlib.Path(r.path).resolve() == same)
           for f in findings for r in f.related):
        return "linked"
    return None


def _new_findings(before, after) -> list:
    """Findings of the mutant the shipped file does not have (its lines are the same)."""
    known = {(f.span.line, f.code) for f in before}
    return [f for f in after if (f.span.line, f.code) not in known]


@dataclasses.dataclass(frozen=True)
class Miss:
    path: str          # relative to its wheel's root
    line: int
    original: str
    root: pathlib.Path
    mutated: str


def module_name(path: pathlib.Path, roots: list[str]) -> str:
    package = package_of(str(path), roots)
    stem = None if path.name == "__init__.py" else path.stem
    return ".".join(p for p in (package, stem) if p)


def imported_modules(path: pathlib.Path, src: str, roots: list[str]) -> set[str]:
    """Every module `path` may import: `import a.b`, `from a import b` (a, and a.b in
    case b is a module), relative imports resolved against its package."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return set()
    package = (package_of(str(path), roots) or "").split(".")
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
    return out


class Callers:
    """The modules of one wheel that import a given module (only files that mention pallas)."""

    def __init__(self, root: pathlib.Path) -> None:
        roots = Workspace([str(root)]).search_roots()
        self.roots = roots
        self.importers: dict[str, list[pathlib.Path]] = {}
        for path in sorted(root.rglob("*.py")):
            src = path.read_text(encoding="utf-8", errors="replace")
            if "pallas" in src:
                for mod in imported_modules(path, src, roots):
                    self.importers.setdefault(mod, []).append(path)

    def of(self, path: pathlib.Path, hops: int = 2) -> list[pathlib.Path]:
        """The importers of `path`, then theirs (up to `hops` imports away), nearest first."""
        out: list[pathlib.Path] = []
        frontier = [path]
        for _ in range(hops):
            frontier = list(dict.fromkeys(p for q in frontier for p in self.importers.get(
                module_name(q, self.roots), []) if p != path and p not in out))
            out += frontier
        return out


def flagged_from_caller(miss: Miss, callers: Callers) -> bool:
    """Whether a module importing the mutated one (or importing such a module), analysed with
    the mutant in place, has a finding with a related location on the mutated line (the file
    itself is not re-read)."""
    path = (miss.root / miss.path).resolve()
    ws = Workspace([str(miss.root)])   # fresh: no module read before the mutant
    ws.set_text(str(path), miss.mutated)
    for caller in callers.of(path):
        found = analyze_source(caller.read_text(encoding="utf-8", errors="replace"), str(caller), ws)
        if any(r.path is not None and pathlib.Path(r.path).resolve() == path and r.span.line + 1 == miss.line
               for f in found for r in f.related):
            return True
    return False


def print_misses(missed: list[Miss]) -> None:
    """Every miss, grouped by file, the files with most misses first."""
    by_file: dict[str, list[Miss]] = {}
    for m in missed:
        by_file.setdefault(m.path, []).append(m)
    print(f"missed: {len(missed)} in {len(by_file)} files")
    for path, group in sorted(by_file.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"  {len(group)} {path}")
        for m in group:
            print(f"      {m.line}: {m.original}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keep", help="download / unpack folder (default: a temporary one)")
    args = ap.parse_args(argv)
    dest = pathlib.Path(args.keep) if args.keep else pathlib.Path(tempfile.mkdtemp(prefix="pallas-real-"))
    roots = fetch(dest)
    t0 = time.perf_counter()
    files = errors = warnings = sem_files = 0
    false = []
    total = caught = linked = views = 0
    missed: list[Miss] = []
    views_missed: list[Miss] = []
    for root in roots:
        ws = Workspace([str(root)])
        for path in sorted(root.rglob("*.py")):
            src = path.read_text(encoding="utf-8", errors="replace")
            files += 1
            if "pallas" not in src:
                continue
            found = analyze_source(src, str(path), ws)
            bad = [f for f in found if f.severity == "error"]
            errors += len(bad)
            false += [f"{path}:{f.span.line + 1}: {f.code} {f.message[:100]}" for f in bad]
            warned = [f for f in found if f.severity == "warning"]
            warnings += len(warned)
            false += [f"{path}:{f.span.line + 1}: {f.code} (warning) {f.message[:100]}" for f in warned]
            if "emaphore" not in src:
                continue
            sem_files += 1
            for line, original, mutated in mutants(src):
                total += 1
                verdict = _flagged(analyze_source(mutated, str(path), ws), line, str(path))
                caught += verdict == "line"
                linked += verdict == "linked"
                if verdict is None:
                    missed.append(Miss(str(path.relative_to(root)), line, original, root, mutated))
            for line, original, mutated in mutants(src, assigned=True):   # reported where the name is used
                views += 1
                if not _new_findings(found, analyze_source(mutated, str(path), ws)):
                    views_missed.append(Miss(str(path.relative_to(root)), line, original, root, mutated))
    callers = {root: Callers(root) for root in {m.root for m in missed}}
    from_caller = [m for m in missed if flagged_from_caller(m, callers[m.root])]
    missed = [m for m in missed if m not in from_caller]
    dt = time.perf_counter() - t0
    print(f"pallas-lsp on published kernels ({', '.join(WHEELS)}, and jax's own Pallas code)")
    print(f"files read: {files}; with semaphores: {sem_files}; analysis and mutants: {dt:.1f} s")
    print(f"false errors on shipped code: {errors}   (goal 0)")
    print(f"false warnings on shipped code: {warnings}   (goal 0)")
    for line in false:
        print("  " + line)
    rate = 100.0 * caught / total if total else 0.0
    print(f"stripped `.at[...]` of a semaphore argument flagged on its line: {caught}/{total} = {rate:.1f}%")
    both = 100.0 * (caught + linked) / total if total else 0.0
    print(f"  or at a helper's call site whose finding points at the line: {caught + linked}/{total} = {both:.1f}%")
    print(f"  missed there, flagged from a caller module pointing at the line: {len(from_caller)}")
    every = 100.0 * (caught + linked + len(from_caller)) / total if total else 0.0
    print(f"  any of the three: {caught + linked + len(from_caller)}/{total} = {every:.1f}%")
    print_misses(missed)
    print(f"stripped `.at[...]` of a semaphore view assigned to a name, flagged (where the name is used): "
          f"{views - len(views_missed)}/{views}")
    print_misses(views_missed)
    return 1 if errors or warnings else 0


if __name__ == "__main__":
    sys.exit(main())
