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


def _agrees(source):
    actual = pf.executed(source)
    assert actual is not None
    claim = pf.interpreted(source)
    return pf.disagreement(claim, actual), pf.exact(claim)


def test_a_list_changed_while_a_loop_runs_over_it():
    """`for x in xs:` goes over the list as it is at each step: shortened (a loop the
    interpreter does not unroll: nothing wrong is claimed) or grown (followed exactly)."""
    shortened = "def program():\n    xs = [1, 2, 3]\n    for x in xs:\n        xs.pop()\n    return (xs,)\n\nresult = program()\n"
    assert _agrees(shortened)[0] is None
    grown = ("def program():\n    ys = [1]\n    n = 0\n    for y in ys:\n        n += 1\n"
             "        if len(ys) < 4:\n            ys += (y,)\n    return (ys, n)\n\nresult = program()\n")
    assert _agrees(grown) == (None, True)


def test_a_list_or_dict_changed_through_any_of_its_holders():
    source = ("def grow(xs, x):\n    xs.append(x)\n    return len(xs)\n\n"
              "def program():\n    a = [1]\n    b = a\n    grow(b, 2)\n    b += (3,)\n    b[0] = 0\n"
              "    d = {'k': 1}\n    e = d\n    e.update(j=2)\n    del e['k']\n"
              "    return (a, d, 0 or 5, [] or [1])\n\nresult = program()\n")
    assert _agrees(source) == (None, True)


def test_an_interpreter_failure_is_a_disagreement(monkeypatch):
    import pallas_lsp.analysis.interp.statements as statements

    def broken(*args):
        raise IndexError("out of range")

    monkeypatch.setattr(statements, "item_written", broken)
    source = "def program():\n    xs = [1]\n    xs[0] = 2\n    return (xs,)\n\nresult = program()\n"
    outcome = pf.check_source("t", source)
    assert outcome.problem is not None and outcome.problem.startswith("interpreter:")


def test_the_interpreter_agrees_with_cpython_on_a_sample():
    outcomes = [pf.check(1, i) for i in range(150)]
    assert [o.problem for o in outcomes if o.problem is not None] == []
    assert sum(o.known for o in outcomes) > 0.4 * sum(o.total for o in outcomes)


def _program(body: str) -> str:
    return ("import functools\nimport itertools\n\ndef program():\n"
            + "".join(f"    {line}\n" for line in body.splitlines()) + "\nresult = program()\n")


def test_python_forms_the_grammar_draws_as_cpython_runs_them():
    """Each was claimed wrong: `enumerate`'s start, `:=` in a comprehension (it binds in
    the function), a chained comparison after its first false link, an f-string's
    parts, a dict an unknown number of rounds changes, `next` of a list that may be empty."""
    exact = _program(
        "a = [i for i, x in enumerate((5, 6), 2)]\n"
        "n = 1\nb = [(n := x) for x in (7, 8)]\n"
        "m = 0\nc = 1 < 0 < (m := 1)\n"
        "xs = [0, 1]\nd = f'{xs.pop()}-{2.5!r}'\n"
        "return (a, n, b, m, c, xs, d)")
    assert _agrees(exact) == (None, True)
    rounds = _program(
        "k = 4\nd = {'k0': 4}\nfor i in range(min((2, 3), default=0)):\n    k = d.pop('k0', 0)\n"
        "ys = [5] if min((2, 3), default=0) > 8 else []\n"
        "return (k, d, next(iter(ys), 0), functools.reduce(lambda a, b: a + b, ys, 1))")
    assert _agrees(rounds)[0] is None
