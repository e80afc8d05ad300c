"""Jupyter notebooks: code cells analysed together, findings placed on the right cell."""

from __future__ import annotations

import pytest
from lsprotocol import types

from .conftest import apply_edits, edits_for, pull, range_of, start, wait_publish
from .kernels import NOTEBOOK_CELLS, NOTEBOOK_KINDS

KIND = {"code": types.NotebookCellKind.Code, "markdown": types.NotebookCellKind.Markup}


def notebook(tmp_path, cells=NOTEBOOK_CELLS, kinds=NOTEBOOK_KINDS):
    path = tmp_path / "kernels.ipynb"
    nb_uri = f"file://{path}"
    # VS Code's cell URIs: the notebook path plus a quoted fragment.
    cell_uris = [f"vscode-notebook-cell:{path}#W{i}sZmlsZQ%3D%3D" for i in range(len(cells))]
    params = types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(
            uri=nb_uri, notebook_type="jupyter-notebook", version=1,
            cells=[types.NotebookCell(kind=KIND[k], document=u) for k, u in zip(kinds, cell_uris)]),
        cell_text_documents=[
            types.TextDocumentItem(uri=u, language_id="python" if k == "code" else "markdown",
                                   version=1, text=t)
            for u, k, t in zip(cell_uris, kinds, cells)],
    )
    return nb_uri, cell_uris, params


async def cell_diagnostics(client, cell_uri, pull_mode):
    if pull_mode:
        return list((await pull(client, cell_uri)).items)
    return list((await wait_publish(client, cell_uri)).diagnostics)


@pytest.mark.parametrize("profile", ["vscode", "neovim-0.7"])
async def test_semaphore_declared_in_one_cell_misused_in_another(client, tmp_path, profile):
    await start(client, profile)
    _, cells, params = notebook(tmp_path)
    client.notebook_document_did_open(params)
    pull_mode = profile == "vscode"

    kernel_cell = await cell_diagnostics(client, cells[2], pull_mode)
    [err] = [d for d in kernel_cell if d.code == "PAL001"]
    assert err.range == range_of(NOTEBOOK_CELLS[2], "sems", after="pltpu.make_async_copy(")
    decl_line = NOTEBOOK_CELLS[3].splitlines().index("            pltpu.SemaphoreType.DMA((2,)),")
    assert f"cell 3, line {decl_line + 1}" in err.message   # code cells counted, 1-based
    if profile == "vscode":
        [rel] = err.related_information
        assert rel.location.uri == cells[3] and rel.location.range.start.line == decl_line

    for other in (cells[0], cells[3]):
        assert await cell_diagnostics(client, other, pull_mode) == []


async def test_fix_in_a_cell_and_cell_edits(client, tmp_path):
    await start(client, "vscode")
    nb_uri, cells, params = notebook(tmp_path)
    client.notebook_document_did_open(params)
    [err] = [d for d in (await pull(client, cells[2])).items if d.code == "PAL001"]

    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(cells[2]), range=err.range,
        context=types.CodeActionContext(diagnostics=[err])))
    index = next(a for a in actions if "sems.at[slot]" in a.title)
    [cell_edit] = index.edit.document_changes
    assert cell_edit.text_document.uri == cells[2]
    fixed = apply_edits(NOTEBOOK_CELLS[2], edits_for(index.edit, cells[2]))
    assert "buf.at[slot], sems.at[slot])" in fixed

    # The editor applies it: a text change of that cell.
    end = types.Position(len(NOTEBOOK_CELLS[2].splitlines()), 0)
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(version=2, uri=nb_uri),
        change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
            text_content=[types.NotebookDocumentCellContentChanges(
                document=types.VersionedTextDocumentIdentifier(uri=cells[2], version=2),
                changes=[types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(0, 0), end), text=fixed)])]))))
    assert [d for d in (await pull(client, cells[2])).items if d.code == "PAL001"] == []


async def test_removing_the_declaring_cell_clears_pushed_diagnostics(client, tmp_path):
    await start(client, "neovim-0.7")
    nb_uri, cells, params = notebook(tmp_path)
    client.notebook_document_did_open(params)
    first = await wait_publish(client, cells[2])
    assert any(d.code == "PAL001" for d in first.diagnostics)

    n = len(client.publishes)
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(version=2, uri=nb_uri),
        change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
            structure=types.NotebookDocumentCellChangeStructure(
                array=types.NotebookCellArrayChange(start=3, delete_count=1),
                did_close=[types.TextDocumentIdentifier(cells[3])])))))
    # Without the declaration the shape is unknown: silence, and the removed cell is cleared.
    after = await wait_publish(client, cells[2], after=n)
    assert list(after.diagnostics) == []
    removed = await wait_publish(client, cells[3], after=n)
    assert list(removed.diagnostics) == []


async def test_closing_a_notebook_clears_its_cells(client, tmp_path):
    await start(client, "eglot-1.9")
    nb_uri, cells, params = notebook(tmp_path)
    client.notebook_document_did_open(params)
    await wait_publish(client, cells[2])
    n = len(client.publishes)
    client.notebook_document_did_close(types.DidCloseNotebookDocumentParams(
        notebook_document=types.NotebookDocumentIdentifier(nb_uri),
        cell_text_documents=[types.TextDocumentIdentifier(u) for u in cells]))
    cleared = await wait_publish(client, cells[2], after=n)
    assert list(cleared.diagnostics) == []


async def test_notebook_fix_all_on_save(client, tmp_path):
    """`notebook.source.fixAll.pallas`: one edit over every cell that needs it."""
    await start(client, "vscode")
    _, cells, params = notebook(tmp_path)
    client.notebook_document_did_open(params)
    assert [d.code for d in (await pull(client, cells[2])).items] == ["PAL001"]
    [action] = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(cells[0]),
        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        context=types.CodeActionContext(diagnostics=[], only=["notebook.source.fixAll"])))
    assert action.kind == "notebook.source.fixAll.pallas"
    [cell_edit] = action.edit.document_changes
    assert cell_edit.text_document.uri == cells[2]
    assert "sems.at[slot])" in apply_edits(NOTEBOOK_CELLS[2], cell_edit.edits)
