"""Cross-module analysis: semaphores declared in another module of the workspace."""

from __future__ import annotations

from lsprotocol import types
from pygls.uris import from_fs_path

from .conftest import doc_uri, open_doc, pull, start, wait_publish
from .kernels import BUGGY

SHAPES = '''\
from jax.experimental.pallas import tpu as pltpu

NSLOTS = 2
SEMS = pltpu.SemaphoreType.DMA((NSLOTS,))
'''
KERNEL = BUGGY.replace("NSLOTS = 2\n", "from shapes import NSLOTS, SEMS\n").replace(
    "            pltpu.SemaphoreType.DMA((2,)),\n", "            SEMS,\n")


def codes(diags):
    return [d.code for d in diags]


async def test_declaration_in_another_module_and_its_change(client, tmp_path):
    shapes = tmp_path / "shapes.py"
    shapes.write_text(SHAPES)
    await start(client, "neovim-0.7", root=tmp_path)
    uri = doc_uri(tmp_path)
    open_doc(client, uri, KERNEL)
    assert codes((await wait_publish(client, uri, 1)).diagnostics) == ["PAL001"]

    # shapes.py is fixed on disk (by another tool): the watcher tells the server.
    shapes.write_text(SHAPES.replace("DMA((NSLOTS,))", "DMA(())"))
    n = len(client.publishes)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=from_fs_path(str(shapes)), type=types.FileChangeType.Changed)]))
    assert codes((await wait_publish(client, uri, 1, after=n)).diagnostics) == []


async def test_saving_the_other_module_rechecks(client, tmp_path):
    shapes = tmp_path / "shapes.py"
    shapes.write_text(SHAPES.replace("DMA((NSLOTS,))", "DMA(())"))
    await start(client, "vscode", root=tmp_path)
    uri = doc_uri(tmp_path)
    open_doc(client, uri, KERNEL)
    assert codes((await pull(client, uri)).items) == []

    shapes.write_text(SHAPES)
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        types.TextDocumentIdentifier(from_fs_path(str(shapes)))))
    assert codes((await pull(client, uri)).items) == ["PAL001"]
