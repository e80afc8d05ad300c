"""The Pallas API model: every registry entry is used by a kernel JAX traces, every index
keeper keeps its dimension in the fixes and the messages, and everything derived from the
registry (star-import surface, creator words, CLI prefilter, docs table) follows it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from pallas_lsp.analysis.arrays.table import operations_table
from pallas_lsp.analysis.fixes import apply_edits, fix_all_edits, split_lines
from pallas_lsp.analysis.interp.syntax import import_bindings
from pallas_lsp.analysis.pallas.derived import (
    CANDIDATE,
    CREATORS,
    KNOWN_NAMES,
    supported_api_table,
)
from pallas_lsp.analysis.pallas.model import ApiKind, Binding
from pallas_lsp.analysis.pallas.registry import ENTRIES, LEGACY, REGISTRY, entries_of
from pallas_lsp.analysis.symbols import canonical

from .helpers import analyze, dedent

ROOT = Path(__file__).resolve().parents[2]
# The modules JAX runs: the corpus and the examples (tests/oracle/test_oracle.py) and the
# correct contract kernels (tests/oracle/test_contract_oracle.py).
TRACED = [p for p in sorted((ROOT / "tests" / "corpus").rglob("*.py")) + sorted((ROOT / "examples").glob("*.py"))
          if "def trace(" in p.read_text() or "def main(" in p.read_text() or p.parent.name == "pkg"] \
    + sorted((ROOT / "tests" / "contract").glob("*_ok.py"))
# Entries no CPU-only JAX can trace: the Mosaic GPU family needs a GPU backend.
NEEDS_GPU = {name for name in REGISTRY if name.startswith("plgpu.")}
NOT_IN_ORACLE_JAX = NEEDS_GPU | LEGACY


def _names_used(tree: ast.Module) -> set[str]:
    """Canonical dotted names the module spells (through its imports), e.g. `pl.ds`."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for name, qname in import_bindings(node):
                if qname is not None:
                    aliases[name] = qname
    used: set[str] = set()
    for node in ast.walk(tree):
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name):
            base = aliases.get(node.id, node.id)
            used.add(canonical(".".join([base, *reversed(parts)])))
    return used


def _corpus_names() -> set[str]:
    used: set[str] = set()
    for path in TRACED:
        used |= _names_used(ast.parse(path.read_text()))
    return used


def test_every_entry_is_used_by_a_traced_kernel():
    """Adding an API is one entry plus its kernels: the oracle traces every corpus module,
    so an entry no corpus kernel spells has never been checked against JAX."""
    used = _corpus_names()
    missing = sorted(name for name in REGISTRY if name not in used and name not in NOT_IN_ORACLE_JAX)
    assert not missing, f"registry entries no traced corpus kernel uses: {missing}"


def test_entries_are_unique_and_every_kind_has_a_handler():
    from pallas_lsp.analysis.pallas import dispatch

    assert len(REGISTRY) == len(ENTRIES)
    for entry in ENTRIES:
        assert entry.kind is ApiKind.INVOKER or entry.kind in dispatch._BY_KIND, entry


def test_derived_tables_follow_the_registry():
    for name in REGISTRY:
        if name.split(".")[0] in ("pl", "pltpu", "plgpu"):
            assert name in KNOWN_NAMES
    assert CREATORS.search("sems = pltpu.SemaphoreType.DMA((2,))")
    assert CREATORS.search("pl.run_scoped(body, pltpu.VMEM((8,), f32))")
    assert not CREATORS.search("pl.semaphore_signal(sem)")
    for entry in entries_of(ApiKind.INVOKER):   # a call with a record (contract, hover) is an entry
        if entry.binding in (Binding.PALLAS_CALL, Binding.KERNEL):
            assert CREATORS.search(f"out = {entry.name}(body, out_shape)(x)"), entry.name
    for entry in entries_of(ApiKind.CHECKED_CALL):
        assert CANDIDATE.search(entry.name.rsplit(".", 1)[-1].encode())
    table = supported_api_table()
    for name in REGISTRY:
        assert f"`{name}`" in table


def test_docs_tables_are_current():
    """docs/api.md carries the generated tables (regenerate: python -m pallas_lsp.analysis.pallas.docs)."""
    text = (ROOT / "docs" / "api.md").read_text()
    assert supported_api_table() in text
    assert operations_table() in text


KEEPERS = [e.name for e in entries_of(ApiKind.INDEX_KEEPER)]


def _keeper_call(name: str) -> str:
    short = name.rsplit(".", 1)[-1]
    return f"pl.{short}(0, 2)" if name.startswith("pl.") else f"{short}(0, 2)"


@pytest.mark.parametrize("keeper", KEEPERS)
def test_every_index_keeper_keeps_its_dimension_in_the_fix_and_the_message(keeper):
    """`sems.at[pl.dslice(0, 2)]` is a (2,) view: the fix chains `.at[0]` after it (it
    must not append a second index into the same brackets), and the message says so."""
    view = f"sems.at[{_keeper_call(keeper)}]"
    src = dedent(f"""
        import jax
        import jax.numpy as jnp
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        def kernel(x_hbm, o_hbm, buf, sems):
            pltpu.make_async_copy(x_hbm, buf, {view}).start()

        def run(x):
            return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                                  scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32),
                                                  pltpu.SemaphoreType.DMA((4,))])(x)
    """)
    findings = analyze(src)
    assert [(f.code, f.shape) for f in findings] == [("PAL001", (2,))]
    assert f"`{view}.at[0]`" in findings[0].message
    fixed = apply_edits(src, fix_all_edits(findings, split_lines(src), unsafe=True))
    assert f"{view}.at[0]" in fixed
    assert analyze(fixed) == []
