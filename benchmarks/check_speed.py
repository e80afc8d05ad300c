#!/usr/bin/env python3
"""Wall time of `pallas-lsp check` over a generated tree of Pallas kernel files.

    python benchmarks/check_speed.py                 # 100,000 lines in 50 files, 3 runs
    python benchmarks/check_speed.py --lines 20000 --files 10 --repeat 1   # quick look

The tree is made by `benchmarks/gen_kernels.py` (seeded, so every run checks the same
text); every file carries deliberate mistakes listed by the generator, and the findings
of the check are compared with them (a correctness check printed beside the timing).
Each run is the real command in a fresh interpreter (`python -m pallas_lsp check
--format json TREE`), so the time includes start-up, file discovery and the worker pool.
Prints the median wall time and its spread, and the CPU time of the command and its workers
(on a busy machine, CPU / cores estimates the wall time on a quiet one).  There is no
pass/fail on the time itself.

Goal (issue 5): under 3 s wall for 100,000 lines on the 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_kernels import generate


def make_tree(root: Path, total_lines: int, files: int, plain_fraction: float) -> dict:
    """Write the tree; returns {relative path: set of (line, code) it must be flagged at}."""
    expected = {}
    per_file = max(1, total_lines // files)
    n_plain = int(files * plain_fraction)
    for i in range(files):
        rel = Path(f"pkg{i % 5}") / f"kernels_{i}.py"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if i < n_plain:  # plain Python that never mentions Pallas: the prefilter skips it
            text = "".join(f"def helper_{i}_{j}(x):\n    return x * {j} + 1\n\n\n"
                           for j in range(per_file // 4))
            text += "\n" * (per_file - text.count("\n"))
            mistakes = []
        else:
            text, mistakes = generate(per_file, seed=i)
        path.write_text(text)
        expected[str(rel)] = {(m["line"], m["code"]) for m in mistakes}
    return expected


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_check(tree: Path, jobs: int | None) -> tuple[float, float, int, list]:
    """(wall s, CPU s of the command and its workers, exit status, findings)."""
    cmd = [sys.executable, "-m", "pallas_lsp", "check", "--format", "json", "."]
    if jobs:
        cmd[4:4] = ["-j", str(jobs)]
    cpu0, start = _children_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu0
    if proc.returncode not in (0, 1):
        sys.exit(f"check failed (exit {proc.returncode}):\n{proc.stderr}")
    return wall, cpu, proc.returncode, json.loads(proc.stdout)


def compare(expected: dict, findings: list) -> str:
    got = {(f["path"], f["line"], f["code"]) for f in findings}
    want = {(p, line, code) for p, marks in expected.items() for line, code in marks}
    missed, extra = want - got, got - want
    line = (f"findings {len(got)} / deliberate mistakes {len(want)}: "
            f"{len(want & got)} matched, {len(missed)} missed, {len(extra)} unexpected")
    if missed:
        line += f"\n  first missed: {sorted(missed)[:3]}"
    if extra:
        line += f"\n  first unexpected: {sorted(extra)[:3]}"
    return line


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lines", type=int, default=100_000, help="total lines (default 100000)")
    p.add_argument("--files", type=int, default=50, help="number of files (default 50)")
    p.add_argument("--plain-fraction", type=float, default=0.0,
                   help="share of files that are plain Python, not Pallas (default 0)")
    p.add_argument("--repeat", type=int, default=3, help="runs per configuration (default 3)")
    p.add_argument("--jobs", type=int, nargs="+", default=[0, 1],
                   help="-j values to compare; 0 = the default (one worker per core)")
    p.add_argument("--keep", metavar="DIR", help="write the tree here and keep it")
    a = p.parse_args(argv)
    if a.lines < 1 or a.files < 1 or a.repeat < 1 or not 0 <= a.plain_fraction <= 1:
        p.error("--lines, --files and --repeat must be positive, --plain-fraction in [0, 1]")

    with tempfile.TemporaryDirectory(prefix="pallas-check-bench-") as tmp:
        tree = Path(a.keep) if a.keep else Path(tmp)
        tree.mkdir(parents=True, exist_ok=True)
        expected = make_tree(tree, a.lines, a.files, a.plain_fraction)
        lines = sum(f.read_text().count("\n") for f in tree.rglob("*.py"))
        print(f"tree: {len(expected)} files, {lines:,} lines in {tree} "
              f"({os.cpu_count()} CPUs, Python {sys.version.split()[0]})")
        medians, results = {}, {}
        for jobs in a.jobs:
            walls, cpus = [], []
            for _ in range(a.repeat):
                wall, cpu, rc, findings = run_check(tree, jobs)
                walls.append(wall)
                cpus.append(cpu)
            medians[jobs], results[jobs] = statistics.median(walls), findings
            label = "-j default" if not jobs else f"-j {jobs}"
            spread = f", min {min(walls):.2f} s, max {max(walls):.2f} s" if len(walls) > 1 else ""
            print(f"{label:>11}: median {medians[jobs]:.2f} s wall over {len(walls)} run(s)"
                  f"{spread}; median CPU {statistics.median(cpus):.2f} s; "
                  f"exit {rc}, {len(findings)} findings")
        first = a.jobs[0]
        print(compare(expected, results[first]))
        if any(r != results[first] for r in results.values()):
            print("WARNING: the configurations reported different findings")
        if a.lines == 100_000:
            verdict = "met" if medians[first] < 3.0 else "NOT met"
            print(f"goal < 3 s for 100,000 lines ({'-j default' if not first else f'-j {first}'}): "
                  f"{verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
