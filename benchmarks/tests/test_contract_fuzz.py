"""contract_fuzz.py without JAX: the kernels it writes are reproducible and cover the
grammar, pallas-lsp finds no error on the correct ones and a contract error on the
mistaken ones, and its scoring.  (JAX's verdicts are the benchmark's: `.ci/run` runs
`contract_fuzz.py --smoke --strict`.)"""

import ast
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCH))

import contract_fuzz as cf


def test_a_seed_gives_the_same_kernel():
    assert cf.generate(3, [0, 9]) == cf.generate(3, [0, 9])
    assert cf.generate(3, [0])[0].text != cf.generate(4, [0])[0].text


def test_one_kernel_in_five_has_a_mistake_the_families_in_turn():
    assert [cf.family_of(i) for i in range(20)].count("correct") == 16
    assert [cf.family_of(i) for i in range(4, 54, 5)] == list(cf.FAMILIES[1:]) * 2


def test_the_kernels_parse_and_use_the_grammar():
    kernels = cf.generate(0, list(range(200)))
    for k in kernels:
        ast.parse(k.text)
    text = "\n".join(k.what for k in kernels)
    for word in ["scalar prefetch", "partial", "named map", "semantics", "2 input(s)", "None"]:
        assert word in text, word
    grids = {len(ast.literal_eval(k.what.split(" grid ")[1].split(")")[0] + ")")) for k in kernels}
    assert grids == {1, 2, 3}, grids


def test_correct_kernels_clean_mistakes_flagged():
    """What JAX says is the benchmark's; here: no error on a kernel written correct, a
    contract error on each kernel with a mistake (the tiling mistakes: where the block is
    not the whole dimension, JAX's rule)."""
    for k in cf.generate(5, list(range(60))):
        errors, warnings = cf.check(k)
        if k.family == "correct":
            assert not errors and not warnings, (k.seed, errors, warnings, k.what)
        else:
            assert any(e[3] in "12" for e in errors), (k.seed, k.family, errors, k.what)


def test_scoring():
    def outcome(family, jax, code=None, errors=(), warnings=()):
        return cf.Outcome(0, "0:0", family, "", jax, code, None, None, list(errors), list(warnings))

    assert outcome("correct", "ok", errors=["PAL201:3"]).verdict() == "false-error"
    assert outcome("correct", "ok", warnings=["PAL105:3"]).verdict() == "false-warning"
    assert outcome("correct", "error", "PAL201").verdict() == "grammar"
    assert outcome("correct", "error", None).verdict() == "other"
    assert outcome("map-arity", "error", "PAL102", ["PAL102:9"]).verdict() == "agree"
    assert outcome("map-arity", "error", "PAL102", ["PAL406:9"]).verdict() == "miss"
