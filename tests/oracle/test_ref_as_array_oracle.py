"""PAL410 (a ref used where an array goes), line by line against JAX: each snippet is
one line of a small kernel (`x_ref` a (128, 128) f32 input, `v = x_ref[...]`); JAX traces
it, and pallas-lsp must report JAX's first line (the part before its own explanation),
or stay silent where the snippet is marked so."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pallas_lsp.analysis.engine import analyze_source

RUNNER = Path(__file__).resolve().parents[1] / "body" / "ops_verdicts.py"
TEMPLATE = '''import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, s_ref):
    v = x_ref[...]
    {line}
    o_ref[...] = v


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((128, 128), jnp.float32),
                          scratch_shapes=[pltpu.VMEM((128, 128), jnp.float32)], interpret=True)(x)


def trace():
    return run(jnp.ones((128, 128), jnp.float32))
'''
# (line, whether pallas-lsp reports it)
SNIPPETS = {
    "dot": ("y = jnp.dot(x_ref, v)", True), "matmul_1": ("y = jnp.matmul(v, x_ref)", True),
    "einsum_1": ('y = jnp.einsum("ij,jk->ik", v, x_ref)', True), "exp": ("y = jnp.exp(x_ref)", True),
    "abs": ("y = jnp.abs(x_ref)", True), "mod": ("y = jnp.mod(x_ref, 2.0)", True),
    "divide": ("y = jnp.divide(v, x_ref)", True), "sum": ("y = jnp.sum(x_ref, axis=0)", True),
    "mean": ("y = jnp.mean(x_ref, axis=-1, keepdims=True)", True), "maximum": ("y = jnp.maximum(x_ref, 0.0)", True),
    "where": ("y = jnp.where(v > 0, x_ref, 0.0)", True), "stack": ("y = jnp.stack([v, x_ref])", True),
    "concatenate": ("y = jnp.concatenate([x_ref, v])", True), "reshape": ("y = jnp.reshape(x_ref, (64, 256))", True),
    "add": ("y = x_ref + v", True), "pow": ("y = x_ref ** 2", True), "matmul_op": ("y = x_ref @ v", True),
    "radd": ("y = 1 + x_ref", True), "rsub": ("y = 2.0 - x_ref", True), "rtruediv": ("y = 2.0 / x_ref", True),
    "rpow": ("y = 2.0 ** x_ref", True), "array_mul": ("y = v * x_ref", True), "array_sub": ("y = v - x_ref", True),
    "array_matmul": ("y = v @ x_ref", True), "lt": ("y = x_ref < v", True), "ge_reflected": ("y = v >= x_ref", True),
    "lt_number": ("y = 0.0 < x_ref", True), "store": ("s_ref[...] = x_ref", True),
    "augmented": ("o_ref[...] += x_ref", True),
    "view_dot": ("y = jnp.dot(x_ref.at[0:8], v.T)", True), "view_add": ("y = x_ref.at[0:8] + 1.0", False),
    "view_store": ("o_ref[...] = x_ref.at[...]", False),
    "zeros_like": ("y = jnp.zeros_like(x_ref)", False), "transpose_ref": ("y = x_ref.T", False),
}


def _write(tmp_path: Path) -> dict[str, Path]:
    paths = {}
    for name, (line, _) in SNIPPETS.items():
        paths[name] = tmp_path / f"ref_{name}.py"
        paths[name].write_text(TEMPLATE.format(line=line))
    return paths


def _jax_first_line(message: str) -> str:
    return message.replace("<class 'jax._src.interpreters.partial_eval.DynamicJaxprTracer'>",
                           "<class '...DynamicJaxprTracer'>").replace(
        "<class 'jax._src.state.types.TransformedRef'>", "<class '...TransformedRef'>")


def test_pal410_reports_jax_words_on_jax_line(tmp_path):
    if importlib.util.find_spec("jax") is None:
        pytest.skip("JAX is not installed: pip install -e '.[oracle]'")
    paths = _write(tmp_path)
    proc = subprocess.run([sys.executable, str(RUNNER), *map(str, paths.values())], check=False, capture_output=True,
                          text=True, env=dict(os.environ, JAX_PLATFORMS="cpu"), timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    verdicts = {r["module"]: r for r in map(json.loads, filter(lambda s: s.startswith("{"), proc.stdout.splitlines()))}
    for name, path in paths.items():
        rec = verdicts[path.stem]
        found = [f for f in analyze_source(path.read_text(), str(path)) if f.code == "PAL410"]
        if name in ("zeros_like", "transpose_ref"):
            assert rec["status"] == "ok" and not found, (name, rec, found)
            continue
        assert rec["status"] == "error" and rec["line"] == 9, (name, rec)
        if not SNIPPETS[name][1]:
            assert not found, (name, found)
            continue
        assert len(found) == 1 and found[0].span.line + 1 == 9, (name, found)
        assert found[0].message.split(" — ")[0] == _jax_first_line(rec["message"]), (name, found[0].message, rec)
