"""The kernel-body store family: drop the `.astype(...)` of a stored value, ask JAX, score
PAL401 / PAL402.

    python benchmarks/body_mutants.py [--jax] [--strict] [--list]

Mutants come from every kernel module of ``tests/values/``, ``tests/body/*_ok.py``,
``tests/corpus/`` and ``examples/`` (without a ``# expect`` mark): in a store
``ref[...] = v.astype(t)`` (or ``ref[...] += v.astype(t)``, or a cast inside the stored
expression), the cast's receiver replaces it, one cast per mutant.  With ``--jax`` each mutant is traced (``tests/body/jax_verdicts.py``, in
a subprocess: JAX only there).  A mutant JAX rejects with ``Invalid dtype for `swap``` /
``Invalid shape for `swap``` is *flagged* when pallas-lsp reports PAL401 / PAL402 on the
line JAX raises at (goal: 95%); a mutant JAX traces clean must get no PAL40x error (a
false error).  ``--strict`` (with ``--jax``) exits 1 when a goal is missed.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUNNER = REPO / "tests" / "body" / "jax_verdicts.py"
sys.path.insert(0, str(REPO / "server"))

from contract_mutants import Editor
from pallas_lsp.analysis.engine import analyze_source

CODES = ("PAL401", "PAL402")
GOAL = 0.95
STORE_ERRORS = ("Invalid dtype for `swap`", "Invalid shape for `swap`")


@dataclass(frozen=True)
class Mutant:
    source: Path
    line: int       # the store's line
    text: str       # the mutated module
    col: int        # the dropped cast's column

    @property
    def name(self) -> str:
        return f"{self.source.stem}__drop_astype_{self.line}_{self.col}"


def sources() -> list[Path]:
    paths = [*sorted((REPO / "tests" / "values").glob("*.py")), *sorted((REPO / "tests" / "body").glob("*_ok.py")),
             *sorted((REPO / "tests" / "corpus").glob("*.py")), *sorted((REPO / "examples").glob("*.py"))]
    return [p for p in paths if p.name != "__init__.py" and "# expect" not in p.read_text()]


def _stored_casts(tree: ast.Module) -> Iterator[ast.Call]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) for t in node.targets) \
                or isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
            for sub in ast.walk(node.value):
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "astype":
                    yield sub


def mutants() -> list[Mutant]:
    out = []
    for path in sources():
        text = path.read_text()
        editor = Editor(text)
        for call in _stored_casts(ast.parse(text)):
            receiver = call.func.value  # type: ignore[attr-defined]
            kept = editor.text(receiver)
            if not isinstance(receiver, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
                kept = f"({kept})"
            new = editor.splice(editor.start(call), editor.end(call), kept)
            out.append(Mutant(path, call.lineno, new, call.col_offset))
    return out


def jax_verdicts(ms: list[Mutant], tmp: Path) -> dict[str, dict]:
    files = []
    for m in ms:
        folder = tmp / m.name
        folder.mkdir()
        (folder / m.source.name).write_text(m.text)
        files.append(folder / m.source.name)
    out = subprocess.run([sys.executable, str(RUNNER), *map(str, files)], capture_output=True, text=True,
                         timeout=1800, check=False).stdout
    return {Path(v["path"]).parent.name: v for v in map(json.loads, out.splitlines())}


def findings(m: Mutant) -> set[tuple[int, str]]:
    return {(f.span.line + 1, f.code) for f in analyze_source(m.text, str(m.source))
            if f.code in CODES and f.severity == "error"}


@dataclass
class Score:
    mutants: int = 0
    rejected: int = 0
    flagged: int = 0
    accepted: int = 0
    false_errors: int = 0
    other: int = 0      # JAX fails otherwise (not a store error): not scored


def judge(m: Mutant, got: set[tuple[int, str]], rec: dict | None, score: Score, notes: list[str]) -> None:
    score.mutants += 1
    if rec is not None and rec["status"] == "ok":
        score.accepted += 1
        if got:
            score.false_errors += 1
            notes.append(f"false error: {m.name} {sorted(got)}")
        return
    if rec is not None and not rec.get("message", "").startswith(STORE_ERRORS):
        score.other += 1
        notes.append(f"not a store error: {m.name} {rec.get('status')} {rec.get('message', '')[:100]}")
        return
    score.rejected += 1
    line = rec["line"] if rec is not None else m.line
    if any(at == line for at, _ in got):
        score.flagged += 1
    else:
        notes.append(f"missed: {m.name} (JAX: {rec.get('message', '')[:100] if rec else '-'}) found {sorted(got)}")


def run(jax: bool, strict: bool, listing: bool = False) -> int:
    ms = mutants()
    with tempfile.TemporaryDirectory(prefix="pallas-body-mutants-") as tmp:
        verdicts = jax_verdicts(ms, Path(tmp)) if jax else {}
    score, notes = Score(), []
    for m in ms:
        got, rec = findings(m), verdicts.get(m.name)
        judge(m, got, rec, score, notes)
        if listing:
            print(f"{m.source.name}:{m.line}\tJAX: {rec['status'] if rec else '-'} "
                  f"{rec.get('message', '')[:90] if rec else ''}\tfound {sorted(got)}")
    rate = score.flagged / score.rejected if score.rejected else 1.0
    print("| family | mutants | JAX rejects | flagged | % | JAX accepts | false errors | other failures |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| drop-astype | {score.mutants} | {score.rejected} | {score.flagged} | {100 * rate:.1f} "
          f"| {score.accepted} | {score.false_errors} | {score.other} |")
    for note in notes:
        print("  " + note)
    failed = strict and jax and (score.false_errors > 0 or rate < GOAL)
    if failed:
        print("FAIL (--strict): body mutants")
    return int(failed)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jax", action="store_true", help="ask JAX which mutants it rejects")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a goal is missed (with --jax)")
    ap.add_argument("--list", action="store_true", help="one line per mutant")
    args = ap.parse_args(argv)
    return run(args.jax, args.strict, args.list)


if __name__ == "__main__":
    sys.exit(main())
