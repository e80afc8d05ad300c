"""JAX is the oracle: the analyzer must err exactly where JAX raises, and nowhere else.

Every module of ``examples/`` and ``tests/corpus/`` is traced by JAX on CPU
(``interpret=True``) in a subprocess (``jax_runner.py``; JAX is imported only there).
Then, per module:

* JAX must trace it without any other error, and must run every DMA / semaphore call
  in it (line coverage), so no verdict rests on an untraced code path;
* where JAX raised ``Cannot signal/wait on a non-()-shaped semaphore: S``, the
  analyzer reports at least one error (PAL001/PAL002), every error it reports sits on
  a statement of JAX's traceback (or where the started descriptor was built), and the
  message starts with JAX's own words, with the same shape S;
* where JAX traced cleanly, the analyzer reports no error; on the corpus (all correct
  code) it reports nothing at all, warnings included.

The tests that need JAX are skipped when it is not installed (``pip install -e '.[oracle]'``).
"""

from __future__ import annotations

import ast
import os

import pytest
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
    proof_modules,
    rel,
    run_jax,
    sem_args,
)

MODULES = proof_modules()
ENTRY_MODULES = [p for p in MODULES if has_entry(ast.parse(p.read_text()))]
ERROR_CODES = ("PAL001", "PAL002")
BUG_EXAMPLES = [p for p in ENTRY_MODULES if EXAMPLES in p.parents and p.stem.endswith("_bug")]


@pytest.fixture(scope="session")
def jax_results():
    """{realpath: runner record} for every module with a trace()/main() (2 processes)."""
    if not jax_available():
        pytest.skip("JAX is not installed: pip install -e '.[oracle]'")
    return run_jax(ENTRY_MODULES, jobs=2, coverage=True)


@pytest.fixture(scope="session")
def workspace():
    return analyzer_workspace()


def _record(jax_results, path):
    rec = jax_results.get(os.path.realpath(path))
    assert rec is not None, f"{rel(path)}: the JAX runner returned nothing for it"
    return rec


def test_proof_set_is_big_enough():
    corpus = [p for p in ENTRY_MODULES if CORPUS in p.parents]
    assert len(corpus) >= 30, f"only {len(corpus)} traced corpus modules"
    assert any(CORPUS / "pkg" in p.parents for p in corpus), "the multi-file package is missing"
    assert len([p for p in ENTRY_MODULES if EXAMPLES in p.parents]) >= 6


@pytest.mark.parametrize("path", ENTRY_MODULES, ids=rel)
def test_jax_verdict_is_the_intended_one(jax_results, path):
    """Corpus and correct examples trace cleanly; every *_bug example raises the error."""
    rec = _record(jax_results, path)
    assert rec["status"] in ("ok", "sem_error"), (
        f"{rel(path)}: JAX {rec['status']}: {rec['message']}\n"
        f"{rec.get('traceback', '')}"
    )
    if path.stem.endswith("_bug"):
        assert rec["status"] == "sem_error", f"{rel(path)} is meant to be broken, JAX accepted it"
    else:
        assert rec["status"] == "ok", f"{rel(path)}: JAX raised {rec['message']!r}"


@pytest.mark.parametrize("path", [p for p in MODULES if not p.stem.endswith("_bug")], ids=rel)
def test_every_semaphore_call_is_traced(jax_results, path):
    """Line coverage: JAX ran every DMA / semaphore call of the (correct) module."""
    executed: set[int] = set()
    real = os.path.realpath(path)
    for rec in jax_results.values():
        executed.update(rec["covered"].get(real, ()))
    calls = sorted({a.call_line for a in sem_args(ast.parse(path.read_text()))})
    missed = [line for line in calls if line not in executed]
    assert not missed, f"{rel(path)}: semaphore calls never traced by JAX at lines {missed}"


@pytest.mark.parametrize("path", ENTRY_MODULES, ids=rel)
def test_analyzer_errs_exactly_where_jax_raises(jax_results, workspace, path):
    rec = _record(jax_results, path)
    if rec["status"] not in ("ok", "sem_error"):
        pytest.fail(f"{rel(path)}: JAX {rec['status']}: {rec['message']}")
    findings = analyze(path, workspace=workspace)
    errors = [f for f in findings if f.code in ERROR_CODES]
    shown = "\n".join(f"  {f.span.line + 1}:{f.span.col + 1} {f.code} {f.message}" for f in errors)
    if rec["status"] == "ok":
        assert not errors, f"{rel(path)}: JAX traces it cleanly, the analyzer says:\n{shown}"
        return
    real = os.path.realpath(path)
    frames = [line for file, line in rec["frames"] if file == real]
    sites = jax_site_lines(ast.parse(path.read_text()), frames)
    want = expected_message(rec["kind"], rec["shape"])
    assert errors, f"{rel(path)}: JAX raised {want!r} (traceback lines {frames}); no analyzer error"
    stray = [f for f in errors if f.span.line + 1 not in sites]
    assert not stray, (
        f"{rel(path)}: errors off JAX's traceback (lines {sorted(sites)}):\n{shown}"
    )
    assert all(f.message.startswith(want) for f in errors), (
        f"{rel(path)}: JAX said {want!r}; the analyzer said:\n{shown}"
    )


@pytest.mark.parametrize("path", [p for p in MODULES if CORPUS in p.parents], ids=rel)
def test_corpus_has_no_findings(workspace, path):
    """The corpus is correct code: not even a warning."""
    findings = analyze(path, workspace=workspace)
    shown = "\n".join(f"  {f.span.line + 1}:{f.span.col + 1} {f.code} {f.message}" for f in findings)
    assert not findings, f"{rel(path)}: false alarms on correct code:\n{shown}"


@pytest.fixture(scope="session")
def fixed_examples(jax_results, workspace, tmp_path_factory):
    """Each buggy example after the analyzer's index fix (its first choice where the index
    is not certain, as `check --fix --unsafe-fixes`), traced by JAX."""
    out = tmp_path_factory.mktemp("fixed")
    fixed = {}
    for path in BUG_EXAMPLES:
        target = out / path.name
        target.write_text(apply_index_fixes(path, path.read_text(), workspace, unsafe=True))
        fixed[path] = target
    records = run_jax(fixed.values(), jobs=2)
    return {p: (t, records.get(os.path.realpath(t))) for p, t in fixed.items()}


@pytest.mark.parametrize("path", BUG_EXAMPLES, ids=rel)
def test_quick_fix_makes_the_example_correct(fixed_examples, workspace, path):
    """The index fix must produce code JAX accepts and the analyzer no longer flags."""
    target, rec = fixed_examples[path]
    text = target.read_text()
    assert text != path.read_text(), f"{rel(path)}: no fix was applied"
    left = [f for f in analyze(target, text, workspace) if f.code in ERROR_CODES]
    assert not left, f"{rel(path)}: still flagged after the fix: {[f.message for f in left]}"
    assert rec is not None and rec["status"] == "ok", (
        f"{rel(path)}: JAX rejects the fixed code: {rec and rec['message']}"
    )
