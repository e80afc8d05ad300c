"""JAX is the oracle for the kernel-body operations corpus (``tests/body/pal4NN_*.py``
but the stores PAL401 / PAL402). Each module's ``trace()`` exports its kernel for TPU with ``jax.export``
(trace, then the TPU lowering); ``# expect: PAL40N`` marks the line JAX raises at.

* without JAX: the corpus is well formed, and pallas-lsp reports exactly the marked lines
  of each ``_bug`` module (these rules only) and nothing on the ``_ok`` twins;
* with JAX (``tests/body/ops_verdicts.py`` in a subprocess): JAX rejects each ``_bug``
  module on its marked line, in the rule's words and stage, and accepts each ``_ok``
  module; each fix pallas-lsp offers makes its ``_bug`` module pass, and pallas-lsp
  finds nothing in it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from corpus_marks import expectations

REPO = Path(__file__).resolve().parents[2]
BODY = REPO / "tests" / "body"
RUNNER = BODY / "ops_verdicts.py"
MODULES = sorted(p for p in BODY.glob("pal4[0-9][0-9]_*.py") if not p.stem.startswith(("pal401", "pal402")))
CODES = ("PAL403", "PAL404", "PAL405", "PAL406", "PAL407", "PAL408", "PAL409", "PAL410", "PAL411", "PAL412")
# (exception type, regex on JAX's first message line, stage)
VERDICT = {
    "PAL403": ("TypeError", r"dot_general requires contracting dimensions to have the same shape, "
               r"got \(\d+,\) and \(\d+,\)\.$", "trace"),
    "PAL404": ("VerificationError", r".*'tpu\.matmul' op Expected matmul acc to be 32-bit$", "lowering"),
    "PAL405": ("(TypeError|ValueError)", r"(Incompatible shapes for broadcasting: |axis \d+ is out of bounds "
               r"for array of dimension \d+$|cannot reshape array of shape |Size of label '\w' for operand "
               r"\d+ \(\d+\) does not match previous terms \(\d+\)\.$)", "trace"),
    "PAL406": ("ValueError", r"(Out of bound slice: start=\d+, (size=\d+, stride=\d+, )?dim=\d+\.$|`indices` must not "
               r"be longer than `shape`: )", "trace"),
    "PAL407": ("TypeError", r"(scan|while_loop) body function carry input and carry output must have equal types, "
               r"but they differ:$", "trace"),
    "PAL408": ("ValueError", r"Cannot store scalars to VMEM$", "lowering"),
    "PAL409": ("VerificationError", r".*('arith\.index_cast' op operand #0 must be "
               r"signless-non-zero-bitwidth-integer-like or memref of signless-integer, but got 'f32'|"
               r"'tpu\.iota' op result #0 must be vector of integer or index values, but got "
               r"'vector<\w+>')$", "lowering"),
    "PAL410": ("(TypeError|AttributeError|ValueError)", r"(\w+ requires ndarray or scalar arguments, got "
               r"<class '[\w.]+(DynamicJaxprTracer|TransformedRef)'> at position \d+\.$|"
               r"'AbstractRef' object has no attribute '_\w+'$|"
               r"unsupported operand type\(s\) for \S+: 'DynamicJaxprTracer' and 'DynamicJaxprTracer'$|Cannot store a "
               r"Ref into another Ref\. Did you forget to load from it using `\[\.\.\.\]`\?$)", "trace"),
    "PAL411": ("(TracerBoolConversionError|ValueError)", r"(Attempted boolean conversion of traced array with shape "
               r"\w+\[[\d,]*\]\.$|The truth value of an array with more than one element is ambiguous\. Use a\.any\(\) "
               r"or a\.all\(\)$)", "trace"),
    "PAL412": ("ValueError", r"The kernel function in the pallas_call \w+ at .+:\d+ captures constants \[.+\]\. "
               r"You should pass them as inputs\.$", "trace"),
}


# The fixes offered on each `_bug` module (safe or a choice, a word of the title); none on the others.
FIXES = {
    "pal404_attention_scores_bf16_bug": [(True, "Accumulate in float32")],
    "pal404_bf16_matmul_acc_bug": [(True, "Accumulate in float32")],
    "pal404_int8_dot_general_bug": [(True, "Accumulate in int32")],
    "pal404_multihead_einsum_bug": [(True, "Accumulate in float32")],
    "pal404_bf16_projection_bug": [(True, "cast back")],
    "pal404_scaled_scores_bug": [(True, "cast back"), (False, "the result becomes float32")],
    "pal405_layernorm_keepdims_bug": [(True, "keepdims=True")],
    "pal405_softmax_row_max_bug": [(True, "keepdims=True")],
    "pal405_centered_twice_bug": [(False, "its other uses too")] * 2,
}


def _id(path: Path) -> str:
    return path.stem


def _marks(path: Path) -> set[tuple[int, str]]:
    return set(expectations(path))


# -- the corpus and the analyzer (no JAX needed) ----------------------------------------

def test_each_rule_has_three_twins():
    for code in CODES:
        bugs = [p for p in MODULES if p.stem.startswith(code.lower()) and p.stem.endswith("_bug")]
        assert len(bugs) >= 3, code
        for bug in bugs:
            assert bug.with_name(bug.stem[:-4] + "_ok.py").exists(), bug.name
            assert {c for _, c in _marks(bug)} == {code}, bug.name


@pytest.mark.parametrize("path", MODULES, ids=_id)
def test_pallas_lsp_reports_exactly_the_marked_lines(path):
    from pallas_lsp.analysis.engine import analyze_source

    found = {(f.span.line + 1, f.code) for f in analyze_source(path.read_text(), str(path)) if f.code in CODES}
    assert found == _marks(path)


# -- JAX's verdicts ---------------------------------------------------------------------

def _jax(paths: list[str]) -> dict[str, dict]:
    if importlib.util.find_spec("jax") is None:
        pytest.skip("JAX is not installed: pip install -e '.[oracle]'")
    proc = subprocess.run([sys.executable, str(RUNNER), *paths], check=False, capture_output=True, text=True,
                          env=dict(os.environ, JAX_PLATFORMS="cpu"), timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {r["module"]: r for r in map(json.loads, filter(lambda s: s.startswith("{"), proc.stdout.splitlines()))}


@pytest.fixture(scope="module")
def verdicts() -> dict[str, dict]:
    return _jax([str(p) for p in MODULES])


@pytest.mark.parametrize("path", MODULES, ids=_id)
def test_jax_rejects_the_bugs_on_their_line_and_accepts_the_twins(verdicts, path):
    rec = verdicts[path.stem]
    marks = _marks(path)
    if not marks:
        assert rec["status"] == "ok", f"{path.name}: JAX raised {rec['exc_type']}: {rec['message']}"
        return
    (line, code), = marks
    exc_type, words, stage = VERDICT[code]
    assert rec["status"] == "error", f"{path.name}: JAX accepted it"
    assert re.fullmatch(exc_type, rec["exc_type"]), rec
    assert re.match(words, rec["message"]), rec["message"]
    assert rec["stage"] == stage, rec
    assert line in rec["frames"], f"{path.name}: JAX raised at {rec['frames']}, marked {line}"


def _offered(path: Path) -> list:
    from pallas_lsp.analysis.engine import analyze_source
    from pallas_lsp.analysis.fixes import split_lines, suggestion_fixes

    text = path.read_text()
    return [fix for f in analyze_source(text, str(path)) if f.code in CODES
            for fix in suggestion_fixes(f, split_lines(text))]


@pytest.mark.parametrize("path", MODULES, ids=_id)
def test_fixes_are_safe_only_where_certain(path):
    offered = _offered(path)
    want = FIXES.get(path.stem, [])
    assert len(offered) == len(want), [f.title for f in offered]
    for fix, (safe, words) in zip(offered, want):
        assert fix.safe == safe and words in fix.title, fix.title


def test_every_offered_fix_gives_code_jax_accepts(tmp_path):
    from pallas_lsp.analysis.engine import analyze_source
    from pallas_lsp.analysis.fixes import apply_edits

    fixed = []
    for path in (p for p in MODULES if p.stem.endswith("_bug")):
        for j, fix in enumerate(_offered(path)):
            out = tmp_path / f"{path.stem}__{j}.py"
            out.write_text(apply_edits(path.read_text(), fix.edits))
            assert analyze_source(out.read_text(), str(out)) == [], f"{out.name}: {fix.title}"
            fixed.append(str(out))
    assert len(fixed) == sum(map(len, FIXES.values()))
    for name, rec in _jax(fixed).items():
        assert rec["status"] == "ok", f"{name}: JAX raised {rec['exc_type']}: {rec['message']}"
