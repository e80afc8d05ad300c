"""body_mutants.py / body_families.py: the mutations they write and how JAX's records are
read, without JAX (the `--jax` run is the benchmark's, not a test's)."""

import ast
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCH))

import body_families as bf
import body_mutants as bm
from contract_mutants import Editor


def test_every_family_mutates_the_corpora_and_keeps_its_lines():
    mutants = bm.mutants()
    assert {m.family for m in mutants} == set(bf.FAMILIES)
    for m in mutants:
        original = m.source.read_text()
        assert m.text != original, m.name
        assert m.text.count("\n") == original.count("\n"), m.name
        ast.parse(m.text)


def _edits(family: str, source: str) -> list[str]:
    return [e.text for e in bf.FAMILIES[family](ast.parse(source), Editor(source))]


KERNEL = '''def kernel(q_ref, k_ref, o_ref):
    s = jnp.dot(q_ref[...], k_ref[...].T, preferred_element_type=jnp.float32)
    m = jnp.max(s, axis=-1,
                keepdims=True)
    o_ref[...] = (s - m).reshape(8, 128).astype(o_ref.dtype)


def reference(q, k):
    return jnp.dot(q, k.T)
'''


def test_each_family_edits_only_kernel_bodies():
    assert _edits("swap-dot", KERNEL) == [KERNEL.replace("q_ref[...], k_ref[...].T", "k_ref[...].T, q_ref[...]")]
    assert _edits("transpose-other", KERNEL) == [KERNEL.replace("q_ref[...], k_ref[...].T", "q_ref[...].T, k_ref[...]")]
    assert _edits("drop-preferred", KERNEL) == [KERNEL.replace(", preferred_element_type=jnp.float32", "")]
    assert _edits("drop-keepdims", KERNEL) == [KERNEL.replace(",\n                keepdims=True", "\n")]
    assert _edits("change-reshape", KERNEL) == [KERNEL.replace("reshape(8, 128)", "reshape(8, 128 * 2)")]
    assert _edits("drop-astype", KERNEL) == [KERNEL.replace(".reshape(8, 128).astype(o_ref.dtype)",
                                                            ".reshape(8, 128)")]


def test_a_lowering_failure_of_the_module_as_written_is_not_the_mutant_s():
    control = {"status": "ok", "lowering": [{"message": "Unsupported TPU device kind: cpu", "line": 9}]}
    same = {"status": "ok", "lowering": control["lowering"]}
    new = {"status": "ok", "lowering": [*control["lowering"], {"message": "'tpu.matmul' op", "line": 5}]}
    assert bm.verdict(same, control) == bm.Verdict(False)
    assert bm.verdict(new, control) == bm.Verdict(True, 5, "'tpu.matmul' op", "lowering")
    assert bm.verdict({"status": "error", "exc_type": "AssertionError", "line": 30}, control) == bm.Verdict(False)
    assert bm.verdict(same, {"status": "error"}) is None
