"""Protocol mutation families (issue 11): mutate the correct protocol kernels, ask JAX's
TPU interpreter, score the analyzer.

    python benchmarks/protocol_mutants.py [--jax] [--strict] [--json OUT]

Mutants come from the correct modules of ``tests/protocol/`` (``*_ok.py``: each runs its
kernel under ``pltpu.InterpretParams`` in ``jax_check()``), one mutation each:

* ``delete-wait``: a DMA ``.wait()`` / ``.wait_recv()`` / ``.wait_send()`` or a
  ``pl.semaphore_wait(...)`` statement becomes ``pass`` (PAL302 / PAL304; a DMA wait's
  mutant runs with eager DMAs, the only mode where the interpreter sees a DMA nobody
  waits for).  The preview rules are asked for.
* ``swap-kind``: one ``SemaphoreType.DMA`` becomes ``SemaphoreType.REGULAR`` or the
  other way round (PAL301, on the line where JAX raises).
* ``drop-index-term``: in an output ``BlockSpec``'s ``lambda`` index map, one returned
  grid index becomes ``0`` (PAL306); the mutant runs on two simulated cores with the
  race detector, which is how the interpreter sees two cores writing one block.
* ``dma-size``: in a DMA's source, a ``pl.ds(start, n)`` becomes ``pl.ds(start, n // 2)``;
  in its destination ``pl.ds(start, 2 * n)`` (PAL305, on the DMA's line): the source is
  then shorter than its destination, which the interpreter rejects too.

Scoring with ``--jax``: a mutant the interpreter rejects (an exception, a semaphore left
non-zero, a hang, a race) is *flagged* when the analyzer reports the family's rule on the
right line (``delete-wait`` and ``drop-index-term``: anywhere in the module, which has no
finding before the mutation); a mutant the interpreter runs clean must get no error of
the family's rules (else a false error).  Without ``--jax`` every mutant counts as
rejected (a smoke run of the analyzer).  ``--strict`` exits 1 on a false error, or when
the non-preview families flag less than 90% of the mutants JAX rejects.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROTOCOL = REPO / "tests" / "protocol"
RUNNER = PROTOCOL / "jax_verdicts.py"
sys.path.insert(0, str(REPO / "server"))

from contract_mutants import Editor
from pallas_lsp.analysis.engine import analyze_source

CODES = {"delete-wait": ("PAL302", "PAL303", "PAL304"), "swap-kind": ("PAL301",),
         "drop-index-term": ("PAL306",), "dma-size": ("PAL305",)}
ANYWHERE = ("delete-wait", "drop-index-term")
PREVIEW = ("delete-wait",)
GOAL = 0.90
_DMA_WAITS = ("wait", "wait_recv", "wait_send")
_RACES = "pltpu.InterpretParams(num_cores_or_threads=2, detect_races=True)"
_COPIES = ("make_async_copy", "async_copy", "make_async_remote_copy", "async_remote_copy")


@dataclass(frozen=True)
class Mutant:
    family: str
    source: Path
    line: int          # 1-based: the mutated line (the right line, unless JAX says otherwise)
    what: str
    text: str          # the mutated module
    eager: bool = False   # run with dma_execution_mode="eager"

    @property
    def name(self) -> str:
        return f"{self.source.stem}__{self.family.replace('-', '_')}_{self.line}_{abs(hash(self.what)) % 10_000}"


def _called(node: ast.AST) -> str:
    func = node.func if isinstance(node, ast.Call) else None
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def delete_waits(path: Path, text: str, tree: ast.Module) -> Iterator[Mutant]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            name = _called(node.value)
            if name in _DMA_WAITS or name == "semaphore_wait":
                yield Mutant("delete-wait", path, node.lineno, f"{name} deleted", Editor(text).replace(node, "pass"),
                             eager=name in _DMA_WAITS)


def swap_kinds(path: Path, text: str, tree: ast.Module) -> Iterator[Mutant]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("DMA", "REGULAR") \
                and isinstance(node.value, ast.Attribute) and node.value.attr == "SemaphoreType":
            other = "REGULAR" if node.attr == "DMA" else "DMA"
            base = ast.get_source_segment(text, node.value)
            yield Mutant("swap-kind", path, node.lineno, f"{node.attr} -> {other} at column {node.col_offset}",
                         Editor(text).replace(node, f"{base}.{other}"))


def _out_spec_maps(tree: ast.Module) -> Iterator[ast.Lambda]:
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "out_specs":
            for call in ast.walk(node.value):
                if isinstance(call, ast.Call) and _called(call) == "BlockSpec":
                    for arg in [*call.args, *(k.value for k in call.keywords if k.arg == "index_map")]:
                        if isinstance(arg, ast.Lambda) and isinstance(arg.body, ast.Tuple):
                            yield arg


def drop_index_terms(path: Path, text: str, tree: ast.Module) -> Iterator[Mutant]:
    # Two simulated cores and the race detector: what shows an ignored "parallel" axis
    text = text.replace("pltpu.InterpretParams()", _RACES)
    for lam in _out_spec_maps(tree):
        params = {a.arg for a in lam.args.args}
        for elt in lam.body.elts:
            if isinstance(elt, ast.Name) and elt.id in params:
                yield Mutant("drop-index-term", path, elt.lineno, f"index map term {elt.id} -> 0",
                             Editor(text).replace(elt, "0"))


def dma_sizes(path: Path, text: str, tree: ast.Module) -> Iterator[Mutant]:
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and _called(call) in _COPIES and len(call.args) >= 2):
            continue
        for side, arg in (("source", call.args[0]), ("destination", call.args[1])):
            for ds in ast.walk(arg):
                if isinstance(ds, ast.Call) and _called(ds) in ("ds", "dslice") and len(ds.args) == 2:
                    size = ast.get_source_segment(text, ds.args[1])
                    if size is None or size.strip() == "1":
                        continue
                    new = f"({size}) // 2" if side == "source" else f"2 * ({size})"
                    yield Mutant("dma-size", path, call.lineno, f"{side} pl.ds size {size} -> {new}",
                                 Editor(text).replace(ds.args[1], new))


FAMILIES = {"delete-wait": delete_waits, "swap-kind": swap_kinds, "drop-index-term": drop_index_terms,
            "dma-size": dma_sizes}


def all_mutants(folder: Path = PROTOCOL) -> list[Mutant]:
    out = []
    for path in sorted(folder.glob("pal*_ok.py")):
        text = path.read_text()
        tree = ast.parse(text)
        for family in FAMILIES.values():
            out.extend(family(path, text, tree))
    return out


def findings(m: Mutant) -> list[tuple[int, str, str]]:
    """[(line, code, severity)] of the family's rules on the mutant."""
    return [(f.span.line + 1, f.code, f.severity)
            for f in analyze_source(m.text, str(m.source.with_name(m.name + ".py")))
            if f.code in CODES[m.family]]


def jax_verdicts(mutants: list[Mutant], tmp: Path) -> dict[str, dict]:
    """{mutant name: jax_verdicts.py record}, from two driver processes."""
    jobs = []
    for m in mutants:
        p = tmp / f"{m.name}.py"
        p.write_text(m.text)
        jobs.append(f"{p}@eager" if m.eager else str(p))
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    procs = [subprocess.Popen([sys.executable, str(RUNNER), *half], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for half in (jobs[0::2], jobs[1::2]) if half]
    out = {}
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=1800)
        if proc.returncode != 0:
            raise SystemExit(f"jax_verdicts.py exited {proc.returncode}:\n{stderr[-3000:]}")
        for line in stdout.splitlines():
            if line.startswith("{") and '"module"' in line:
                rec = json.loads(line)
                out[rec["module"]] = rec
    return out


@dataclass
class Score:
    mutants: int = 0
    rejected: int = 0
    flagged: int = 0
    accepted: int = 0
    false_errors: int = 0


def judge(m: Mutant, got: list[tuple[int, str, str]], rec: dict | None, score: Score, misses: list[str]) -> None:
    score.mutants += 1
    if rec is not None and rec["status"] == "ok":
        score.accepted += 1
        if any(sev == "error" for _, _, sev in got):
            score.false_errors += 1
            misses.append(f"  false error: {m.source.name}:{m.line} {m.what}: {got}")
        return
    score.rejected += 1
    right = {m.line}
    if rec is not None and m.family == "swap-kind" and rec.get("line"):
        right = {rec["line"]}   # JAX raises where the semaphore is used
    anywhere = m.family in ANYWHERE or (m.family == "swap-kind" and rec is None)   # JAX names the line
    if got and (anywhere or any(line in right for line, _, _ in got)):
        score.flagged += 1
    else:
        status = f"JAX: {rec['status']}" if rec is not None else "JAX not asked"
        misses.append(f"  missed {m.source.name}:{m.line} {m.family}: {m.what} ({status}; found {got})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jax", action="store_true", help="ask JAX's TPU interpreter for each mutant's verdict")
    ap.add_argument("--strict", action="store_true", help="exit 1 on a false error or below the goal")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--family", choices=list(FAMILIES), action="append", help="only these families")
    args = ap.parse_args(argv)
    return run(args.jax, args.strict, args.family, args.json)


def run(jax: bool, strict: bool, families: list[str] | None = None, json_out: str | None = None) -> int:
    """Score the families (all, or `families`); 1 when `strict` and a goal is missed."""
    mutants = [m for m in all_mutants() if not families or m.family in families]
    with tempfile.TemporaryDirectory(prefix="pallas-protocol-mutants-") as tmp:
        verdicts = jax_verdicts(mutants, Path(tmp)) if jax else {}
    scores = {family: Score() for family in FAMILIES if not families or family in families}
    misses: list[str] = []
    for m in mutants:
        judge(m, findings(m), verdicts.get(m.name), scores[m.family], misses)
    return report(scores, misses, strict, json_out)


def report(scores: dict[str, Score], misses: list[str], strict: bool, json_out: str | None) -> int:
    print("| family | mutants | JAX rejects | flagged | % | JAX accepts | false errors |")
    print("|---|---|---|---|---|---|---|")
    for family, s in scores.items():
        pct = f"{100 * s.flagged / s.rejected:.1f}" if s.rejected else "-"
        label = family + (" (preview rules)" if family in PREVIEW else "")
        print(f"| {label} | {s.mutants} | {s.rejected} | {s.flagged} | {pct} | {s.accepted} | {s.false_errors} |")
    gated = [s for f, s in scores.items() if f not in PREVIEW]
    rejected, flagged = sum(s.rejected for s in gated), sum(s.flagged for s in gated)
    false_errors = sum(s.false_errors for s in scores.values())
    rate = flagged / rejected if rejected else 1.0
    print(f"protocol mutants flagged (PAL301, PAL305, PAL306): {flagged}/{rejected} = {100 * rate:.1f}% "
          f"(goal at least {100 * GOAL:.0f}%); false errors: {false_errors} (goal 0)")
    print("\n".join(misses))
    if json_out:
        Path(json_out).write_text(json.dumps({f: vars(s) for f, s in scores.items()}, indent=2))
    return 1 if strict and (false_errors or rate < GOAL) else 0


if __name__ == "__main__":
    sys.exit(main())
