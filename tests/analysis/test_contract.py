"""The pallas_call contract rules (PAL1xx, PAL2xx) against the JAX-verified corpus in
`tests/contract/`: every finding sits on a line marked `# expect: CODE` with that code,
every broken module gets at least one, every correct module none.  (The oracle test
`tests/oracle/test_contract_oracle.py` proves JAX rejects exactly the marked modules.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pallas_lsp.analysis.engine import analyze_source

from .helpers import analyze, found

CONTRACT = Path(__file__).resolve().parents[1] / "contract"
MODULES = sorted(CONTRACT.glob("pal*.py"))
_EXPECT = re.compile(r"#\s*expect:\s*(PAL\d+(?:\s*,\s*PAL\d+)*)")


def expected(path: Path) -> set[tuple[int, str]]:
    out = set()
    for i, line in enumerate(path.read_text().splitlines(), 1):
        m = _EXPECT.search(line)
        if m:
            out |= {(i, code.strip()) for code in m.group(1).split(",")}
    return out


def reported(path: Path) -> set[tuple[int, str]]:
    return {(f.span.line + 1, f.code) for f in analyze_source(path.read_text(), str(path))}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_contract_corpus(path):
    want, got = expected(path), reported(path)
    assert got <= want, f"findings on lines JAX does not mark: {sorted(got - want)}"
    if want:
        assert got, f"JAX rejects this module ({sorted(want)}) but nothing is reported"


def test_contract_recall():
    """Most marked lines are found; the rest need an input's shape the code does not give."""
    want = got = 0
    for path in MODULES:
        e = expected(path)
        want += len(e)
        got += len(e & reported(path))
    assert want and got / want >= 0.8, f"{got}/{want} marked lines found"


def test_kernel_arity_message_names_what_each_parameter_receives():
    src = """
        import jax
        import jax.numpy as jnp
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        def kernel(x_hbm, o_ref, buf, sem):
            pltpu.sync_copy(x_hbm, buf)

        def run(x):
            return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                                  in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                                  scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)])(x)
    """
    [f] = analyze(src)
    assert (f.code, f.span.line + 1) == ("PAL101", 6)
    assert "`sem` gets nothing" in f.message
    assert "`x_hbm` ← input 1" in f.message and "`buf` ← scratch 1" in f.message


def test_unknown_shapes_and_counts_are_silent():
    src = """
        import jax
        from jax.experimental import pallas as pl

        def kernel(*refs):
            pass

        def run(x, specs, out_shape, grid):
            spec = pl.BlockSpec((4, 100), lambda i: (i, 0))   # the input's shape is unknown
            return pl.pallas_call(kernel, out_shape=out_shape, grid=grid, in_specs=[spec],
                                  out_specs=specs)(x)
    """
    assert found(src) == []
