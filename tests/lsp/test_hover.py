"""Hover shows what the analysis knows of the semaphore under the cursor."""

from __future__ import annotations

import pytest
from lsprotocol import types

from .conftest import diagnostics, doc_uri, open_doc, start
from .kernels import BUGGY, FIXED


def position_of(text: str, needle: str, offset: int = 0) -> types.Position:
    for line, content in enumerate(text.split("\n")):
        col = content.find(needle)
        if col >= 0:
            return types.Position(line, col + offset)
    raise AssertionError(needle)


async def hover_at(client, uri, pos):
    return await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri), position=pos))


@pytest.mark.parametrize("profile", ["vscode", "neovim-0.7"])
async def test_hover_on_an_array_and_on_a_view(client, tmp_path, profile):
    await start(client, profile)
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BUGGY)
    await diagnostics(client, uri, 1)

    array = await hover_at(client, uri, position_of(BUGGY, "buf.at[slot], sems)", len("buf.at[slot], s")))
    assert array is not None
    assert "array of DMA semaphores, shape `(2,)`" in array.contents.value
    assert "index it with `.at[...]`" in array.contents.value

    blank = await hover_at(client, uri, types.Position(0, 0))
    assert blank is None


async def test_hover_on_an_indexed_view_says_one_semaphore(client, tmp_path):
    await start(client, "vscode")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, FIXED)
    assert await diagnostics(client, uri, 1) == []
    view = await hover_at(client, uri, position_of(FIXED, "sems.at[slot])", len("sems.at[")))
    assert view is not None
    assert "`sems.at[slot]`: one DMA semaphore (shape `()`)" in view.contents.value


async def test_hover_on_an_unknown_document_is_empty(client, tmp_path):
    await start(client, "vscode")
    assert await hover_at(client, doc_uri(tmp_path, "never-opened.py"), types.Position(0, 0)) is None


MATMUL = '''\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def matmul_kernel(x_ref, y_ref, o_ref, acc_ref):
    acc_ref[...] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)
    o_ref[...] = acc_ref[...].astype(o_ref.dtype)


def matmul(x, y):
    return pl.pallas_call(
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((1024, 1024), jnp.bfloat16),
        grid=(8, 8, 2),
        in_specs=[pl.BlockSpec((128, 512), lambda i, j, k: (i, k)),
                  pl.BlockSpec((512, 128), lambda i, j, k: (k, j))],
        out_specs=pl.BlockSpec((128, 128), lambda i, j, k: (i, j)),
        scratch_shapes=[pltpu.VMEM((128, 128), jnp.float32)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel", "arbitrary")),
    )(x, y)


def main():
    x = jnp.ones((1024, 1024), jnp.bfloat16)
    return matmul(x, x)
'''


@pytest.mark.parametrize("profile", ["vscode", "neovim-0.7"])
async def test_hover_on_a_pallas_call_shows_its_grid_operands_and_vmem(client, tmp_path, profile):
    await start(client, profile)
    uri = doc_uri(tmp_path)
    open_doc(client, uri, MATMUL)
    assert await diagnostics(client, uri, 1) == []
    hover = await hover_at(client, uri, position_of(MATMUL, "pl.pallas_call(", len("pl.pall")))
    assert hover is not None and hover.contents.kind == types.MarkupKind.Markdown
    text = hover.contents.value
    assert 'grid `(8, 8, 2)`, `dimension_semantics` `("parallel", "parallel", "arbitrary")`' in text
    assert "| input 1 | `x_ref` | `bf16[1024, 1024]` | `(128, 512)` | VMEM | `lambda i, j, k: (i, k)` " \
           "| 2 × 128 KiB |" in text
    assert "| output 1 | `o_ref` | `bf16[1024, 1024]` | `(128, 128)` | VMEM | `lambda i, j, k: (i, j)` " \
           "| 2 × 32 KiB |" in text
    assert "| scratch 1 | `acc_ref` | `f32[128, 128]` | — | VMEM | — | 64 KiB |" in text
    # 2 x 128 KiB twice, 2 x 32 KiB, 64 KiB.
    assert "VMEM: **640 KiB**" in text
    # The parameter's own hover keeps priority on the kernel's parameters.
    param = await hover_at(client, uri, position_of(MATMUL, "acc_ref):", 1))
    assert "`acc_ref` ← scratch 1" in param.contents.value


@pytest.mark.parametrize("profile", ["vscode", "neovim-0.7"])
async def test_hover_on_a_value_in_a_kernel_body_shows_its_shape_and_dtype(client, tmp_path, profile):
    await start(client, profile)
    uri = doc_uri(tmp_path)
    open_doc(client, uri, MATMUL)
    assert await diagnostics(client, uri, 1) == []
    dot = await hover_at(client, uri, position_of(MATMUL, "jnp.dot(x_ref", len("jnp.d")))
    assert dot.contents.value == ("**pallas-lsp**: `jnp.dot(x_ref[...], y_ref[...], "
                                  "preferred_element_type=jnp.float32)`: `f32[128, 128]`")
    read = await hover_at(client, uri, position_of(MATMUL, "x_ref[...], y_ref", len("x_ref[")))
    assert read.contents.value == "**pallas-lsp**: `x_ref[...]`: `bf16[128, 512]`"
    cast = await hover_at(client, uri, position_of(MATMUL, "acc_ref[...].astype", len("acc_ref[...].ast")))
    assert cast.contents.value.endswith("`: `bf16[128, 128]`")
