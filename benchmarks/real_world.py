#!/usr/bin/env python3
"""Accuracy on real, published Pallas kernels (not written for this project).

Downloads pinned wheels of public kernel libraries from PyPI (tokamax, tpu-inference,
sglang-jax) plus the Pallas ops shipped inside `jax`, and measures:

* false errors: every finding on this shipped (and presumably correct) code is listed;
* recall: for every call argument of the form `<name with "sem">.at[...]`, the index is
  stripped and the mutant must be flagged on that line (semaphores handed to helpers,
  descriptor classes and DMAs alike).

    python benchmarks/real_world.py [--keep DIR]

Needs network access to PyPI for the wheels (cached in DIR between runs). Nothing from
the libraries is imported or executed. Prints figures; exit status 1 only on a false error.
"""

from __future__ import annotations

import argparse
import ast
import pathlib
import subprocess
import sys
import tempfile
import time
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from pallas_lsp.analysis.engine import analyze_source
from pallas_lsp.analysis.workspace import Workspace

WHEELS = ["tokamax==0.0.17", "tpu-inference==0.32.0", "sglang-jax==0.0.2"]


def fetch(dest: pathlib.Path) -> list[pathlib.Path]:
    dest.mkdir(parents=True, exist_ok=True)
    if not list(dest.glob("*.whl")):
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "--only-binary=:all:",
                        "--python-version", "3.12", "-d", str(dest), *WHEELS], check=True)
    roots = []
    for whl in sorted(dest.glob("*.whl")):
        out = dest / whl.stem
        if not out.exists():
            with zipfile.ZipFile(whl) as z:
                z.extractall(out)
        roots.append(out)
    try:
        import jax

        roots.append(pathlib.Path(jax.__file__).parent)
    except ImportError:
        pass
    return roots


def _is_at(node) -> bool:
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "at"


def mutants(src: str):
    """(line, original text, mutated source) for each `<sem>.at[...]` call argument."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return
    lines = src.split("\n")
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for a in list(node.args) + [k.value for k in node.keywords]:
            if not _is_at(a) or a.lineno != a.end_lineno:
                continue
            base = ast.get_source_segment(src, a.value.value) or ""
            if "sem" not in base.lower():
                continue
            raw = lines[a.lineno - 1].encode()
            new = raw[:a.col_offset] + base.encode() + raw[a.end_col_offset:]
            yield a.lineno, ast.get_source_segment(src, a), "\n".join(
                lines[:a.lineno - 1] + [new.decode()] + lines[a.lineno:])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keep", help="download / unpack folder (default: a temporary one)")
    args = ap.parse_args(argv)
    dest = pathlib.Path(args.keep) if args.keep else pathlib.Path(tempfile.mkdtemp(prefix="pallas-real-"))
    roots = fetch(dest)
    t0 = time.perf_counter()
    files = errors = sem_files = 0
    false = []
    total = caught = 0
    missed = []
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
            if "emaphore" not in src:
                continue
            sem_files += 1
            for line, original, mutated in mutants(src):
                total += 1
                if any(f.span.line + 1 == line for f in analyze_source(mutated, str(path), ws)):
                    caught += 1
                else:
                    missed.append(f"{path.relative_to(root)}:{line}: {original}")
    dt = time.perf_counter() - t0
    print(f"pallas-lsp on published kernels ({', '.join(WHEELS)}, and jax's own Pallas code)")
    print(f"files read: {files}; with semaphores: {sem_files}; analysis and mutants: {dt:.1f} s")
    print(f"false errors on shipped code: {errors}   (goal 0)")
    for line in false:
        print("  " + line)
    rate = 100.0 * caught / total if total else 0.0
    print(f"stripped `.at[...]` of a semaphore argument flagged on its line: {caught}/{total} = {rate:.1f}%")
    for m in missed[:40]:
        print("  missed " + m)
    if len(missed) > 40:
        print(f"  ... and {len(missed) - 40} more")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
