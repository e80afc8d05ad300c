"""Accuracy bench: false alarms on correct kernels, and bugs caught on mutants.

    python benchmarks/accuracy.py [--jax] [--jobs 2] [--strict] [--json OUT]

1. Every module of the correct proof set (``tests/corpus/`` and the correct
   ``examples/``) is analysed: any error there is a false alarm (goal 0).
2. For every semaphore argument of the form ``X.at[...]`` in a DMA / semaphore call
   (``make_async_copy``, ``async_copy``, ``make_async_remote_copy`` /
   ``async_remote_copy`` send and recv semaphores, ``semaphore_signal`` / ``wait`` /
   ``read``, ``core_barrier``), a mutant strips that index (``sems.at[slot]`` ->
   ``sems``); the analyzer must flag the mutant on that line, as an error or a warning
   (goal 100%, at least 95%).
3. With ``--jax`` every mutant is also traced by JAX on CPU (``interpret=True``): the
   bench prints how many JAX rejects, and lists the ones it accepts, with why.

``--strict`` (CI) exits 1 when there is a false error or the catch rate is below 95%,
or (with ``--jax``) when the analyzer's error/warning verdict disagrees with JAX.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "oracle"))

from oracle_lib import (
    CORPUS,
    EXAMPLES,
    analyze,
    analyzer_workspace,
    expected_message,
    jax_available,
    jax_site_lines,
    mutants,
    proof_modules,
    rel,
    run_jax,
)

CATCH_GOAL = 0.95


def correct_modules() -> list[Path]:
    return [p for p in proof_modules((CORPUS, EXAMPLES)) if not p.stem.endswith("_bug")]


def _fmt(f) -> str:
    return f"{f.span.line + 1}:{f.span.col + 1} {f.code} {f.severity}: {f.message}"


def _only_waited(m) -> bool:
    """The mutated call builds a descriptor that is waited on and never started."""
    tree = ast.parse(m.source)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Call)
                and node.func.value.lineno <= m.line <= node.func.value.end_lineno):
            return node.func.attr in ("wait", "wait_recv", "wait_send")
    return False


def why_jax_accepts(m, verdict: str | None) -> str:
    """Why JAX's tracing does not reject this mutant (what the API doc says)."""
    if m.call == "semaphore_read":
        return "semaphore_read has no shape check in JAX"
    if m.call == "core_barrier":
        return ("core_barrier signals/waits only when the core axis has more than one "
                "core; traced here with 1")
    if verdict == "warning" or _only_waited(m):
        return "descriptor only waited: dma_wait (.wait/.wait_recv/.wait_send) has no shape check"
    return "JAX accepted it: check this one"


def write_mutant(m, into: Path) -> Path:
    """Write the mutant where it imports like the original (its package copied along)."""
    src = m.path.resolve()
    top = src.parent
    while (top / "__init__.py").exists():
        top = top.parent
    if top == src.parent:
        target = into / src.name
    else:
        pkg_root = src.relative_to(top).parts[0]
        shutil.copytree(top / pkg_root, into / pkg_root,
                        ignore=shutil.ignore_patterns("__pycache__"))
        target = into / src.relative_to(top)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(m.source)
    return target


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jax", action="store_true", help="also trace every mutant with JAX")
    ap.add_argument("--jobs", type=int, default=2, help="JAX processes (default 2)")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a goal is missed (CI)")
    ap.add_argument("--json", metavar="OUT", help="write every result as JSON")
    args = ap.parse_args(argv)
    if args.jax and not jax_available():
        print("--jax needs JAX: pip install -e '.[oracle]'", file=sys.stderr)
        return 2

    workspace = analyzer_workspace()
    modules = correct_modules()
    t0 = time.perf_counter()

    # 1. False alarms on correct code.
    false_errors, false_warnings = [], []
    for path in modules:
        for f in analyze(path, workspace=workspace):
            (false_errors if f.severity == "error" else false_warnings).append((path, f))

    # 2. Mutants.
    baseline = {p: {(f.span, f.code) for f in analyze(p, workspace=workspace)} for p in modules}
    results = []
    for m in (m for p in modules for m in mutants(p)):
        new = [f for f in analyze(m.path, m.source, workspace)
               if (f.span, f.code) not in baseline[m.path]]
        here = [f for f in new if f.span.line + 1 == m.line]
        # A helper that uses a semaphore parameter is flagged at its call sites, with a
        # related location pointing at the use inside the helper (the mutated line).
        via = [f for f in new if any(r.path is None and r.span.line + 1 == m.line
                                     for r in f.related)]
        found = here or via
        best = next((f for f in found if f.severity == "error"), found[0] if found else None)
        results.append({"mutant": m, "finding": best, "via_call_site": not here and bool(via)})
    analysis_s = time.perf_counter() - t0
    caught = [r for r in results if r["finding"] is not None]
    missed = [r for r in results if r["finding"] is None]
    rate = len(caught) / len(results) if results else 1.0

    # 3. JAX on every mutant.
    jax_rows = []
    if args.jax:
        with tempfile.TemporaryDirectory(prefix="pallas-mutants-") as tmp:
            files = []
            for i, r in enumerate(results):
                d = Path(tmp) / f"m{i:04d}"
                d.mkdir()
                files.append(write_mutant(r["mutant"], d))
            recs = run_jax(files, jobs=args.jobs)
            for r, file in zip(results, files):
                rec = recs.get(os.path.realpath(file), {"status": "error", "message": "no record"})
                frames = [ln for f, ln in rec.get("frames", []) if f == os.path.realpath(file)]
                sites = jax_site_lines(ast.parse(r["mutant"].source), frames)
                jax_rows.append({**r, "jax": rec, "same_statement": r["mutant"].line in sites})

    # -- report ------------------------------------------------------------------------
    print(f"pallas-lsp accuracy bench: {len(modules)} correct modules, "
          f"{len(results)} mutants (analysis {analysis_s:.1f} s)")
    print(f"false errors on correct code:   {len(false_errors)}   (goal 0)")
    for path, f in false_errors:
        print(f"  {rel(path)}:{_fmt(f)}")
    print(f"false warnings on correct code: {len(false_warnings)}")
    for path, f in false_warnings:
        print(f"  {rel(path)}:{_fmt(f)}")
    errors = sum(1 for r in caught if r["finding"].severity == "error")
    via = sum(1 for r in caught if r["via_call_site"])
    print(f"mutants caught on their line:   {len(caught)}/{len(results)} = {rate:.1%}   "
          f"(goal 100%, at least {CATCH_GOAL:.0%}; {errors} as errors, "
          f"{len(caught) - errors} as warnings; {via} of them flagged at the helper's call "
          f"sites, pointing at the line)")
    for r in missed:
        print(f"  MISSED {r['mutant'].label}")

    disagreements = []
    if args.jax:
        rejected = [j for j in jax_rows if j["jax"]["status"] == "sem_error"]
        broken = [j for j in jax_rows if j["jax"]["status"] not in ("sem_error", "ok")]
        accepted = [j for j in jax_rows if j["jax"]["status"] == "ok"]
        same = sum(1 for j in rejected if j["same_statement"])
        words = sum(
            1 for j in rejected
            if j["finding"] is not None and j["finding"].message.startswith(
                expected_message(j["jax"]["kind"], j["jax"]["shape"]))
        )
        print(f"mutants JAX confirms (raises the shape error): {len(rejected)}/{len(jax_rows)}"
              f"   ({same} raised on the mutated statement or the start of the descriptor "
              f"it builds; analyzer message = JAX's words and shape for {words})")
        for j in rejected:
            f = j["finding"]
            if f is None or f.severity != "error":
                disagreements.append(j)
                print(f"  JAX REJECTS, analyzer {'silent' if f is None else 'warns only'}: "
                      f"{j['mutant'].label}: {j['jax']['message']}")
            elif not f.message.startswith(expected_message(j["jax"]["kind"], j["jax"]["shape"])):
                print(f"  shape/wording differs: {j['mutant'].label}: JAX {j['jax']['message']!r}"
                      f" / analyzer {f.message!r}")
        print(f"mutants JAX accepts: {len(accepted)}")
        for j in accepted:
            f = j["finding"]
            verdict = f.severity if f else None
            if verdict == "error" and j["mutant"].call not in ("core_barrier",):
                disagreements.append(j)
            print(f"  {j['mutant'].label}: {why_jax_accepts(j['mutant'], verdict)}"
                  f" [analyzer: {verdict or 'silent'}]")
        for j in broken:
            print(f"  JAX failed for another reason: {j['mutant'].label}: {j['jax'].get('message')}")

    if args.json:
        out = {
            "modules": [rel(p) for p in modules],
            "false_errors": [{"path": rel(p), "finding": _fmt(f)} for p, f in false_errors],
            "false_warnings": [{"path": rel(p), "finding": _fmt(f)} for p, f in false_warnings],
            "mutants": [
                {
                    "label": r["mutant"].label,
                    "line": r["mutant"].line,
                    "analyzer": _fmt(r["finding"]) if r["finding"] else None,
                    "jax": (j["jax"]["status"], j["jax"].get("message")) if j else None,
                }
                for r, j in zip(results, jax_rows or [None] * len(results))
            ],
            "catch_rate": rate,
        }
        Path(args.json).write_text(json.dumps(out, indent=1))

    if args.strict and (false_errors or rate < CATCH_GOAL or disagreements):
        print("FAIL (--strict)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
