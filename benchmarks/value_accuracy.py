#!/usr/bin/env python3
"""Value accuracy: the shape / dtype / weak type pallas-lsp claims for each name assigned
in a kernel body, against what JAX gives it.

    python benchmarks/value_accuracy.py [--jax-only] [--jobs 2]
                                        [--timeout 60] [--json OUT]

JAX's side comes from ``tests/oracle/value_recorder.py``, run in subprocesses over every
module with a ``trace()`` / ``main()`` / ``jax_check()`` of ``tests/corpus``, ``examples``,
``tests/protocol`` and ``tests/contract`` (their ``pal*.py``), and ``tests/values`` when
it exists. pallas-lsp's side is `pallas_lsp_claims`: the inlay hints of one analysis of the
file (the names assigned in kernel bodies), asked once per
file JAX recorded values in; `--jax-only` prints JAX's side alone.

Per corpus: traced names (every place JAX recorded an array value), claimed (pallas-lsp
said something about it), known (a fully static shape and a dtype), agreeing and
disagreeing claims, coverage = known / traced. Paths are compared after
``os.path.realpath``; places are keyed by (path, line, name).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RECORDER = REPO / "tests" / "oracle" / "value_recorder.py"
ENTRY_POINTS = ("trace", "main", "jax_check")
# corpus label -> (folder, file pattern)
CORPORA = {
    "corpus": (REPO / "tests" / "corpus", "**/*.py"),
    "examples": (REPO / "examples", "*.py"),
    "protocol": (REPO / "tests" / "protocol", "pal*.py"),
    "contract": (REPO / "tests" / "contract", "pal*.py"),
    "values": (REPO / "tests" / "values", "*.py"),
}

Dim = int | str  # an int, or a named unknown ("bm", "?"); JAX's symbolic dims are str too


@dataclass(frozen=True)
class Aval:
    """One abstract value JAX gave a name."""

    shape: tuple[Dim, ...]
    dtype: str
    weak: bool


@dataclass(frozen=True)
class TracedValue:
    """A name at its assignment, with every distinct aval JAX gave it there."""

    path: str
    line: int  # 1-based
    col: int   # 0-based, code points
    name: str
    avals: tuple[Aval, ...]


@dataclass(frozen=True)
class ClaimedValue:
    """What pallas-lsp claims for a name at its assignment; None: not claimed."""

    path: str
    line: int
    col: int
    name: str
    shape: tuple[Dim, ...] | None
    dtype: str | None
    weak: bool | None

    @property
    def claimed(self) -> bool:
        return (self.shape, self.dtype, self.weak) != (None, None, None)

    @property
    def known(self) -> bool:
        """A fully static shape and a dtype."""
        return (self.shape is not None and self.dtype is not None
                and all(isinstance(d, int) for d in self.shape))


@dataclass(frozen=True)
class Disagreement:
    traced: TracedValue
    claimed: ClaimedValue

    def __str__(self) -> str:
        c, t = self.claimed, self.traced
        ours = f"shape={_shape(c.shape)} dtype={c.dtype} weak={c.weak}"
        jax = " | ".join(f"shape={_shape(a.shape)} dtype={a.dtype} weak={a.weak}"
                         for a in t.avals)
        return f"{_rel(t.path)}:{t.line} {t.name}: ours {ours}; JAX {jax}"


@dataclass
class Agreement:
    """``agree + disagree == claimed``; ``known <= claimed``; unmatched: claims on
    places JAX recorded nothing at (ints, refs, code it did not trace)."""

    traced: int = 0
    claimed: int = 0
    known: int = 0
    agree: int = 0
    disagree: int = 0
    unmatched: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)

    @property
    def coverage(self) -> float:
        return self.known / self.traced if self.traced else 0.0


def _rel(path: str) -> str:
    p = Path(path)
    return str(p.relative_to(REPO)) if p.is_relative_to(REPO) else path


def _shape(shape) -> str:
    return "None" if shape is None else "(" + ", ".join(map(str, shape)) + ")"


def _key(path: str, line: int, name: str) -> tuple[str, int, str]:
    return os.path.realpath(path), line, name


def agrees(claim: ClaimedValue, aval: Aval) -> bool:
    """Every claimed part matches; a named dim matches any int dim of JAX's."""
    if claim.dtype is not None and claim.dtype != aval.dtype:
        return False
    if claim.weak is not None and claim.weak != aval.weak:
        return False
    if claim.shape is None:
        return True
    return len(claim.shape) == len(aval.shape) and all(
        c == a if isinstance(c, int) else isinstance(a, int)
        for c, a in zip(claim.shape, aval.shape))


def compare(traced: list[TracedValue], claimed: list[ClaimedValue]) -> Agreement:
    """pallas-lsp's claims against JAX's avals. Where JAX recorded several avals at one
    place, a claim must hold for each (their common value; a named dim where they differ)."""
    claims = {_key(c.path, c.line, c.name): c for c in claimed if c.claimed}
    out = Agreement(traced=len(traced))
    for t in traced:
        c = claims.pop(_key(t.path, t.line, t.name), None)
        if c is None:
            continue
        out.claimed += 1
        out.known += c.known
        if all(agrees(c, a) for a in t.avals):
            out.agree += 1
        else:
            out.disagree += 1
            out.disagreements.append(Disagreement(t, c))
    out.unmatched = len(claims)
    return out


def traced_values(records: Iterable[dict]) -> list[TracedValue]:
    """The recorder's records -> one TracedValue per place; a file traced through several
    modules (a package) has the union of their avals."""
    merged: dict[tuple, list[Aval]] = {}
    for rec in records:
        for v in rec.get("values", ()):
            avals = merged.setdefault((os.path.realpath(v["path"]), v["line"], v["col"],
                                       v["name"]), [])
            for a in v["avals"]:
                aval = Aval(tuple(a["shape"]), a["dtype"], a["weak"])
                if aval not in avals:
                    avals.append(aval)
    return [TracedValue(p, line, col, name, tuple(avals))
            for (p, line, col, name), avals in sorted(merged.items())]


# -- running the recorder ------------------------------------------------------------

def corpus_modules(folder: Path, pattern: str) -> list[Path]:
    """The modules of a corpus folder with a top-level trace() / main() / jax_check()."""
    out = []
    for p in sorted(folder.glob(pattern)) if folder.is_dir() else []:
        tree = ast.parse(p.read_text(encoding="utf-8"))
        if any(isinstance(n, ast.FunctionDef) and n.name in ENTRY_POINTS for n in tree.body):
            out.append(p)
    return out


def _run_chunk(paths: list[str], timeout: float, results: dict) -> None:
    """Record `paths` in one recorder process, starting a new one after a hang, a
    timeout or a crash (the recorder announces each module before running it)."""
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONDONTWRITEBYTECODE="1")
    remaining = list(paths)
    while remaining:
        cmd = [sys.executable, str(RECORDER), "--timeout", str(timeout), *remaining]
        current, before = None, len(remaining)
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, env=env) as proc:
            for line in proc.stdout:
                if not line.startswith("{"):
                    continue
                rec = json.loads(line)
                if "start" in rec:
                    current = rec["start"]
                    continue
                results[os.path.realpath(rec["path"])] = rec
                remaining.remove(rec["path"])
                current = None
        if current is not None:  # the recorder died inside a module
            results[os.path.realpath(current)] = {
                "path": current, "status": "crash", "values": [],
                "message": f"value_recorder exited with {proc.returncode}"}
            remaining.remove(current)
        elif len(remaining) == before:  # it died before the first module: give up
            for p in remaining:
                results[os.path.realpath(p)] = {"path": p, "status": "crash", "values": [],
                                                "message": "value_recorder did not start"}
            return


def record_values(paths, jobs: int = 2, timeout: float = 60.0) -> dict[str, dict]:
    """{realpath: recorder record} for every module, in up to `jobs` processes."""
    paths = [str(p) for p in paths]
    jobs = max(1, min(jobs, len(paths)))
    results: dict[str, dict] = {}
    threads = [threading.Thread(target=_run_chunk, args=(paths[i::jobs], timeout, results))
               for i in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


# -- the report ----------------------------------------------------------------------

def pallas_lsp_claims(path: str) -> list[ClaimedValue]:
    """What pallas-lsp shows for each name assigned in a kernel body of `path` (its inlay
    hints), read the way the editor reads it: one analysis of the file, the project's
    folders as the workspace."""
    sys.path.insert(0, str(REPO / "server"))
    from pallas_lsp.analysis.engine import ModuleAnalyzer
    from pallas_lsp.analysis.workspace import Workspace

    workspace = Workspace((str(REPO), os.path.dirname(path)))
    analyzer = ModuleAnalyzer(path, workspace)
    analyzer.analyze(Path(path).read_text())
    claims = []
    for note in analyzer.value_notes():
        if note.hinted:
            v = note.value
            dtype = v.dtype.name if v.dtype is not None else None
            claims.append(ClaimedValue(os.path.realpath(path), note.span.line + 1, note.span.col, note.text,
                                       v.shape, dtype, v.dtype.weak if v.dtype is not None else None))
    return claims


@dataclass
class CorpusRow:
    label: str
    modules: int
    statuses: dict[str, int]
    traced: list[TracedValue]
    agreement: Agreement | None


def corpus_row(label: str, records: list[dict], claims_for) -> CorpusRow:
    statuses: dict[str, int] = {}
    for rec in records:
        statuses[rec["status"]] = statuses.get(rec["status"], 0) + 1
    traced = traced_values(records)
    agreement = None
    if claims_for is not None:
        claimed = [c for path in sorted({t.path for t in traced}) for c in claims_for(path)]
        agreement = compare(traced, claimed)
    return CorpusRow(label, len(records), statuses, traced, agreement)


def print_table(rows: list[CorpusRow]) -> None:
    with_claims = all(r.agreement is not None for r in rows)
    head = f"{'corpus':10} {'modules':>7} {'traced':>7}"
    if with_claims:
        head += f" {'claimed':>7} {'known':>6} {'agree':>6} {'disagree':>8} {'coverage':>8}"
    print(head + "  statuses")
    for r in rows:
        line = f"{r.label:10} {r.modules:7} {len(r.traced):7}"
        if with_claims:
            a = r.agreement
            line += (f" {a.claimed:7} {a.known:6} {a.agree:6} {a.disagree:8}"
                     f" {a.coverage:8.1%}")
        print(line + "  " + ", ".join(f"{k} {v}" for k, v in sorted(r.statuses.items())))
    if with_claims:
        for r in rows:
            for d in r.agreement.disagreements:
                print(f"  disagree: {d}")


def total_row(rows: list[CorpusRow]) -> CorpusRow:
    statuses: dict[str, int] = {}
    for r in rows:
        for k, v in r.statuses.items():
            statuses[k] = statuses.get(k, 0) + v
    agreement = None
    if rows and all(r.agreement is not None for r in rows):
        agreement = Agreement()
        for r in rows:
            for f in ("traced", "claimed", "known", "agree", "disagree", "unmatched"):
                setattr(agreement, f, getattr(agreement, f) + getattr(r.agreement, f))
    traced = [t for r in rows for t in r.traced]
    return CorpusRow("total", sum(r.modules for r in rows), statuses, traced, agreement)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jax-only", action="store_true", help="print JAX's side only")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per module")
    ap.add_argument("--json", metavar="OUT", help="write JAX's traced values here")
    ap.add_argument("--strict", action="store_true",
                    help=f"exit 1 on a disagreement or a coverage below {COVERAGE_GOAL:.0%}%")
    args = ap.parse_args(argv)
    return run(args.jobs, args.strict, jax_only=args.jax_only, timeout=args.timeout, json_out=args.json)


COVERAGE_GOAL = 0.80


def run(jobs: int = 2, strict: bool = False, jax_only: bool = False, timeout: float = 60.0,
        json_out: str | None = None) -> int:
    """Record, compare and print the table; with `strict`, 1 when a claim disagrees with
    JAX or the coverage is under the goal."""
    claims_for = None if jax_only else pallas_lsp_claims
    corpora = {label: corpus_modules(folder, pattern)
               for label, (folder, pattern) in CORPORA.items()}
    t0 = time.perf_counter()
    results = record_values([p for ps in corpora.values() for p in ps], jobs, timeout)
    seconds = time.perf_counter() - t0
    rows = [corpus_row(label, [results[os.path.realpath(p)] for p in paths], claims_for)
            for label, paths in corpora.items() if paths]
    total = total_row(rows)
    print_table(rows + [total])
    print(f"recorded in {seconds:.1f} s with {jobs} process(es)")
    for rec in results.values():
        if rec["status"] not in ("ok", "error"):
            print(f"  {rec['status']}: {rec['path']}: {rec.get('message')}")
    if json_out:
        with open(json_out, "w", encoding="utf-8") as f:
            json.dump([asdict(t) for r in rows for t in r.traced], f, indent=1)
    missed = total.agreement is not None and (total.agreement.disagree or total.agreement.coverage < COVERAGE_GOAL)
    if strict and missed:
        print(f"FAIL (--strict): values must agree with JAX and cover at least {COVERAGE_GOAL:.0%}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
