"""What the differential fuzzers share (protocol_fuzz.py, contract_fuzz.py): their command
line, the kernels written to a folder, pallas-lsp's findings on one kernel, and the run
from the indices of a seed to the summary line and the exit status."""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pallas_lsp.analysis.engine import analyze_source


def add_arguments(ap: argparse.ArgumentParser, kernels: int, smoke: int) -> None:
    """The options both fuzzers take (`--smoke`: the first `smoke` kernels)."""
    ap.add_argument("--kernels", type=int, default=kernels)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--smoke", action="store_true", help=f"{smoke} kernels")
    ap.add_argument("--only", type=int, nargs="+", help="these kernel indices of the seed")
    ap.add_argument("--list", action="store_true", help="one line per kernel")
    ap.add_argument("--strict", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--keep", help="write the kernels here (default: a temporary folder)")
    ap.set_defaults(smoke_kernels=smoke)


def findings(text: str, warned: Callable[[str], bool]) -> tuple[list[str], list[str]]:
    """pallas-lsp's errors and the warnings of the rules `warned` scores, as "CODE:line"."""
    found = analyze_source(text)
    errors = [f"{f.code}:{f.span.line + 1}" for f in found if f.severity == "error"]
    warnings = [f"{f.code}:{f.span.line + 1}" for f in found if f.severity != "error" and warned(f.code)]
    return errors, warnings


def write_kernels(kernels: dict[int, Any], folder: Path, prefix: str) -> dict[str, int]:
    """Each kernel's text written to `folder`: {its path: its index}."""
    paths = {}
    for i, k in kernels.items():
        path = folder / f"{prefix}_{i}.py"
        path.write_text(k.text)
        paths[str(path.resolve())] = i
    return paths


def fuzz(args: argparse.Namespace, run: Callable[[list[int], Path], list], generate: Callable,
         report: Callable, goal: float) -> int:
    """Run the kernels `args` ask for, print the report and the summary line; the exit
    status (1 under `--strict` with a false error or a family below `goal`)."""
    indices = args.only or list(range(args.smoke_kernels if args.smoke else args.kernels))
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        outcomes = run(indices, folder)
    kernels = dict(zip(indices, generate(args.seed, indices)))
    false_errors, rows = report(outcomes, kernels, args.list)
    low = [f for f, r in rows.items() if f != "correct" and r["rejected"] and r["flagged"] / r["rejected"] < goal]
    print(f"\n{len(outcomes)} kernels (seed {args.seed}) in {time.monotonic() - t0:.0f} s; false errors: "
          f"{false_errors} (goal 0); families below {goal:.0%} flagged: {', '.join(low) or 'none'}")
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(o) for o in outcomes], indent=1))
    return 1 if args.strict and (false_errors or low) else 0
