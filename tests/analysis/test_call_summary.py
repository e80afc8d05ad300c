"""The summary of a `pallas_call` (hover): grid, one row per operand, and the VMEM its
blocks and scratch take, exactly where the code gives the shapes and dtypes."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pallas_lsp.analysis.contract.layout import RefRole
from pallas_lsp.analysis.contract.summary_text import render, size_text
from pallas_lsp.analysis.engine import ModuleAnalyzer

from .helpers import dedent

KIB = 1024

# A scalar-prefetch gather: prefetch, a squeezed block, an ANY operand, VMEM scratch,
# semaphores, a tuple out_shape.
GATHER = """
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def gather_kernel(idx_ref, x_ref, table_hbm, o_ref, stats_ref, buf, acc, sems):
    pltpu.make_async_copy(table_hbm.at[idx_ref[0]], buf, sems.at[0]).start()
    pltpu.make_async_copy(table_hbm.at[idx_ref[0]], buf, sems.at[0]).wait()
    o_ref[...] = x_ref[...] + buf[...]
    stats_ref[...] = acc[...]


def run(idx, x, table):
    return pl.pallas_call(
        gather_kernel,
        out_shape=(jax.ShapeDtypeStruct((16, 1024, 512), jnp.bfloat16),
                   jax.ShapeDtypeStruct((8, 128), jnp.float32)),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(16, 4),
            in_specs=[pl.BlockSpec((None, 256, 512), lambda b, i, idx: (b, i, 0)),
                      pl.BlockSpec(memory_space=pl.ANY)],
            out_specs=[pl.BlockSpec((None, 256, 512), lambda b, i, idx: (b, i, 0)),
                       pl.BlockSpec((8, 128), lambda b, i, idx: (0, 0))],
            scratch_shapes=[pltpu.VMEM((256, 512), jnp.bfloat16), pltpu.VMEM((8, 128), jnp.float32),
                            pltpu.SemaphoreType.DMA((2,))],
        ),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
    )(idx, x, table)


def test():
    idx = jnp.zeros((16,), jnp.int32)
    x = jnp.ones((16, 1024, 512), jnp.bfloat16)
    table = jnp.ones((64, 256, 512), jnp.bfloat16)
    return run(idx, x, table)
"""


def summary_of(src: str, needle: str = "pallas_call(", versions: int | None = None):
    text = dedent(src)
    analyzer = ModuleAnalyzer()
    analyzer.analyze(text)
    for line, content in enumerate(text.split("\n")):
        col = content.find(needle)
        if col >= 0:
            found = analyzer.call_at(line, col + 1)
            assert found is not None
            if versions is not None:
                assert found[1] == versions
            return found[0]
    raise AssertionError(needle)


def test_prefetch_grid_spec_squeezed_any_scratch_and_semaphores():
    s = summary_of(GATHER)
    assert (s.invoker, s.kernel, s.grid, s.semantics, s.n_prefetch) == \
        ("pl.pallas_call", "gather_kernel", (16, 4), ("parallel", "arbitrary"), 1)
    rows = {r.param: r for r in s.operands}
    assert list(rows) == ["idx_ref", "x_ref", "table_hbm", "o_ref", "stats_ref", "buf", "acc", "sems"]
    idx, x, table, out, stats = (rows[k] for k in ("idx_ref", "x_ref", "table_hbm", "o_ref", "stats_ref"))
    assert (idx.role, idx.space, idx.buffers) == (RefRole.SCALAR_PREFETCH, "SMEM", 0)
    # (None, 256, 512) bf16: the squeezed dim is one row of the block.
    assert (x.block, x.space, x.buffers, x.nbytes) == ((None, 256, 512), "VMEM", 2, 256 * 512 * 2)
    assert (table.space, table.buffers, table.shape) == ("ANY", 0, (64, 256, 512))
    assert (out.role, out.shape, out.dtype, out.buffers, out.nbytes) == \
        (RefRole.OUTPUT, (16, 1024, 512), "jnp.bfloat16", 2, 256 * KIB)
    # The whole (8, 128) array, index map of literal zeros: JAX's trivial window, one buffer.
    assert (stats.buffers, stats.nbytes) == (1, 4 * KIB)
    buf, acc, sems = rows["buf"], rows["acc"], rows["sems"]
    assert (buf.role, buf.space, buf.buffers, buf.nbytes) == (RefRole.SCRATCH, "VMEM", 1, 256 * KIB)
    assert (acc.buffers, acc.nbytes) == (1, 4 * KIB)
    assert (sems.space, sems.buffers, sems.semaphore.dims) == ("semaphore", 0, (2,))
    assert s.total.exact
    assert s.total.nbytes == 2 * 256 * KIB + 2 * 256 * KIB + 4 * KIB + 256 * KIB + 4 * KIB


def test_the_rendering_says_what_jax_shows():
    text = render(summary_of(GATHER))
    assert "grid `(16, 4)`, `dimension_semantics` `(\"parallel\", \"arbitrary\")`; 1 scalar-prefetch operand" in text
    assert "| input 1 | `x_ref` | `bf16[16, 1024, 512]` | `(None, 256, 512)` | VMEM | " \
           "`lambda b, i, idx: (b, i, 0)` | 2 × 256 KiB |" in text
    assert "| input 2 | `table_hbm` | `bf16[64, 256, 512]` | — | ANY | — | — |" in text
    assert "| scratch 3 | `sems` | DMA semaphore `(2,)` | — | semaphore | — | — |" in text
    assert "| `(8, 128)` | VMEM | `lambda b, i, idx: (0, 0)` | 1 × 4 KiB (the whole array: one buffer) |" in text
    assert "VMEM: **1.26 MiB** (VMEM blocks double-buffered, scratch once" in text   # 1,288 KiB


MATMUL = """
import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def matmul_kernel(x_ref, y_ref, o_ref, acc_ref):
    acc_ref[...] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)
    o_ref[...] = acc_ref[...].astype(o_ref.dtype)


@functools.partial(jax.jit, static_argnames=("bm", "bk", "bn"))
def matmul(x, y, bm: int = 128, bk: int = 128, bn: int = 128):
    m, k = x.shape
    _, n = y.shape
    return pl.pallas_call(
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        grid=(m // bm, n // bn, k // bk),
        in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
                  pl.BlockSpec((bk, bn), lambda i, j, k: (k, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
    )(x, y)
"""


def test_unknown_shapes_are_said_not_guessed():
    s = summary_of(MATMUL)
    assert s.grid == "(m // bm, n // bn, k // bk)"
    assert [r.nbytes for r in s.operands] == [None] * 4
    assert (s.total.nbytes, s.total.unknown_size) == (0, 4)
    text = render(s)
    assert "VMEM: not known; 4 operands of unknown size" in text
    assert "| output 1 | `o_ref` | `(m, n)` `x.dtype` | `(bm, bn)` | VMEM |" in text


def test_known_blocks_of_unknown_dtype_give_a_lower_bound():
    src = MATMUL.replace("(bm, bk)", "(128, 256)").replace("(bk, bn)", "(256, 128)") \
        .replace("(bm, bn)", "(128, 128)")
    s = summary_of(src)
    # Inputs: blocks known, dtype of x and y not; scratch f32 (128, 128) is known.
    assert [r.nbytes for r in s.operands] == [None, None, None, 64 * KIB]
    assert (s.total.nbytes, s.total.unknown_size) == (64 * KIB, 3)
    assert "VMEM: at least **64 KiB**; 3 operands of unknown size" in render(s)


ADD = """
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]

def add(x, y):
    return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x, y)

def test():
    return add(jnp.ones((8, 128), jnp.float32), jnp.ones((8, 128), jnp.float32))
"""


def test_no_grid_whole_arrays_are_single_buffered():
    src = ADD
    s = summary_of(src)
    assert s.grid == ()
    assert [(r.buffers, r.nbytes) for r in s.operands] == [(1, 4 * KIB)] * 3
    assert s.total.nbytes == 12 * KIB and s.total.exact
    assert "no grid (one step); 0 scalar-prefetch operands" in render(s)


def test_pipeline_mode_and_unknown_window_are_counted_once_and_said():
    src = """
        import jax
        import jax.numpy as jnp
        from jax.experimental import pallas as pl

        def k(x_ref, w_ref, o_ref):
            o_ref[...] = x_ref[...] * w_ref[...]

        def run(x, w):
            return pl.pallas_call(
                k, out_shape=jax.ShapeDtypeStruct((512, 256), jnp.float32), grid=(4,),
                in_specs=[pl.BlockSpec((128, 256), lambda i: (i, 0), pipeline_mode=pl.Buffered(1)),
                          pl.BlockSpec((8, 256), lambda i: (0, 0))],
                out_specs=pl.BlockSpec((128, 256), lambda i: (i, 0)),
            )(x, w)
    """
    s = summary_of(src)
    x, w, out = s.operands
    assert (x.buffers, x.note) == (None, "`pipeline_mode=pl.Buffered(1)`")
    # w's array shape is not given: (8, 256) may be the whole array (one buffer) or not.
    assert (w.buffers, w.nbytes) == (None, None)
    assert (out.buffers, out.nbytes) == (2, 128 * KIB)
    assert (s.total.nbytes, s.total.unknown_buffers, s.total.unknown_size) == (256 * KIB, 0, 2)


def test_pl_kernel_counts_only_its_scratch():
    src = """
        import jax
        import jax.numpy as jnp
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        def body(x_hbm, o_hbm, buf, sem):
            pltpu.make_async_copy(x_hbm, buf, sem).start()
            pltpu.make_async_copy(x_hbm, buf, sem).wait()

        def run(x, mesh):
            return pl.kernel(body, out_type=jax.ShapeDtypeStruct((64, 128), jnp.int8), mesh=mesh,
                             scratch_types=[pltpu.VMEM((64, 128), jnp.int8), pltpu.SemaphoreType.DMA])(x)
    """
    s = summary_of(src, "pl.kernel(")
    assert not s.gridded
    assert [(r.param, r.space, r.buffers) for r in s.operands] == \
        [("x_hbm", "ANY", 0), ("o_hbm", "ANY", 0), ("buf", "VMEM", 1), ("sem", "semaphore", 0)]
    assert s.total.nbytes == 8 * KIB and s.total.exact
    assert "scratch only: operands stay in HBM" in render(s)


def test_a_call_reached_two_ways_shows_the_one_the_code_says_most_about():
    s = summary_of(GATHER, versions=2)   # `run` alone (unknown operands), and from `test`
    assert s.operands[1].shape == (16, 1024, 512)


def test_size_text():
    assert [size_text(n) for n in (0, 1023, 1024, 1536, 320 * KIB, 3 * KIB * KIB // 2)] == \
        ["0 B", "1023 B", "1 KiB", "1.5 KiB", "320 KiB", "1.5 MiB"]


def _jax_blocks(src: str, tmp_path) -> list[dict]:
    """The blocks and scratch JAX makes for the call `test()` runs (`jax_blocks.py`)."""
    if importlib.util.find_spec("jax") is None:
        pytest.skip("JAX is not installed: pip install -e '.[oracle]'")
    path = tmp_path / "module.py"
    path.write_text(dedent(src))
    out = subprocess.run([sys.executable, str(Path(__file__).with_name("jax_blocks.py")), str(path)],
                         env=dict(os.environ, JAX_PLATFORMS="cpu"), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


@pytest.mark.parametrize("src", [GATHER, ADD], ids=["gather", "add"])
def test_block_bytes_and_buffers_agree_with_the_blocks_jax_makes(src, tmp_path):
    """Each block's bytes are JAX's block shape times its element size; one buffer exactly
    where JAX's window is trivial (`has_trivial_window`: the TPU lowering single-buffers it)."""
    [jax_call] = _jax_blocks(src, tmp_path)
    rows = summary_of(src).operands
    blocks = [r for r in rows if r.role in (RefRole.INPUT, RefRole.OUTPUT)]
    assert len(blocks) == len(jax_call["blocks"])
    for row, block in zip(blocks, jax_call["blocks"]):
        if block["space"] == "any":
            assert (row.space, row.buffers) == ("ANY", 0)
            continue
        assert block["space"] in ("default", "vmem") and row.space == "VMEM"
        assert row.nbytes == math.prod(block["block"]) * block["itemsize"], block
        assert row.buffers == (1 if block["trivial"] else 2), block
    scratch = [r for r in rows if r.role is RefRole.SCRATCH]
    assert len(scratch) == len(jax_call["scratch"])
    for row, buf in zip(scratch, jax_call["scratch"]):
        if buf["space"] == "vmem":
            assert row.nbytes == math.prod(buf["shape"]) * buf["itemsize"] and row.buffers == 1
        else:
            assert buf["space"] == "semaphore_mem" and row.space == "semaphore" and not row.vmem
