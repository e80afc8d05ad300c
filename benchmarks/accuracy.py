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

4. The index fixes: how many are safe (``check --fix`` applies them) and how many are
   choices only; whether the safe ones restore the original code and whether the
   choices offer the original index.  With ``--jax`` every module a safe fix rewrites
   is run under the TPU interpreter (``pltpu.InterpretParams(dma_execution_mode=
   "eager")``) and must run clean: no exception, no ``Semaphore ... has non-zero count
   ... at kernel exit`` line, no hang.
5. The ``pallas_call`` contract families (``benchmarks/contract_mutants.py``: kernel
   parameters, block dims, grid rank, index maps; rules PAL101-PAL107, PAL201, PAL202)
   run afterwards, judged by JAX with ``--jax``; ``--no-contract`` skips them.
6. The DMA / semaphore protocol families (``benchmarks/protocol_mutants.py``: delete a
   wait, swap a semaphore type, drop an output index-map term, change one DMA side's
   size, change a signal or a wait count, an off-by-one prefetch guard, delete a
   prologue; rules PAL301-PAL306) on the protocol corpus, judged by JAX's TPU
   interpreter with ``--jax``; ``--no-protocol`` skips them.
7. The kernel-body families (``benchmarks/body_mutants.py``: drop the ``.astype(...)`` of
   a stored value, swap a dot's operands, drop ``keepdims``, change a reshape, transpose
   the other operand, drop ``preferred_element_type``; rules PAL401-PAL412), judged by JAX
   with ``--jax`` (each mutant traced, each ``pallas_call`` also lowered for TPU);
   ``--no-body`` skips them.
8. With ``--jax``, the values in kernel bodies (``benchmarks/value_accuracy.py``): the
   shape and dtype pallas-lsp gives each name assigned in a kernel body of the corpora
   against JAX's, recorded while JAX traces them; ``--no-values`` skips them.

``--strict`` (CI) exits 1 when there is a false error or the catch rate is below 95%,
or (with ``--jax``) when the analyzer's error/warning verdict disagrees with JAX or a
safe fix does not run clean; the contract families fail it below 95% flagged or on any
false error, a protocol family below 90% flagged (each family on its own) or any false
error there, a kernel-body family below 95% flagged or on any false error, the values on
any disagreement with JAX or a coverage below 80%.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "oracle"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import contract_mutants
import body_mutants
import protocol_mutants
import value_accuracy
from oracle_lib import (
    CORPUS,
    EXAMPLES,
    analyze,
    analyzer_workspace,
    apply_index_fixes,
    expected_message,
    has_entry,
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


def write_mutant(m, into: Path) -> tuple[Path, list[Path]]:
    """Write the mutant where it imports like the original, its package copied along.

    Returns the mutated file and every module of the copy (the file alone outside a
    package): the ones to analyse and trace for a mutant that others import.
    """
    src = m.path.resolve()
    top = src.parent
    while (top / "__init__.py").exists():
        top = top.parent
    if top == src.parent:
        target = into / src.name
        files = [target]
    else:
        pkg_root = src.relative_to(top).parts[0]
        shutil.copytree(top / pkg_root, into / pkg_root,
                        ignore=shutil.ignore_patterns("__pycache__"))
        target = into / src.relative_to(top)
        files = sorted((into / pkg_root).rglob("*.py"))
    target.write_text(m.source)
    return target, files


def check_direct(m, baseline, workspace) -> dict:
    """Flagged on the mutated line (or at a helper's call site pointing at it)?"""
    new = [f for f in analyze(m.path, m.source, workspace) if (f.span, f.code) not in baseline]
    here = [f for f in new if f.span.line + 1 == m.line]
    # A helper that uses a semaphore parameter is flagged at its call sites, with a
    # related location pointing at the use inside the helper (the mutated line).
    via = [f for f in new
           if any(r.path is None and r.span.line + 1 == m.line for r in f.related)]
    found = here or via
    best = next((f for f in found if f.severity == "error"), found[0] if found else None)
    row = {"mutant": m, "finding": best, "via_call_site": not here and bool(via)}
    fix = best.fix if best is not None else None
    if fix is not None and fix.index and fix.safe:
        # The safe fix `check --fix` applies: does it restore the code?
        row["fixed"] = apply_index_fixes(m.path, m.source, workspace)
    elif fix is not None and fix.index:
        from pallas_lsp.analysis.pallas.indexing import indexed_text

        choices = [indexed_text(fix.sem_text, i) for i in (fix.index, *fix.alternatives)]
        row["choices"] = choices
        if here and fix.sem_text == m.replacement:   # comparable with the stripped text
            row["offered"] = _bare(m.original) in [_bare(c) for c in choices]
    return row


def _bare(text: str) -> str:
    return "".join(text.split())


def check_indirect(m, tmp: Path) -> dict:
    """Any finding in the mutated module or the package modules importing it?"""
    _, files = write_mutant(m, tmp)
    ws = analyzer_workspace(tmp)
    found = [(f_path, f) for f_path in files for f in analyze(f_path, workspace=ws)]
    best = next((x for x in found if x[1].severity == "error"), found[0] if found else None)
    return {"mutant": m, "finding": best[1] if best else None,
            "where": rel_tmp(best[0], tmp) if best else None,
            "entries": [f for f in files if has_entry(ast.parse(f.read_text()))]}


def rel_tmp(path: Path, tmp: Path) -> str:
    return str(Path(path).relative_to(tmp))


TPU_INTERPRETER = 'interpret=__import__("jax.experimental.pallas.tpu", fromlist=["_"]).InterpretParams()'


def run_on_tpu_interpreter(rows, tmp: Path, jobs: int) -> None:
    """Run again, under the TPU interpreter, the mutants JAX accepts when tracing.

    JAX does not check waits and reads when tracing, but `pltpu.InterpretParams()`
    fails at run time on a whole-array semaphore there.  Each mutant is paired with its
    unmutated module run the same way (the control): `r["tpu"]` is "fails" only when the
    mutant fails and the control passes.  Modules that only trace (`jax.make_jaxpr`)
    (all or in part) are left out: "not run".
    """
    pairs, controls = [], {}
    for i, r in enumerate(rows):
        m = r["mutant"]
        if "interpret=True" not in m.source or "make_jaxpr" in m.source:
            r["tpu"] = "not run"
            continue
        d = tmp / f"t{i:04d}"
        d.mkdir()
        mutant_file = write_mutant(dataclasses.replace(
            m, source=m.source.replace("interpret=True", TPU_INTERPRETER)), d)[0]
        if m.path not in controls:
            c = tmp / f"c{len(controls):04d}"
            c.mkdir()
            original = m.path.read_text().replace("interpret=True", TPU_INTERPRETER)
            controls[m.path] = write_mutant(dataclasses.replace(m, source=original), c)[0]
        pairs.append((r, mutant_file, controls[m.path]))
    recs = run_jax([f for _, f, _ in pairs] + list(controls.values()), jobs=jobs)
    for r, mutant_file, control in pairs:
        got = recs.get(os.path.realpath(mutant_file), {"status": "error"})
        ok = recs.get(os.path.realpath(control), {"status": "error"})["status"] == "ok"
        r["tpu"] = "fails" if ok and got["status"] != "ok" else "runs" if ok else "no control"


TPU_EAGER = ('interpret=__import__("jax.experimental.pallas.tpu", fromlist=["_"])'
             '.InterpretParams(dma_execution_mode="eager")')
FIX_RUN_TIMEOUT = 60   # seconds: a kernel waiting on a semaphore nobody signals never ends


def run_safe_fixes(rows, tmp: Path, jobs: int) -> None:
    """Run every module fixed by a safe index fix under the TPU interpreter, DMAs eager
    (a DMA never waited then shows), with its original module as the control:
    `r["fix_run"]` is "clean" (no exception, no semaphore left signalled at kernel exit,
    no hang), what went wrong, "control fails" (the original does not run clean either)
    or "not run" (the module only traces).  Each distinct source runs once."""
    files: dict[tuple, Path] = {}

    def file_for(m, source: str) -> Path:
        key = (m.path, source)
        if key not in files:
            d = tmp / f"s{len(files):04d}"
            d.mkdir()
            files[key] = write_mutant(dataclasses.replace(m, source=_eager(source)), d)[0]
        return files[key]

    runs = []
    for r in rows:
        m = r["mutant"]
        if _eager(m.source) == m.source:
            r["fix_run"] = "not run"
            continue
        runs.append((r, file_for(m, r["fixed"]), file_for(m, m.path.read_text())))
    recs = run_jax(list(files.values()), jobs=jobs, module_timeout=FIX_RUN_TIMEOUT)
    for r, fixed, control in runs:
        got, ok = (_run_verdict(recs.get(os.path.realpath(f))) for f in (fixed, control))
        r["fix_run"] = got if ok == "clean" else "control fails"


def _eager(source: str) -> str:
    """The module run under the TPU interpreter with eager DMAs (unchanged: it cannot be,
    it only traces)."""
    if "make_jaxpr" in source:
        return source
    if "interpret=True" in source:
        return source.replace("interpret=True", TPU_EAGER)
    return source.replace("pltpu.InterpretParams()",
                          'pltpu.InterpretParams(dma_execution_mode="eager")')


def _run_verdict(rec) -> str:
    if rec is None:
        return "no record"
    if rec["status"] == "timeout":
        return "hangs"
    if rec["status"] != "ok":
        return f"raises {rec['exc_type']}: {rec['message']}"
    if rec.get("leftover"):
        return f"leaves a semaphore signalled: {rec['leftover'][0]}"
    return "clean"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jax", action="store_true", help="also trace every mutant with JAX")
    ap.add_argument("--jobs", type=int, default=2, help="JAX processes (default 2)")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a goal is missed (CI)")
    ap.add_argument("--json", metavar="OUT", help="write every result as JSON")
    ap.add_argument("--no-contract", action="store_true",
                    help="skip the pallas_call contract families (benchmarks/contract_mutants.py)")
    ap.add_argument("--no-protocol", action="store_true",
                    help="skip the DMA / semaphore protocol families (benchmarks/protocol_mutants.py)")
    ap.add_argument("--no-body", action="store_true",
                    help="skip the kernel-body families (benchmarks/body_mutants.py)")
    ap.add_argument("--no-values", action="store_true", help="skip the values in kernel bodies")
    args = ap.parse_args(argv)
    if args.jax and not jax_available():
        print("--jax needs JAX: pip install -e '.[oracle]'", file=sys.stderr)
        return 2

    workspace = analyzer_workspace()
    modules = correct_modules()
    with tempfile.TemporaryDirectory(prefix="pallas-mutants-") as tmp:
        return run(args, workspace, modules, Path(tmp))


def run(args, workspace, modules, tmp: Path) -> int:
    t0 = time.perf_counter()
    # 1. False alarms on correct code.
    found = {p: analyze(p, workspace=workspace) for p in modules}
    false_errors = [(p, f) for p in modules for f in found[p] if f.severity == "error"]
    false_warnings = [(p, f) for p in modules for f in found[p] if f.severity != "error"]
    baseline = {p: {(f.span, f.code) for f in found[p]} for p in modules}

    # 2. Mutants: direct (DMA / semaphore call arguments) and indirect (views that reach
    #    a DMA through a helper, a binding or an accessor).
    direct = [check_direct(m, baseline[p], workspace) for p in modules for m in mutants(p)]
    indirect = []
    for i, m in enumerate(m for p in modules for m in mutants(p, indirect=True)):
        d = tmp / f"i{i:04d}"
        d.mkdir()
        indirect.append(check_indirect(m, d))
    analysis_s = time.perf_counter() - t0
    caught = [r for r in direct if r["finding"] is not None]
    rate = len(caught) / len(direct) if direct else 1.0

    # 3. JAX on every mutant (one run for all of them).
    if args.jax:
        files = []
        for i, r in enumerate(direct):
            d = tmp / f"d{i:04d}"
            d.mkdir()
            r["file"] = write_mutant(r["mutant"], d)[0]
            files.append(r["file"])
        for i, r in enumerate(direct):
            if "fixed" in r and r["fixed"] != r["mutant"].path.read_text():
                d = tmp / f"f{i:04d}"
                d.mkdir()
                fixed = dataclasses.replace(r["mutant"], source=r["fixed"])
                r["fixed_file"] = write_mutant(fixed, d)[0]
                files.append(r["fixed_file"])
        for r in indirect:
            files.extend(r["entries"])
        recs = run_jax(files, jobs=args.jobs)
        none = {"status": "error", "message": "no record", "exc_type": None, "frames": []}
        for r in direct:
            real = os.path.realpath(r["file"])
            r["jax"] = rec = recs.get(real, none)
            frames = [ln for f, ln in rec["frames"] if f == real]
            r["same_statement"] = r["mutant"].line in jax_site_lines(
                ast.parse(r["mutant"].source), frames)
            if "fixed_file" in r:
                r["fixed_jax"] = recs.get(os.path.realpath(r["fixed_file"]), none)
        for r in indirect:
            got = [recs.get(os.path.realpath(f), none) for f in r["entries"]]
            r["jax"] = next((g for g in got if g["status"] == "sem_error"),
                            got[0] if got else none)
        run_on_tpu_interpreter([r for r in direct if r["jax"]["status"] == "ok"], tmp, args.jobs)
        run_safe_fixes([r for r in direct if "fixed" in r], tmp, args.jobs)

    disagreements = report(args, modules, direct, indirect, false_errors, false_warnings,
                           rate, analysis_s)
    if args.json:
        write_json(args.json, modules, direct, indirect, false_errors, false_warnings, rate)
    contract_failed = 0 if args.no_contract else contract_mutants.run(args.jax, args.jobs, strict=args.strict)
    protocol_failed = 0
    if not args.no_protocol:
        print("\nDMA / semaphore protocol mutants (benchmarks/protocol_mutants.py)")
        protocol_failed = protocol_mutants.run(args.jax, args.strict)
    body_failed = 0
    if not args.no_body:
        print("\nKernel-body mutants (benchmarks/body_mutants.py)")
        body_failed = body_mutants.run(args.jax, args.strict)
    values_failed = 0
    if args.jax and not args.no_values:
        print("\nValues in kernel bodies against JAX (benchmarks/value_accuracy.py)")
        values_failed = value_accuracy.run(args.jobs, args.strict)
    unclean = [r for r in direct if r.get("fix_run") not in (None, "clean", "not run")]
    if args.strict and (false_errors or rate < CATCH_GOAL or disagreements or unclean):
        print("FAIL (--strict)")
        return 1
    return contract_failed or protocol_failed or body_failed or values_failed


def report(args, modules, direct, indirect, false_errors, false_warnings, rate, analysis_s):
    """Print the figures; return the direct mutants where the analyzer and JAX disagree."""
    print(f"pallas-lsp accuracy bench: {len(modules)} correct modules, {len(direct)} direct "
          f"and {len(indirect)} indirect mutants (analysis {analysis_s:.1f} s)")
    print(f"false errors on correct code:   {len(false_errors)}   (goal 0)")
    for path, f in false_errors:
        print(f"  {rel(path)}:{_fmt(f)}")
    print(f"false warnings on correct code: {len(false_warnings)}")
    for path, f in false_warnings:
        print(f"  {rel(path)}:{_fmt(f)}")
    caught = [r for r in direct if r["finding"] is not None]
    errors = sum(1 for r in caught if r["finding"].severity == "error")
    via = sum(1 for r in caught if r["via_call_site"])
    print(f"direct mutants caught on their line: {len(caught)}/{len(direct)} = {rate:.1%}   "
          f"(goal 100%, at least {CATCH_GOAL:.0%}; {errors} as errors, "
          f"{len(caught) - errors} as warnings; {via} flagged at a helper's call site "
          f"that points at the line)")
    for r in direct:
        if r["finding"] is None:
            print(f"  MISSED {r['mutant'].label}")
    report_fixes(direct)
    seen = [r for r in indirect if r["finding"] is not None]
    print(f"indirect mutants detected (a finding in the module or its package): "
          f"{len(seen)}/{len(indirect)}")
    for r in indirect:
        if r["finding"] is None:
            print(f"  MISSED {r['mutant'].label}")

    disagreements = []
    if not args.jax:
        return disagreements
    rejected = [r for r in direct if r["jax"]["status"] == "sem_error"]
    accepted = [r for r in direct if r["jax"]["status"] == "ok"]
    broken = [r for r in direct if r["jax"]["status"] not in ("sem_error", "ok")]
    same = sum(1 for r in rejected if r["same_statement"])
    words = sum(
        1 for r in rejected
        if r["finding"] is not None and r["finding"].message.startswith(
            expected_message(r["jax"]["kind"], r["jax"]["shape"]))
    )
    print(f"direct mutants JAX confirms (raises the shape error): {len(rejected)}/{len(direct)}"
          f"   ({same} raised on the mutated statement or where its descriptor is started; "
          f"analyzer message = JAX's words and shape for {words})")
    for r in rejected:
        f = r["finding"]
        want = expected_message(r["jax"]["kind"], r["jax"]["shape"])
        if f is None or f.severity != "error":
            disagreements.append(r)
            print(f"  JAX REJECTS, analyzer {'silent' if f is None else 'warns only'}: "
                  f"{r['mutant'].label}: {r['jax']['message']}")
        elif not f.message.startswith(want):
            print(f"  shape/wording differs: {r['mutant'].label}: JAX {want!r} / analyzer "
                  f"{f.message.split(' — ')[0]!r}")
    at_run = sum(1 for r in accepted if r.get("tpu") == "fails")
    print(f"direct mutants JAX accepts: {len(accepted)} ({at_run} of them fail at run time "
          f"under the TPU interpreter, pltpu.InterpretParams())")
    for r in accepted:
        verdict = r["finding"].severity if r["finding"] else None
        if verdict == "error" and r["mutant"].call != "core_barrier":
            disagreements.append(r)
        tpu = {"fails": "; the TPU interpreter fails on it at run time",
               "runs": "; it also runs under the TPU interpreter",
               "not run": "; (the module is only traced)"}.get(r.get("tpu"), "")
        print(f"  {r['mutant'].label}: {why_jax_accepts(r['mutant'], verdict)}"
              f" [analyzer: {verdict or 'silent'}]{tpu}")
    for r in broken:
        print(f"  JAX failed for another reason: {r['mutant'].label}: {r['jax']['message']}")
    report_fix_runs(direct)
    other = [r for r in direct if "fixed_jax" in r]
    ok = [r for r in other if r["fixed_jax"]["status"] == "ok"]
    print(f"quick fixes that differ from the original and JAX accepts: {len(ok)}/{len(other)}")
    for r in other:
        if r not in ok:
            rec = r["fixed_jax"]
            print(f"  JAX rejects the fix of {r['mutant'].label}: {rec['exc_type']}: "
                  f"{rec['message'] or '(the module checks its result: the fix changed it)'}")
    conf = [r for r in indirect if r["jax"]["status"] == "sem_error"]
    print(f"indirect mutants JAX confirms: {len(conf)}/{len(indirect)}")
    for r in indirect:
        f, status = r["finding"], r["jax"]["status"]
        if status == "sem_error" and f is None:
            print(f"  JAX REJECTS, analyzer silent: {r['mutant'].label}: {r['jax']['message']}")
        elif status == "ok":
            print(f"  JAX accepts: {r['mutant'].label}: no trace-time check on the path it reaches"
                  f" [analyzer: {f.severity if f else 'silent'}]")
        elif status != "sem_error":
            print(f"  JAX failed for another reason: {r['mutant'].label}: {r['jax']['message']}")
    return disagreements


def report_fixes(direct) -> None:
    """The index fixes: safe ones (does `check --fix` restore the code?) and choices
    (is the original index among them?)."""
    safe = [r for r in direct if "fixed" in r]
    choices = [r for r in direct if "choices" in r]
    restored = [r for r in safe if r["fixed"] == r["mutant"].path.read_text()]
    print(f"index fixes: {len(safe)} safe (applied by `check --fix`), {len(choices)} "
          f"choices only (offered, applied only with --unsafe-fixes)")
    print(f"  safe fixes that restore the original code: {len(restored)}/{len(safe)}")
    for r in safe:
        if r not in restored:
            print(f"    {r['mutant'].label}: fixed as `{_changed_line(r)}`")
    judged = [r for r in choices if "offered" in r]
    first = sum(1 for r in judged if _bare(r["choices"][0]) == _bare(r["mutant"].original))
    offered = sum(1 for r in judged if r["offered"])
    print(f"  choices that offer the original index: {offered}/{len(judged)} "
          f"({first} as the first choice; {len(choices) - len(judged)} at a helper's call site "
          f"not compared)")
    for r in judged:
        if not r["offered"]:
            print(f"    {r['mutant'].label}: offered {', '.join(r['choices'])}")


def report_fix_runs(direct) -> None:
    """The safe fixes run under the TPU interpreter (`run_safe_fixes`)."""
    safe = [r for r in direct if "fix_run" in r]
    ran = [r for r in safe if r["fix_run"] != "not run"]
    clean = [r for r in ran if r["fix_run"] == "clean"]
    print(f"safe fixes run clean under the TPU interpreter (eager DMAs; no exception, no "
          f"semaphore left signalled, no hang): {len(clean)}/{len(ran)}   (goal: all; "
          f"{len(safe) - len(ran)} of {len(safe)} not run: their module only traces)")
    for r in ran:
        if r not in clean:
            print(f"  NOT CLEAN: {r['mutant'].label}: {r['fix_run']}")


def _changed_line(r) -> str:
    fixed = r["fixed"].splitlines()
    line = r["mutant"].line - 1
    return fixed[line].strip() if line < len(fixed) else "?"


def write_json(out, modules, direct, indirect, false_errors, false_warnings, rate):
    def row(r):
        return {
            "mutant": r["mutant"].label,
            "line": r["mutant"].line,
            "analyzer": _fmt(r["finding"]) if r["finding"] else None,
            "jax": [r["jax"]["status"], r["jax"].get("message")] if "jax" in r else None,
        }

    Path(out).write_text(json.dumps({
        "modules": [rel(p) for p in modules],
        "false_errors": [{"path": rel(p), "finding": _fmt(f)} for p, f in false_errors],
        "false_warnings": [{"path": rel(p), "finding": _fmt(f)} for p, f in false_warnings],
        "direct_catch_rate": rate,
        "direct": [row(r) for r in direct],
        "indirect": [row(r) for r in indirect],
    }, indent=1))


if __name__ == "__main__":
    sys.exit(main())
