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
