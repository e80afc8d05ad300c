"""A differential fuzzer for the protocol rules (PAL302-PAL304) against JAX's TPU interpreter.

    python benchmarks/protocol_fuzz.py [--kernels N] [--seed S] [--smoke] [--only I ...]
                                       [--list] [--strict] [--json OUT] [--keep DIR]

Writes `N` kernels (`fuzz_grammar.py`: seeded, reproducible; kernel `I` of seed `S` is
drawn from `random.Random("S:I")`): four of every five correct, the fifth with one
mistake, the families in turn (`drop-wait`: a DMA `.wait()` or `pl.semaphore_wait`
left out; `no-prologue`: the first step's start left out; `unguarded-prefetch`: the
last step's prefetch no longer guarded; `off-by-one`: a loop, guard or count one too
many or too few).  Each kernel runs under JAX's TPU interpreter with eager DMAs
(`tests/protocol/jax_verdicts.py`: one worker process for the lot; a wait that blocks
is a hang) and is checked by pallas-lsp.

JAX *rejects* a kernel when it raises, hangs, or leaves a semaphore non-zero at exit.
A disagreement is printed with its seed and source: an error of any rule on a kernel JAX
runs clean (a false error), a PAL302-PAL304 warning there (a false warning), a mistake
JAX rejects with no PAL302-PAL304 finding (a miss), and a correct kernel JAX rejects
(the grammar's fault).  `--strict` exits 1 on a false error, or when a family flags
less than 95% of the mistakes JAX rejects.  `--smoke`: 100 kernels (CI).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "server"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import fuzz_harness
from fuzz_grammar import FAMILIES, Kernel, kernel

RUNNER = REPO / "tests" / "protocol" / "jax_verdicts.py"
COUNTS = ("PAL302", "PAL303", "PAL304")
GOAL = 0.95
LOOK_AFTER = 1.0     # seconds before the worker looks for a blocked wait (kernels take well under)


@dataclass
class Outcome:
    index: int
    seed: str
    family: str
    what: str
    jax: str                 # ok / leftover / hang / error / crash
    jax_message: str | None
    errors: list[str]        # "PAL303:31" of every error finding
    warnings: list[str]      # of the PAL302-PAL304 warnings

    @property
    def rejected(self) -> bool:
        return self.jax in ("leftover", "hang", "error", "race")

    @property
    def flagged(self) -> bool:
        return any(f.split(":")[0] in COUNTS for f in self.errors + self.warnings)

    def verdict(self) -> str:
        """How pallas-lsp and JAX compare on this kernel (`agree` when they do)."""
        if self.jax == "crash":
            return "jax-crash"
        if not self.rejected:
            return "false-error" if self.errors else "false-warning" if self.warnings else "agree"
        if self.family == "correct":
            return "grammar"          # JAX rejects a kernel written to be correct
        return "agree" if self.flagged else "miss"


def family_of(index: int) -> str:
    return FAMILIES[1 + (index // 5) % 4] if index % 5 == 4 else "correct"


def generate(seed: int, indices: list[int]) -> list[Kernel]:
    return [kernel(f"{seed}:{i}", family_of(i)) for i in indices]


def check(k: Kernel) -> tuple[list[str], list[str]]:
    return fuzz_harness.findings(k.text, lambda code: code in COUNTS)


def _runner():
    spec = importlib.util.spec_from_file_location("protocol_jax_verdicts", RUNNER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)   # imports no JAX: only its worker does
    return mod


def run(seed: int, indices: list[int], folder: Path, progress: bool) -> list[Outcome]:
    kernels = dict(zip(indices, generate(seed, indices)))
    paths = fuzz_harness.write_kernels(kernels, folder, f"fuzz_{seed}")
    out: dict[int, Outcome] = {}
    t0 = time.monotonic()
    # pallas-lsp checks each kernel while JAX's worker process runs the next ones
    for rec in _runner().drive(list(paths), LOOK_AFTER):
        i = paths[rec["job"]]
        out[i] = _outcome(i, kernels[i], rec)
        if progress and len(out) % 50 == 0:
            print(f"  {len(out)}/{len(paths)} kernels, {time.monotonic() - t0:.0f} s", file=sys.stderr)
    return [out.get(i) or _outcome(i, k, {"status": "crash", "message": "no record"}) for i, k in kernels.items()]


def _outcome(i: int, k: Kernel, rec: dict) -> Outcome:
    errors, warnings = check(k)
    return Outcome(i, k.seed, k.family, k.what, rec["status"], rec.get("message"), errors, warnings)


def report(outcomes: list[Outcome], kernels: dict[int, Kernel], listing: bool) -> tuple[int, dict]:
    rows: dict[str, Counter] = {f: Counter() for f in FAMILIES}
    bad = 0
    for o in outcomes:
        row = rows[o.family]
        row["kernels"] += 1
        row["rejected"] += o.rejected
        v = o.verdict()
        row[v] += 1
        if o.rejected and o.flagged:
            row["flagged"] += 1
            row["by error" if any(e.split(":")[0] in COUNTS for e in o.errors) else "by warning only"] += 1
        if v != "agree" or listing:
            print(f"--- {v}: kernel {o.index} (seed {o.seed}, {o.family}): JAX {o.jax}"
                  f"{': ' + (o.jax_message or '')[:200] if o.jax_message else ''}; errors {o.errors}, "
                  f"warnings {o.warnings}\n    {o.what}")
            if v != "agree":
                print(kernels[o.index].text)
        bad += v in ("false-error",)
    print("\n| family | kernels | JAX rejects | flagged | % | by an error | by a warning only | JAX accepts "
          "| false errors | false warnings | grammar (JAX rejects a correct kernel) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for family, r in rows.items():
        if not r["kernels"]:
            continue
        pct = f"{100 * r['flagged'] / r['rejected']:.1f}%" if r["rejected"] and family != "correct" else "-"
        print(f"| {family} | {r['kernels']} | {r['rejected']} | {r['flagged'] if family != 'correct' else '-'} | {pct} "
              f"| {r['by error']} | {r['by warning only']} | {r['kernels'] - r['rejected']} | {r['false-error']} "
              f"| {r['false-warning']} | {r['grammar']} |")
    return bad, rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    fuzz_harness.add_arguments(ap, kernels=2500, smoke=100)
    args = ap.parse_args(argv)
    return fuzz_harness.fuzz(args, lambda indices, folder: run(args.seed, indices, folder, progress=True),
                             generate, report, GOAL)


if __name__ == "__main__":
    sys.exit(main())
