"""The kernel-body mutation families: mutate correct kernels, ask JAX, score the kernel-body rules (PAL401-PAL412).

    python benchmarks/body_mutants.py [--jax] [--strict] [--list] [--family NAME ...]

Mutants come from every kernel module of ``tests/values/``, ``tests/body/*_ok.py``,
``tests/corpus/`` and ``examples/`` (without a ``# expect`` mark), one edit each; the
families are in ``benchmarks/body_families.py`` (drop an ``.astype``, swap a dot's
operands, drop ``keepdims``, change a reshape, transpose the other operand, drop
``preferred_element_type``).  With ``--jax`` each mutant, and each module as written
(the control), runs in a subprocess (``tests/body/jax_verdicts.py --tpu``): its kernels
traced with ``interpret=True``, and each ``pallas_call`` also lowered for TPU.  JAX
*rejects* a mutant when tracing raises, or when a TPU lowering fails that did not fail for
the control; the line is the last one of the module in the traceback.  A rejected mutant is
*flagged* when pallas-lsp reports an error on that line (goal: 95% per family); a mutant
JAX accepts (a module's own assertion on its results counts as accepted) must get no error
the control does not have (a false error).  ``--strict`` (with ``--jax``) exits 1 when a
goal is missed.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUNNER = REPO / "tests" / "body" / "jax_verdicts.py"
sys.path.insert(0, str(REPO / "server"))

from body_families import FAMILIES
from contract_mutants import Editor
from pallas_lsp.analysis.engine import analyze_source

GOAL = 0.95
# A module's own check of its results: JAX compiled and ran the kernel.
ACCEPTED_FAILURES = ("AssertionError",)


@dataclass(frozen=True)
class Mutant:
    source: Path
    family: str
    line: int       # the mutated expression's line
    col: int
    text: str       # the mutated module

    @property
    def name(self) -> str:
        return f"{self.source.stem}__{self.family}_{self.line}_{self.col}"


def sources() -> list[Path]:
    paths = [*sorted((REPO / "tests" / "values").glob("*.py")), *sorted((REPO / "tests" / "body").glob("*_ok.py")),
             *sorted((REPO / "tests" / "corpus").glob("*.py")), *sorted((REPO / "examples").glob("*.py"))]
    return [p for p in paths if p.name != "__init__.py" and "# expect" not in p.read_text()]


def mutants(families: list[str] | None = None) -> list[Mutant]:
    out = []
    for path in sources():
        text = path.read_text()
        tree, editor = ast.parse(text), Editor(text)
        for family, make in FAMILIES.items():
            if families is None or family in families:
                out.extend(Mutant(path, e.family, e.line, e.col, e.text) for e in make(tree, editor)
                           if _parses(e.text))
    return out


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


def jax_verdicts(ms: list[Mutant], tmp: Path) -> dict[str, dict]:
    """{mutant name or control path: jax_verdicts.py record}."""
    files = []
    for m in ms:
        folder = tmp / m.name
        folder.mkdir()
        (folder / m.source.name).write_text(m.text)
        files.append(folder / m.source.name)
    controls = sorted({m.source for m in ms})
    out = subprocess.run([sys.executable, str(RUNNER), "--tpu", *map(str, controls), *map(str, files)],
                         capture_output=True, text=True, timeout=3600, check=False).stdout
    recs = {}
    for rec in map(json.loads, out.splitlines()):
        path = Path(rec["path"])
        recs[str(path) if path in controls else path.parent.name] = rec
    return recs


@dataclass(frozen=True)
class Verdict:
    """What JAX does with a mutant: rejects it (on `line`, saying `message`) or not."""

    rejected: bool
    line: int | None = None
    message: str = ""
    stage: str = ""


def verdict(rec: dict, control: dict) -> Verdict | None:
    """None when the control itself fails: nothing to compare with."""
    if control["status"] != "ok":
        return None
    if rec["status"] == "error" and rec.get("exc_type") not in ACCEPTED_FAILURES:
        return Verdict(True, rec.get("line"), rec.get("message", ""), "trace")
    known = {(f["message"], f["line"]) for f in control.get("lowering", [])}
    new = [f for f in rec.get("lowering", []) if (f["message"], f["line"]) not in known]
    if new:
        return Verdict(True, new[0]["line"], new[0]["message"], "lowering")
    return Verdict(False)


def errors(text: str, path: Path) -> set[tuple[int, str]]:
    return {(f.span.line + 1, f.code) for f in analyze_source(text, str(path)) if f.severity == "error"}


@dataclass
class Score:
    mutants: int = 0
    rejected: int = 0
    flagged: int = 0
    accepted: int = 0
    false_errors: int = 0
    unjudged: int = 0      # the module as written fails: not scored
    notes: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.flagged / self.rejected if self.rejected else 1.0


def judge(m: Mutant, got: set[tuple[int, str]], v: Verdict | None, score: Score) -> None:
    score.mutants += 1
    if v is None:
        score.unjudged += 1
        return
    if not v.rejected:
        score.accepted += 1
        if got:
            score.false_errors += 1
            score.notes.append(f"false error: {m.name} {sorted(got)}")
        return
    score.rejected += 1
    if any(line == v.line for line, _ in got):
        score.flagged += 1
    else:
        score.notes.append(f"missed: {m.name} (JAX, {v.stage}, line {v.line}: {v.message[:110]}) found {sorted(got)}")


def score_all(ms: list[Mutant], verdicts: dict[str, dict], listing: bool) -> dict[str, Score]:
    scores = {family: Score() for family in FAMILIES if any(m.family == family for m in ms)}
    baseline = {p: errors(p.read_text(), p) for p in {m.source for m in ms}}
    for m in ms:
        got = errors(m.text, m.source) - baseline[m.source]
        rec, control = verdicts.get(m.name), verdicts.get(str(m.source))
        v = verdict(rec, control) if rec is not None and control is not None else None
        judge(m, got, v, scores[m.family])
        if listing:
            said = "-" if v is None else f"rejects at {v.line} ({v.stage}): {v.message[:80]}" if v.rejected \
                else "accepts"
            print(f"{m.name}\tJAX {said}\tfound {sorted(got)}")
    return scores


def run(jax: bool, strict: bool, listing: bool = False, families: list[str] | None = None) -> int:
    ms = mutants(families)
    with tempfile.TemporaryDirectory(prefix="pallas-body-mutants-") as tmp:
        verdicts = jax_verdicts(ms, Path(tmp)) if jax else {}
    scores = score_all(ms, verdicts, listing)
    print("| family | mutants | JAX rejects | flagged on JAX's line | % | JAX accepts | false errors | unjudged |")
    print("|---|---|---|---|---|---|---|---|")
    for family, s in scores.items():
        print(f"| {family} | {s.mutants} | {s.rejected} | {s.flagged} | {100 * s.rate:.1f} | {s.accepted} "
              f"| {s.false_errors} | {s.unjudged} |")
    for s in scores.values():
        for note in s.notes:
            print("  " + note)
    failed = strict and jax and any(s.false_errors or s.rate < GOAL for s in scores.values())
    if failed:
        print("FAIL (--strict): body mutants")
    return int(failed)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jax", action="store_true", help="ask JAX which mutants it rejects")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a goal is missed (with --jax)")
    ap.add_argument("--list", action="store_true", help="one line per mutant")
    ap.add_argument("--family", action="append", choices=sorted(FAMILIES), help="only these families")
    args = ap.parse_args(argv)
    return run(args.jax, args.strict, args.list, args.family)


if __name__ == "__main__":
    sys.exit(main())
