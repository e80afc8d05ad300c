"""contract_mutants.py without JAX: the mutations it writes, and that the analyzer flags
them on the right line (the `--jax` run asks JAX for each verdict; not here)."""

import ast
import sys
import textwrap
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCH))

import contract_mutants as cm

GRID2 = cm.CONTRACT / "pal102_grid2_map1_ok.py"   # add over a (4, 2) grid of (8, 128) blocks


def _mutants(path=GRID2, entry="jax_check"):
    return cm.module_mutants(cm.Source(path, entry))


def _kinds(mutants):
    return {f"{m.family}/{m.kind}" for m in mutants}


def test_every_family_mutates_a_small_module_and_keeps_its_lines():
    ms = _mutants()
    assert _kinds(ms) >= {
        "kernel-params/drop-param", "kernel-params/add-param",
        "block-dims/lanes-100", "block-dims/lanes-minus-1", "block-dims/rows-4", "block-dims/drop-dim",
        "grid-rank/add-axis", "grid-rank/drop-axis",
        "index-map/add-arg", "index-map/drop-arg", "index-map/add-result", "index-map/drop-result",
    }
    original = GRID2.read_text()
    for m in ms:
        ast.parse(m.source)
        assert m.source != original
        assert m.source.count("\n") == original.count("\n"), m.label


def test_the_analyzer_flags_the_mutants_on_their_line():
    """Scored as if JAX rejected every one (the module's arrays are all known here)."""
    ms = _mutants()
    for m in ms:
        cm.score(m, set(), None)
    missed = [m.label for m in ms if not m.result["flagged"]]
    assert not missed
    assert all(not m.result["false"] for m in ms)


def test_the_edits_themselves():
    src = textwrap.dedent("""\
        def kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        def run(x):
            return pl.pallas_call(
                kernel, out_shape=S, grid=(4, 2),
                in_specs=[pl.BlockSpec((BM, BN), lambda i, j: (i, j))],
                out_specs=pl.BlockSpec((BM, BN), lambda i, j: (i, j)),
            )(x)
        """)
    ed, tree = cm.Editor(src), ast.parse(src)
    [fn] = cm.kernel_defs(tree)
    assert cm.drop_param(ed, fn).splitlines()[0] == "def kernel(x_ref):"
    assert cm.add_param(ed, fn, "extra_ref").splitlines()[0] == "def kernel(x_ref, o_ref, extra_ref):"
    line = {(m[1], m[2]): m[3].splitlines()[m[2] - 1].strip()
            for gen in (cm.block_mutants(ed, tree, True), cm.grid_mutants(ed, tree), cm.index_map_mutants(ed, tree))
            for m in gen}
    assert line["lanes-minus-1", 7] == "in_specs=[pl.BlockSpec((BM, BN - 1), lambda i, j: (i, j))],"
    assert line["rows-4", 7] == "in_specs=[pl.BlockSpec((4, BN), lambda i, j: (i, j))],"
    assert line["add-axis", 6] == "kernel, out_shape=S, grid=(4, 2, 2),"
    assert line["drop-axis", 6] == "kernel, out_shape=S, grid=(4,),"
    assert line["drop-result", 7] == "in_specs=[pl.BlockSpec((BM, BN), lambda i, j: (i,))],"
    assert line["add-arg", 8] == "out_specs=pl.BlockSpec((BM, BN), lambda i, j, extra: (i, j)),"
    # a tiling change applies to every spec that writes the dim the same way
    lanes = next(m for m in cm.block_mutants(ed, tree, True) if m[1] == "lanes-100")
    assert lanes[3].count("(BM, 100)") == 2


def test_emit_pipeline_specs_are_not_pallas_call_contract():
    src = textwrap.dedent("""\
        def kernel(a_hbm, o_hbm):
            spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
            pltpu.emit_pipeline(body, grid=(1,), in_specs=[spec], out_specs=[spec])(a_hbm, o_hbm)
        """)
    tree = ast.parse(src)
    assert cm.block_specs(tree) == []
    assert list(cm.grid_mutants(cm.Editor(src), tree)) == []


def test_jax_verdicts_are_sorted_into_rules():
    tree = ast.parse(GRID2.read_text())
    err = {"status": "error"}
    assert cm.jax_code({**err, "message": "add_kernel() takes 3 positional arguments but 4 were given"},
                       tree) == "PAL101"
    assert cm.jax_code({**err, "message": "add.<locals>.<lambda>() missing 1 required positional argument: 'j'"},
                       tree) == "PAL102"
    assert cm.jax_code({**err, "message": "Axis 1 is out of bounds for grid (8,)"}, tree) == "PAL107"
    assert cm.jax_code({**err, "message": "Invalid shape for `swap`."}, tree) is None
    assert cm.jax_code({"status": "ok"}, tree) is None


def test_a_finding_on_a_mutant_jax_accepts_is_a_false_error():
    m = next(m for m in _mutants() if m.kind == "lanes-100")
    cm.score(m, set(), {"status": "ok"})
    assert m.result["verdict"] == "accepted" and m.result["false"]


def test_a_grid_mutant_is_repaired_for_jax_s_next_error():
    src = textwrap.dedent("""\
        def kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...] * pl.program_id(1)

        def run(x):
            return pl.pallas_call(
                kernel, out_shape=S, grid=(4,),
                in_specs=[pl.BlockSpec((8, 128), lambda i, j: (i, j))],
                out_specs=pl.BlockSpec((8, 128), lambda i, j: (i, j)),
            )(x)
        """)
    m = cm.Mutant("grid-rank", "drop-axis", Path("k.py"), 6, src, {})
    maps_only = cm.repair_grid(m, axes=False).splitlines()
    assert maps_only[6].strip() == \
        "in_specs=[pl.BlockSpec((8, 128), (lambda *a: (lambda i, j: (i, j))(*a[:1], 0, *a[1:])))],"
    assert "pl.program_id(1)" in maps_only[1]
    both = cm.repair_grid(m, axes=True).splitlines()
    assert both[1].strip() == 'o_ref[...] = x_ref[...] * __import__("jax").numpy.int32(0)'
