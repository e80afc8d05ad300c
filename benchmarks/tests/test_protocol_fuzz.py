"""protocol_fuzz.py without JAX: the kernels it writes are reproducible and cover the
grammar, pallas-lsp finds no error on the correct ones, and its scoring.  (JAX's
verdicts are the benchmark's: `.ci/run` runs `protocol_fuzz.py --smoke --strict`.)"""

import ast
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCH))

import fuzz_grammar as fg
import protocol_fuzz as pf


def test_a_seed_gives_the_same_kernel():
    assert pf.generate(3, [0, 9]) == pf.generate(3, [0, 9])
    assert pf.generate(3, [0])[0].text != pf.generate(4, [0])[0].text


def test_one_kernel_in_five_has_a_mistake_the_families_in_turn():
    assert [pf.family_of(i) for i in range(20)].count("correct") == 16
    assert [pf.family_of(i) for i in range(4, 40, 5)] == list(fg.FAMILIES[1:]) * 2


def test_the_kernels_parse_and_use_the_grammar():
    kernels = pf.generate(0, list(range(200)))
    for k in kernels:
        ast.parse(k.text)
    text = "\n".join(k.what for k in kernels)
    for word in [*fg.HOLDERS, *fg.DISPATCH, *fg.LOOPS, "gather", "signals", "run_scoped", "2 core(s)"]:
        assert word in text, word


def test_no_error_on_correct_kernels():
    for k in pf.generate(5, [i for i in range(40) if pf.family_of(i) == "correct"]):
        errors, warnings = pf.check(k)
        assert not errors and not warnings, (k.seed, errors, warnings, k.what)


def test_scoring():
    def outcome(family, jax, errors=(), warnings=()):
        return pf.Outcome(0, "0:0", family, "", jax, None, list(errors), list(warnings))

    assert outcome("correct", "ok", ["PAL303:3"]).verdict() == "false-error"
    assert outcome("correct", "ok", [], ["PAL302:3"]).verdict() == "false-warning"
    assert outcome("correct", "hang").verdict() == "grammar"
    assert outcome("no-prologue", "hang", [], ["PAL303:3"]).verdict() == "agree"
    assert outcome("drop-wait", "leftover", ["PAL305:3"]).verdict() == "miss"
