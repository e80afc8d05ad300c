"""A differential fuzzer of pallas-lsp's interpreter against CPython, on the plain Python
around kernels (static sizes, block shapes, flags, small helpers and loops).

    python benchmarks/python_fuzz.py [--programs N] [--seed S] [--smoke] [--strict]
                                     [--only I ...] [--show K]

Draws `N` programs (`python_grammar.py`; program `I` of seed `S` is drawn from
`random.Random("S:I")`, again with `"S:I:k"` while CPython raises on it), runs each with
CPython and with the interpreter (through a domain that records what `probe.see(...)` is
given, as any domain is told), and compares every variable `program()` returns.  Where
the interpreter claims something it must be CPython's answer: a constant is the same
value of the same type (1, 1.0 and True are three claims), a tuple or a list holds as
many items each as claimed, a dict the same keys, "some number" is a number; UNKNOWN
claims nothing.  A disagreement is printed with the program's seed and source.  The
share of variables known exactly is printed as the interpreter's precision.
`--strict` exits 1 on a disagreement.  `--smoke`: 300 programs (CI).
"""

from __future__ import annotations

import argparse
import logging
import math
import signal
import sys
import time
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "server"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pallas_lsp.analysis.engine import DOMAINS, analyze_source
from pallas_lsp.analysis.interp.domain import NOT_MINE, Domain
from pallas_lsp.analysis.values import SCALAR, UNKNOWN, Const, Mapping, Seq, SeqOf, SeqTail
from python_grammar import program

CPYTHON_SECONDS = 2     # a program CPython takes longer on is drawn again
MAX_DRAWS = 20


class Probe(Domain):
    """Records the value of every `probe.see(x)` the interpreter runs."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def call_name(self, ev, qname, call):
        if qname == "probe.see":
            self.seen.append(call.value(0))
            return Const(None)
        return NOT_MINE


class Failed(logging.Handler):
    """Keeps the analysis's logged failures (an exception inside the interpreter)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def interpreted(source: str) -> Any:
    """What the interpreter knows of `result` (UNKNOWN when it was not reached); an
    exception the analysis logged is raised."""
    probe, failed = Probe(), Failed()
    logger = logging.getLogger("pallas_lsp")
    logger.addHandler(failed)
    try:
        analyze_source(f"import probe\n{source}\nprobe.see(result)\n", domains=(*DOMAINS, probe))
    finally:
        logger.removeHandler(failed)
    if failed.records:
        record = failed.records[0]
        raise RuntimeError(f"{record.getMessage()}: {record.exc_info[1]!r}" if record.exc_info else record.getMessage())
    return probe.seen[-1] if probe.seen else UNKNOWN


class _Slow(Exception):
    pass


def _alarm(signum, frame):
    raise _Slow


def executed(source: str) -> tuple[Any, ...] | None:
    """`result` as CPython computes it, or None when the program raises (or runs long)."""
    namespace: dict[str, Any] = {"__name__": "fuzzed"}
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CPYTHON_SECONDS)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)   # `x is None` of a literal: the grammar's own
            code = compile(source, "<program>", "exec", dont_inherit=True)   # not this module's __future__
        exec(code, namespace)
        return namespace["result"]
    except Exception:   # _Slow included: an exception CPython raises is no answer to compare
        return None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def disagreement(claim: Any, actual: Any, path: str = "") -> str | None:
    """Where `claim` (the interpreter's) says something `actual` (CPython's) is not."""
    if claim is UNKNOWN:
        return None
    if claim is SCALAR:
        ok = type(actual) in (int, float, bool)
    elif type(claim) is Const:
        ok = type(claim.value) is type(actual) and (
            claim.value == actual or isinstance(actual, float) and math.isnan(actual) and math.isnan(claim.value))
    elif type(claim) is Seq:
        ok = type(actual) is (list if claim.is_list else tuple) and len(actual) == len(claim.items)
        if ok:
            return _first(disagreement(c, a, f"{path}[{i}]") for i, (c, a) in enumerate(zip(claim.items, actual)))
    elif type(claim) is SeqTail:
        ok = type(actual) in (tuple, list) and len(actual) >= len(claim.items)
        if ok:
            tail = actual[len(actual) - len(claim.items):]
            return _first(disagreement(c, a, f"{path}[-]") for c, a in zip(claim.items, tail))
    elif type(claim) is SeqOf:
        ok = type(actual) in (tuple, list)
        if ok:
            return _first(disagreement(claim.item, a, f"{path}[*]") for a in actual)
    elif type(claim) is Mapping:
        ok = type(actual) is dict and list(actual) == list(claim.items)
        if ok:
            return _first(disagreement(c, actual[k], f"{path}[{k!r}]") for k, c in claim.items.items())
    else:
        return None   # functions, objects: not what these programs return
    return None if ok else f"{path or 'result'}: claimed {claim!r}, CPython gives {actual!r}"


def _first(found) -> str | None:
    return next((d for d in found if d is not None), None)


def exact(claim: Any) -> bool:
    """Whether the claim is a whole value (no UNKNOWN, no "some number" in it)."""
    if type(claim) is Const:
        return True
    if type(claim) is Seq:
        return all(exact(c) for c in claim.items)
    if type(claim) is Mapping:
        return all(exact(c) for c in claim.items.values())
    return False


@dataclass
class Outcome:
    index: int
    seed: str
    source: str
    problem: str | None
    known: int
    total: int


def check(seed: int, index: int) -> Outcome:
    for draw in range(MAX_DRAWS):
        name = f"{seed}:{index}" + (f":{draw}" if draw else "")
        source = program(name)
        actual = executed(source)
        if actual is not None:
            break
    else:
        return Outcome(index, name, source, None, 0, 0)
    return check_source(name, source, actual, index)


def check_source(name: str, source: str, actual: Any = None, index: int = 0) -> Outcome:
    """One program against CPython (`actual`: its result, when already run)."""
    actual = executed(source) if actual is None else actual
    try:
        claim = interpreted(source)
    except RuntimeError as failure:   # the interpreter failed: a disagreement too
        return Outcome(index, name, source, f"interpreter: {failure}", 0, len(actual))
    problem = disagreement(claim, actual)
    items = claim.items if type(claim) is Seq else ()
    return Outcome(index, name, source, problem, sum(exact(c) for c in items), len(actual))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--smoke", action="store_true", help="300 programs (CI)")
    parser.add_argument("--strict", action="store_true", help="exit 1 on any disagreement")
    parser.add_argument("--only", type=int, nargs="*", help="these program indices only")
    parser.add_argument("--show", type=int, default=3, help="print at most this many disagreements in full")
    args = parser.parse_args(argv)
    count = 300 if args.smoke else args.programs
    start = time.perf_counter()
    outcomes = [check(args.seed, i) for i in (args.only or range(count))]
    bad = [o for o in outcomes if o.problem is not None]
    for o in bad[:args.show]:
        print(f"--- program {o.seed}: {o.problem}\n{o.source}")
    kinds = Counter(o.problem.split(":")[0] for o in bad)
    known, total = sum(o.known for o in outcomes), sum(o.total for o in outcomes)
    print(f"{len(outcomes)} programs (seed {args.seed}) in {time.perf_counter() - start:.0f} s: "
          f"{len(bad)} disagreements with CPython{' ' + str(dict(kinds)) if kinds else ''}; "
          f"precision: {known} of {total} values known exactly ({100 * known / max(total, 1):.0f}%)")
    return 1 if args.strict and bad else 0


if __name__ == "__main__":
    sys.exit(main())
