"""JAX is the oracle for the `pallas_call` contract corpus (``tests/contract/``).

Each ``tests/contract/pal*.py`` module is a small kernel whose ``jax_check()`` traces
and/or lowers it for TPU with JAX on a CPU.  A line carrying ``# expect: PALnnn`` is where
the static checker should report; ``*_bug`` modules have at least one, ``*_ok`` modules
none.  Here:

* without JAX: the corpus is well formed (names, twins, expectations, enough cases);
* with JAX (``jax_verdicts.py`` in two subprocesses): JAX rejects exactly the modules
  with expectations, with the words JAX uses for the expected rule (``JAX_WORDS``) and at
  the stage named in ``STAGE``, and accepts every other module.

The JAX tests are skipped when JAX is not installed (``pip install -e '.[oracle]'``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from corpus_marks import expectations

REPO = Path(__file__).resolve().parents[2]
CONTRACT = REPO / "tests" / "contract"
RUNNER = CONTRACT / "jax_verdicts.py"
MODULES = sorted(CONTRACT.glob("pal*.py"))

# What JAX 0.10.2 says for each rule: the first line of the exception must match.
JAX_WORDS: dict[str, str] = {
    "PAL101": r"\w+\(\) (missing \d+ required positional arguments?: "
              r"|takes \d+ positional arguments? but \d+ (was|were) given)",
    "PAL102": r"[\w.<>]+\(\) (missing \d+ required positional arguments?: "
              r"|takes \d+ positional arguments? but \d+ (was|were) given)",
    "PAL103": r"Index map function .* for .* must return \d+ values to match block_shape=",
    "PAL104": r"Block shape for .* must have the same number of dimensions as the array shape",
    "PAL105": r"Pytree for `(out_specs|in_specs)` and `(out_shape|inputs)` do not match\.",
    "PAL106": r"Length of grid does not match length of dimension semantics\.",
    "PAL107": r"Axis \d+ is out of bounds for grid \(",
    "PAL201": r"The Pallas TPU lowering currently requires that the last two dimensions of "
              r"your block shape are divisible by 8 and 128 respectively, or be equal to "
              r"the respective dimensions of the overall array\.",
    "PAL202": r"The Pallas TPU lowering currently requires that rank 1 block shapes, either "
              r"1\) .* 2\) .* is a multiple of 1024, or 3\) .* is a power of 2 and at least "
              r"the tiling size",
}
EXC_TYPE = {"PAL101": "TypeError", "PAL102": "TypeError"}  # the rest: ValueError
# "trace": raised while tracing the pallas_call (jax.jit(f).trace would raise it too);
# "lowering": raised only when lowering for TPU (jax.export with platforms=["tpu"]).
STAGE = {code: "trace" for code in JAX_WORDS} | {
    "PAL106": "lowering", "PAL201": "lowering", "PAL202": "lowering"}

def _id(path: Path) -> str:
    return path.stem


# -- the corpus itself (no JAX needed) ------------------------------------------------

def test_corpus_is_big_enough():
    for code in JAX_WORDS:
        bugs = [p for p in MODULES if p.stem.startswith(code.lower() + "_") and p.stem.endswith("_bug")]
        oks = [p for p in MODULES if p.stem.startswith(code.lower() + "_") and p.stem.endswith("_ok")]
        assert len(bugs) >= 3 and len(oks) >= 3, f"{code}: {len(bugs)} bug / {len(oks)} ok modules"


@pytest.mark.parametrize("path", MODULES, ids=_id)
def test_module_is_well_formed(path):
    assert path.stem.endswith(("_bug", "_ok")), f"{path.name}: name must end in _bug or _ok"
    text = path.read_text()
    assert "\ndef jax_check(" in text, f"{path.name}: no jax_check()"
    assert text.startswith('"""'), f"{path.name}: no header docstring"
    codes = {code for _, code in expectations(path)}
    if path.stem.endswith("_ok"):
        assert not codes, f"{path.name}: a correct module carries # expect: {sorted(codes)}"
        return
    assert codes, f"{path.name}: a _bug module without any # expect: comment"
    assert codes <= set(JAX_WORDS), f"{path.name}: unknown codes {sorted(codes - set(JAX_WORDS))}"
    prefix = path.stem.split("_")[0].upper()
    assert codes == {prefix}, f"{path.name}: expects {sorted(codes)}, named for {prefix}"
    twin = path.with_name(path.stem[: -len("_bug")] + "_ok.py")
    assert twin.exists(), f"{path.name}: no correct twin {twin.name}"


# -- JAX's verdicts -------------------------------------------------------------------

def _jax_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("jax") is not None


def _run_verdicts(*flags: str) -> dict[str, dict]:
    """{module stem: jax_verdicts.py record}, from two runner processes in parallel."""
    if not _jax_available():
        pytest.skip("JAX is not installed: pip install -e '.[oracle]'")
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    halves = [MODULES[0::2], MODULES[1::2]]
    procs = [
        subprocess.Popen([sys.executable, str(RUNNER), *flags, *map(str, half)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for half in halves if half
    ]
    out = {}
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"jax_verdicts.py exited {proc.returncode}:\n{stderr[-3000:]}"
        for line in stdout.splitlines():
            if line.startswith("{"):
                rec = json.loads(line)
                out[rec["module"]] = rec
    return out


@pytest.fixture(scope="session")
def verdicts() -> dict[str, dict]:
    """Each module's ``jax_check()`` as written (trace, then lower for TPU)."""
    return _run_verdicts()


@pytest.fixture(scope="session")
def trace_verdicts() -> dict[str, dict]:
    """The same with ``jax.export.export`` replaced by a trace-only shim."""
    return _run_verdicts("--trace-only")


@pytest.mark.parametrize("path", MODULES, ids=_id)
def test_jax_rejects_exactly_the_expected_modules(verdicts, path):
    rec = verdicts.get(path.stem)
    assert rec is not None, f"{path.name}: jax_verdicts.py returned nothing for it"
    assert rec["status"] != "no_entry", f"{path.name}: no jax_check()"
    expected = expectations(path)
    if not expected:
        assert rec["status"] == "ok", (
            f"{path.name} is meant to be correct; JAX raised "
            f"{rec['exc_type']}: {rec['message']} (module line {rec['line']})")
        return
    codes = sorted({code for _, code in expected})
    assert rec["status"] == "error", f"{path.name} expects {codes}; JAX accepted it"
    matching = [c for c in codes if re.match(JAX_WORDS[c], rec["message"])]
    assert matching, (
        f"{path.name} expects {codes}; JAX raised {rec['exc_type']}: {rec['message']}")
    code = matching[0]
    assert rec["exc_type"] == EXC_TYPE.get(code, "ValueError"), (code, rec["exc_type"])
    assert rec["stage"] == STAGE[code], (
        f"{path.name}: {code} is a {STAGE[code]}-stage check, JAX raised it while "
        f"{rec['stage']} ({rec['raised_in']})")


@pytest.mark.parametrize(
    "path", [p for p in MODULES if any(c in ("PAL103", "PAL107") for _, c in expectations(p))],
    ids=_id)
def test_jax_points_at_the_expected_line(verdicts, path):
    """Where JAX names the line itself, it is a line with the expectation: PAL103's
    message names the index map (``... at FILE:LINE``), PAL107 raises on the
    ``pl.program_id`` call."""
    rec = verdicts[path.stem]
    lines = {line for line, _ in expectations(path)}
    m = re.search(re.escape(str(path)) + r":(\d+)", rec["message"] or "")
    where = int(m.group(1)) if m else rec["line"]
    assert where in lines, f"{path.name}: JAX points at line {where}, expectations at {sorted(lines)}"


@pytest.mark.parametrize("path", MODULES, ids=_id)
def test_stage_is_the_documented_one(verdicts, trace_verdicts, path):
    """Tracing alone raises the trace-stage rules' errors (the same words) and none of the
    lowering-stage ones; correct modules trace cleanly."""
    codes = {code for _, code in expectations(path)}
    rec = trace_verdicts.get(path.stem)
    assert rec is not None, f"{path.name}: jax_verdicts.py --trace-only returned nothing"
    if codes and all(STAGE[c] == "trace" for c in codes):
        assert rec["status"] == "error", f"{path.name}: tracing alone did not raise"
        assert rec["message"] == verdicts[path.stem]["message"]
    else:
        assert rec["status"] == "ok", (
            f"{path.name}: tracing alone raised {rec['exc_type']}: {rec['message']}")


# -- the analyzer's fixes, checked by JAX -----------------------------------------------

def _fixed_versions(safe_only: bool) -> dict[str, list[str]]:
    """{bug module stem: [the module with one offered fix applied, ...]}."""
    from pallas_lsp.analysis.engine import analyze_source
    from pallas_lsp.analysis.fixes import apply_edits, split_lines, suggestion_fixes

    out: dict[str, list[str]] = {}
    for path in MODULES:
        if not path.stem.endswith("_bug"):
            continue
        text = path.read_text()
        for finding in analyze_source(text, str(path)):
            for fix in suggestion_fixes(finding, split_lines(text)):
                if fix.safe or not safe_only:
                    out.setdefault(path.stem, []).append(apply_edits(text, fix.edits))
    return out


def _jax_on(texts: dict[str, str], tmp_path: Path) -> dict[str, dict]:
    if not _jax_available():
        pytest.skip("JAX is not installed: pip install -e '.[oracle]'")
    paths = []
    for name, text in texts.items():
        p = tmp_path / f"{name}.py"
        p.write_text(text)
        paths.append(str(p))
    proc = subprocess.run([sys.executable, str(RUNNER), *paths], check=False, env=dict(os.environ, JAX_PLATFORMS="cpu"),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {rec["module"]: rec for rec in map(json.loads, filter(lambda s: s.startswith("{"),
                                                                  proc.stdout.splitlines()))}


def test_every_safe_fix_gives_code_jax_accepts(tmp_path):
    """`pallas-lsp check --fix` applies safe fixes: each must give a kernel JAX lowers."""
    fixed = {f"{stem}__{i}": text for stem, texts in _fixed_versions(safe_only=True).items()
             for i, text in enumerate(texts)}
    assert fixed, "no safe fix on the contract corpus"
    for name, rec in _jax_on(fixed, tmp_path).items():
        assert rec["status"] == "ok", f"{name}: JAX raised {rec['exc_type']}: {rec['message']}"


def test_some_offered_choice_fixes_each_module(tmp_path):
    """Where the editor offers choices, at least one of them gives code JAX accepts."""
    versions = _fixed_versions(safe_only=False)
    named = {f"{stem}__{i}": text for stem, texts in versions.items() for i, text in enumerate(texts)}
    verdicts = _jax_on(named, tmp_path)
    for stem in versions:
        ok = [n for n, rec in verdicts.items() if n.startswith(stem + "__") and rec["status"] == "ok"]
        assert ok, f"{stem}: no offered fix gives code JAX accepts"
