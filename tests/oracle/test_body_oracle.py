"""JAX is the oracle for the kernel-body store rules (``tests/body/``, PAL401 / PAL402).

Each ``tests/body/pal40N_*.py`` module is a small kernel whose ``trace()`` runs it with
``interpret=True``; a line carrying ``# expect: PAL40N`` is where JAX raises and where the
static checker must report.  Here:

* without JAX: the corpus is well formed, and pallas-lsp reports exactly the marked lines
  (rule and line) on the ``_bug`` modules and nothing on the ``_ok`` ones;
* with JAX (``jax_verdicts.py`` in one subprocess): JAX raises the rule's error on each
  ``_bug`` module, its traceback ending on the marked line, and traces each ``_ok`` module
  clean; the safe fix pallas-lsp offers, applied to a ``_bug`` module, traces clean.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from corpus_marks import expectations

from pallas_lsp.analysis.engine import analyze_source
from pallas_lsp.analysis.fixes import apply_edits, fix_all_edits, split_lines

REPO = Path(__file__).resolve().parents[2]
BODY = REPO / "tests" / "body"
RUNNER = BODY / "jax_verdicts.py"
MODULES = sorted(BODY.glob("pal40[12]_*.py"))   # the stores (the others: test_body_ops_oracle.py)
BUGS = [p for p in MODULES if p.stem.endswith("_bug")]
VERDICT = {
    "PAL401": r"^Invalid dtype for `swap`\. Ref dtype: \w+\. Value dtype: \w+\.$",
    "PAL402": r"^Invalid shape for `swap`\. Ref shape: \(.*\)\. Expected shape: \(.*\)\. Value shape: \(.*\)\. "
              r"Transforms: .*$",
}


def _code(path: Path) -> str:
    return path.stem.split("_")[0].upper()


def _found(path: Path, source: str | None = None) -> set[tuple[int, str]]:
    text = source if source is not None else path.read_text()
    return {(f.span.line + 1, f.code) for f in analyze_source(text, str(path))}


def test_corpus_is_big_enough():
    for code in VERDICT:
        bugs = [p for p in BUGS if _code(p) == code]
        assert len(bugs) >= 3, code
        for bug in bugs:
            assert bug.with_name(bug.name.replace("_bug", "_ok")).exists(), bug.name


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_static_findings_are_the_marked_lines(path):
    assert "\ndef trace(" in path.read_text(), f"{path.name}: no trace()"
    want = set(expectations(path))
    if path.stem.endswith("_ok"):
        assert not want
    else:
        assert want and {code for _, code in want} == {_code(path)}
    assert _found(path) == want


def _safe_fixed(path: Path) -> str | None:
    source = path.read_text()
    edits = fix_all_edits(analyze_source(source, str(path)), split_lines(source))
    return apply_edits(source, edits) if edits else None


def test_pal401_arrays_have_a_safe_fix():
    fixed = {p.stem for p in BUGS if _code(p) == "PAL401" and _safe_fixed(p) is not None}
    assert fixed == {"pal401_matmul_acc_bug", "pal401_accumulate_bug", "pal401_mask_int32_bug"}


def _jax_available() -> bool:
    try:
        import jax  # noqa: F401
    except ImportError:
        return False
    return True


def _verdicts(paths: list[Path]) -> dict[str, dict]:
    out = subprocess.run([sys.executable, str(RUNNER), *map(str, paths)], capture_output=True, text=True,
                         timeout=600, check=True).stdout
    return {Path(v["path"]).name: v for v in map(json.loads, out.splitlines())}


@pytest.fixture(scope="module")
def verdicts() -> dict[str, dict]:
    if not _jax_available():
        pytest.skip("JAX is not installed (pip install -e '.[oracle]')")
    return _verdicts(MODULES)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_jax_agrees(path, verdicts):
    v = verdicts[path.name]
    if path.stem.endswith("_ok"):
        assert v["status"] == "ok", v
        return
    assert v["status"] == "error" and v["exc_type"] == "ValueError", v
    assert re.match(VERDICT[_code(path)], v["message"]), v["message"]
    assert [(v["line"], _code(path))] == expectations(path)


def test_safe_fixes_trace_clean(tmp_path):
    if not _jax_available():
        pytest.skip("JAX is not installed (pip install -e '.[oracle]')")
    fixed = []
    for path in BUGS:
        text = _safe_fixed(path)
        if text is not None:
            out = tmp_path / path.name
            out.write_text(text)
            fixed.append(out)
            assert _found(out) == set(), path.name
    assert fixed
    for name, v in _verdicts(fixed).items():
        assert v["status"] == "ok", (name, v)
