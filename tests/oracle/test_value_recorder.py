"""The value oracle: what ``value_recorder.py`` records for kernel-body names (JAX is the
truth; needs JAX), and how ``benchmarks/value_accuracy.py`` compares claims with it."""

import importlib.util
import sys

import pytest
from oracle_lib import REPO, jax_available

_spec = importlib.util.spec_from_file_location(
    "value_accuracy", REPO / "benchmarks" / "value_accuracy.py")
va = importlib.util.module_from_spec(_spec)
sys.modules["value_accuracy"] = va  # dataclasses look their module up
_spec.loader.exec_module(va)

KERNELS = REPO / "tests" / "values" / "value_kernels.py"
F32, BF16, I32 = "float32", "bfloat16", "int32"


def _a(shape, dtype, weak=False):
    return va.Aval(tuple(shape), dtype, weak)


# (line, name) -> every aval JAX gives the name there, in the order met.
EXPECTED = {
    (21, "k"): [_a((), I32)],                       # pl.program_id(2); num_programs: an int
    (28, "acc"): [_a((16, 128), F32)],              # bf16 dot, f32 accumulation
    (33, "out"): [_a((16, 128), BF16)],             # inside the pl.when epilogue
    (52, "mean"): [_a((8, 1), F32)],                # in the helper _center
    (57, "x"): [_a((8, 128), F32)],
    (58, "s"): [_a((), F32, weak=True)],            # a Python float: weakly typed
    (59, "mean"): [_a((8, 1), F32)],                # keepdims=True
    (60, "xc"): [_a((8, 128), F32)],
    (61, "var"): [_a((8, 1), F32)],                 # annotated assignment
    (62, "inv"): [_a((8, 1), F32)],
    (64, "h"): [_a((8, 128), BF16)],
    (65, "scaled"): [_a((8, 128), BF16)],           # bf16 * Python float stays bf16
    (66, "neg"): [_a((), F32)],                     # jnp.finfo(...).min: a numpy float32
    (67, "y"): [_a((8, 128), F32)],                 # tuple unpacking over two lines
    (67, "z"): [_a((8, 1), F32)],
    (69, "y"): [_a((8, 128), F32)],                 # y += z
    (70, "res"): [_a((8, 128), F32)],               # := inside a store
    (84, "row"): [_a((1, 128), F32)],               # lax.fori_loop body
    (85, "carry"): [_a((1, 128), F32)],
    (88, "init"): [_a((1, 128), F32)],
    (89, "total"): [_a((1, 128), F32)],
    # traced twice (f32 (16, 128), then int32 (24, 128)); `part` in an unrolled loop
    (102, "first"): [_a((16, 128), F32), _a((24, 128), I32)],
    (104, "part"): [_a((8, 128), F32), _a((16, 128), F32), _a((8, 128), I32),
                    _a((16, 128), I32)],
}


@pytest.fixture(scope="module")
def traced():
    if not jax_available():
        pytest.skip("JAX is not installed: pip install -e '.[oracle]'")
    rec = va.record_values([KERNELS], jobs=1)[str(KERNELS.resolve())]
    assert rec["status"] == "ok", rec
    return va.traced_values([rec])


def test_recorded_avals_are_jaxs(traced):
    got = {(t.line, t.name): list(t.avals) for t in traced}
    assert got == EXPECTED


def test_columns_point_at_the_target_names(traced):
    lines = KERNELS.read_text().splitlines()
    for t in traced:
        assert lines[t.line - 1][t.col:].startswith(t.name), (t.line, t.col, t.name)
    cols = {(t.line, t.name): t.col for t in traced}
    assert cols[(67, "y")] == 4 and cols[(67, "z")] == 7


def test_refs_ints_and_loop_targets_are_not_recorded(traced):
    names = {t.name for t in traced}
    # nk / rows / n are Python ints, `k` of the `for` a loop target, refs never assigned
    assert not names & {"nk", "rows", "n", "i"}


# -- compare -------------------------------------------------------------------------

P = "/src/k.py"


def _traced(line, name, *avals):
    return va.TracedValue(P, line, 4, name, tuple(avals))


def _claim(line, name, shape=None, dtype=None, weak=None):
    return va.ClaimedValue(P, line, 4, name, shape, dtype, weak)


def claims_for(path):
    """A stand-in for pallas-lsp's side: fixed claims for the one file."""
    return [
        _claim(1, "acc", (8, 128), F32, False),       # agrees, known
        _claim(2, "x", (8, 128), BF16),               # wrong dtype
        _claim(3, "m", ("bm", 1), F32),               # named dim: agrees, not known
        _claim(4, "p", (8, 128), F32),                # several avals, differing shapes
        _claim(5, "q", ("rows", 128), F32),           # the same with a named dim
        _claim(6, "s", (), F32, False),               # JAX's is weak
        _claim(8, "ghost", (1,), I32),                # JAX recorded nothing there
        _claim(9, "u"),                               # nothing claimed
    ] if path == P else []


def test_compare_counts_and_disagreements():
    traced = [
        _traced(1, "acc", _a((8, 128), F32)),
        _traced(2, "x", _a((8, 128), F32)),
        _traced(3, "m", _a((16, 1), F32)),
        _traced(4, "p", _a((8, 128), F32), _a((16, 128), F32)),
        _traced(5, "q", _a((8, 128), F32), _a((16, 128), F32)),
        _traced(6, "s", _a((), F32, weak=True)),
        _traced(7, "unclaimed", _a((), I32)),
        _traced(9, "u", _a((), I32)),
    ]
    got = va.compare(traced, claims_for(P))
    assert (got.traced, got.claimed, got.known, got.agree, got.disagree, got.unmatched) == (
        8, 6, 4, 3, 3, 1)
    assert got.coverage == 4 / 8
    assert [(d.traced.line, d.traced.name) for d in got.disagreements] == [
        (2, "x"), (4, "p"), (6, "s")]
    assert str(got.disagreements[0]) == (
        f"{P}:2 x: ours shape=(8, 128) dtype=bfloat16 weak=None; "
        "JAX shape=(8, 128) dtype=float32 weak=False")


def test_agrees_part_by_part():
    aval = _a((8, 128), F32)
    assert va.agrees(_claim(1, "v", dtype=F32), aval)
    assert va.agrees(_claim(1, "v", shape=("?", "?")), aval)
    assert not va.agrees(_claim(1, "v", shape=(8,)), aval)         # rank
    assert not va.agrees(_claim(1, "v", shape=(8, "bn"), weak=True), aval)
    assert not va.agrees(_claim(1, "v", shape=("b", 128)), _a(("b", 128), F32))  # symbolic


def test_a_file_traced_through_two_modules_merges_its_avals():
    value = {"path": P, "line": 3, "col": 4, "name": "v"}
    recs = [{"values": [dict(value, avals=[{"shape": [8], "dtype": F32, "weak": False}])]},
            {"values": [dict(value, avals=[{"shape": [8], "dtype": F32, "weak": False},
                                           {"shape": [16], "dtype": F32, "weak": False}])]}]
    (t,) = va.traced_values(recs)
    assert t.avals == (_a((8,), F32), _a((16,), F32))


def test_the_table_counts_per_corpus_and_in_total(capsys):
    value = {"path": P, "line": 1, "col": 4, "name": "acc",
             "avals": [{"shape": [8, 128], "dtype": F32, "weak": False}]}
    records = [{"status": "ok", "values": [value]}, {"status": "hang", "values": []}]
    row = va.corpus_row("corpus", records, claims_for)
    assert (row.modules, row.statuses, len(row.traced)) == (2, {"ok": 1, "hang": 1}, 1)
    assert (row.agreement.known, row.agreement.agree, row.agreement.unmatched) == (1, 1, 6)
    total = va.total_row([row, va.corpus_row("values", records[:1], claims_for)])
    assert (total.modules, total.agreement.traced, total.agreement.agree) == (3, 2, 2)
    va.print_table([row, total])
    out = capsys.readouterr().out.splitlines()
    assert out[1].split()[:8] == ["corpus", "2", "1", "1", "1", "1", "0", "100.0%"]


def test_pallas_lsp_agrees_with_jax_on_every_value_it_claims(traced):
    """The shapes and dtypes hover and inlay hints show for these kernels, against JAX's."""
    agreement = va.compare(traced, va.pallas_lsp_claims(str(KERNELS)))
    assert agreement.disagree == 0, [str(d) for d in agreement.disagreements]
    assert agreement.known >= 18, agreement
