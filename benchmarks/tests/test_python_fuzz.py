"""python_fuzz.py / python_grammar.py: the programs run in CPython, the comparison catches a
wrong claim, and the interpreter agrees with CPython on a fixed sample."""

import ast
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCH))

import python_fuzz as pf
from python_grammar import program

from pallas_lsp.analysis.values import SCALAR, UNKNOWN, Const, Mapping, Seq, SeqOf


def test_programs_parse_and_most_run():
    sources = [program(f"9:{i}") for i in range(200)]
    for source in sources:
        ast.parse(source)
    ran = [pf.executed(source) for source in sources]
    assert sum(r is not None for r in ran) >= 150
    assert all(type(r) is tuple for r in ran if r is not None)


def test_a_wrong_claim_is_a_disagreement():
    assert pf.disagreement(Const(1), True) is not None          # 1 and True are two claims
    assert pf.disagreement(Const(1.0), 1) is not None
    assert pf.disagreement(Seq((Const(1),), True), (1,)) is not None   # a list is not a tuple
    assert pf.disagreement(Seq((Const(1),)), (1, 2)) is not None
    assert pf.disagreement(SeqOf(Const(0)), [0, 1]) is not None
    assert pf.disagreement(Mapping({"a": Const(1)}), {"a": 2}) is not None
    assert pf.disagreement(SCALAR, "a") is not None


def test_what_claims_nothing_or_the_truth_agrees():
    assert pf.disagreement(UNKNOWN, object()) is None
    assert pf.disagreement(SCALAR, 2.5) is None
    assert pf.disagreement(Seq((Const(1), UNKNOWN), True), [1, "x"]) is None
    assert pf.disagreement(SeqOf(SCALAR), (1, 2.0)) is None
    assert pf.disagreement(Mapping({"a": Const(1)}), {"a": 1}) is None


def test_a_list_changed_while_a_loop_runs_over_it():
    """`for x in xs: xs.pop()` stops when the list runs out (seed 6, program 28)."""
    outcome = pf.check(6, 28)
    assert outcome.problem is None and outcome.total > 0


def test_the_interpreter_agrees_with_cpython_on_a_sample():
    outcomes = [pf.check(1, i) for i in range(150)]
    assert [o.problem for o in outcomes if o.problem is not None] == []
    assert sum(o.known for o in outcomes) > 0.4 * sum(o.total for o in outcomes)
