"""Diagnostics end to end: push with versions, pull with result ids, clearing, encodings."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from .conftest import (
    PULL_PROFILES,
    PUSH_PROFILES,
    change_doc,
    diagnostics,
    doc_uri,
    open_doc,
    pull,
    range_of,
    start,
    wait_publish,
)
from .kernels import BUGGY, FIXED, SIGNAL, UNICODE

DMA_CALL = "pltpu.make_async_copy("


def by_code(diags, code):
    return [d for d in diags if d.code == code]


@pytest.mark.parametrize("profile", ["vscode", "neovim-0.7", "neovim-0.11", "eglot-1.9"])
async def test_findings_reach_every_client(client, tmp_path, profile):
    """PAL001 on the semaphore argument of the started DMA; PAL002 / PAL003 (a warning)
    for signal / read of a whole array."""
    await start(client, profile)
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BUGGY)
    diags = await diagnostics(client, uri, 1)

    [err] = by_code(diags, "PAL001")
    assert err.range == range_of(BUGGY, "sems", after=DMA_CALL)
    assert err.severity == types.DiagnosticSeverity.Error
    assert err.source == "pallas-lsp"
    assert "Cannot signal on a non-()-shaped semaphore: (2,)" in err.message
    assert err.data["code"] == "PAL001" and err.data["span"]["line"] == err.range.start.line

    uri2 = doc_uri(tmp_path, "ring.py")
    open_doc(client, uri2, SIGNAL)
    diags = await diagnostics(client, uri2, 1)
    [signal] = by_code(diags, "PAL002")
    assert signal.range == range_of(SIGNAL, "sems", after="pl.semaphore_signal(")
    assert signal.severity == types.DiagnosticSeverity.Error
    [read] = by_code(diags, "PAL003")
    assert read.range == range_of(SIGNAL, "sems", after="pl.semaphore_read(")
    assert read.severity == types.DiagnosticSeverity.Warning


async def test_vscode_gets_related_information_and_doc_link(client, tmp_path):
    await start(client, "vscode")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BUGGY)
    [err] = by_code(await diagnostics(client, uri, 1), "PAL001")
    assert err.code_description is not None and err.code_description.href.startswith("https://")
    assert err.related_information, "the declaration should be linked"
    decl_line = BUGGY.splitlines().index("            pltpu.SemaphoreType.DMA((2,)),")
    assert any(r.location.uri == uri and r.location.range.start.line == decl_line
               for r in err.related_information)


async def test_eglot_gets_the_declaration_in_the_message(client, tmp_path):
    """eglot 1.9 shows neither relatedInformation nor codeDescription: not sent; the
    declaration's place is in the message instead."""
    await start(client, "eglot-1.9")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BUGGY)
    [err] = by_code(await diagnostics(client, uri, 1), "PAL001")
    assert err.related_information is None
    assert err.code_description is None
    decl_line = BUGGY.splitlines().index("            pltpu.SemaphoreType.DMA((2,)),") + 1
    assert f"line {decl_line}" in err.message


@pytest.mark.parametrize("profile", PUSH_PROFILES)
async def test_push_follows_versions_and_clears_on_close(client, tmp_path, profile):
    result = await start(client, profile)
    # Not offered to clients that cannot pull.
    assert result.capabilities.diagnostic_provider is None
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BUGGY, version=3)
    first = await wait_publish(client, uri, 3)
    assert by_code(first.diagnostics, "PAL001")

    change_doc(client, uri, 4, FIXED)
    fixed = await wait_publish(client, uri, 4)
    assert not by_code(fixed.diagnostics, "PAL001")

    n = len(client.publishes)
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        types.TextDocumentIdentifier(uri)))
    closed = await wait_publish(client, uri, after=n)
    assert list(closed.diagnostics) == []


@pytest.mark.parametrize("profile", PUSH_PROFILES)
async def test_save_republishes(client, tmp_path, profile):
    await start(client, profile)
    uri = doc_uri(tmp_path)
    open_doc(client, uri, SIGNAL)
    await wait_publish(client, uri, 1)
    n = len(client.publishes)
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        types.TextDocumentIdentifier(uri)))
    again = await wait_publish(client, uri, 1, after=n)
    assert sorted(d.code for d in again.diagnostics) == ["PAL002", "PAL003"]
    assert by_code(again.diagnostics, "PAL002")[0].range == range_of(SIGNAL, "sems", after="pl.semaphore_signal(")


@pytest.mark.parametrize("profile", PULL_PROFILES)
async def test_pull_reports_and_result_ids(client, tmp_path, profile):
    result = await start(client, profile)
    assert result.capabilities.diagnostic_provider.identifier == "pallas-lsp"
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BUGGY)
    report = await pull(client, uri)
    assert report.kind == "full" and by_code(report.items, "PAL001")
    assert report.result_id

    same = await pull(client, uri, previous=report.result_id)
    assert same.kind == "unchanged" and same.result_id == report.result_id

    change_doc(client, uri, 2, FIXED)
    after = await pull(client, uri, previous=report.result_id)
    assert after.kind == "full" and not by_code(after.items, "PAL001")
    assert after.result_id != report.result_id

    # A pull client is never pushed to.
    await asyncio.sleep(0.2)
    assert client.publishes == []


async def test_pull_for_unknown_document_is_empty(client, tmp_path):
    await start(client, "vscode")
    report = await pull(client, doc_uri(tmp_path, "never_opened.py"))
    assert report.kind == "full" and list(report.items) == []


@pytest.mark.parametrize(("profile", "encoding"), [
    ("vscode", "utf-16"), ("eglot-1.9", "utf-16"), ("emacs-29", "utf-32")])
async def test_non_ascii_columns_use_the_client_encoding(client, tmp_path, profile, encoding):
    result = await start(client, profile)
    assert result.capabilities.position_encoding in (None, encoding)
    uri = doc_uri(tmp_path)
    open_doc(client, uri, UNICODE)
    [err] = by_code(await diagnostics(client, uri, 1), "PAL001")
    assert err.range == range_of(UNICODE, "sems", after=DMA_CALL, encoding=encoding)
    # utf-16 and utf-32 really differ on this line ("😀" is two UTF-16 units).
    assert range_of(UNICODE, "sems", after=DMA_CALL, encoding="utf-16") != \
        range_of(UNICODE, "sems", after=DMA_CALL, encoding="utf-32")


async def test_incremental_edits_keep_positions_right(client, tmp_path):
    """Lines inserted above a finding move it (incremental sync, UTF-16 ranges)."""
    await start(client, "neovim-0.7")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BUGGY)
    await wait_publish(client, uri, 1)
    insert = '# ünïcödé 😀 comment\n# another\n'
    change_doc(client, uri, 2, insert, types.Range(types.Position(0, 0), types.Position(0, 0)))
    p = await wait_publish(client, uri, 2)
    [err] = by_code(p.diagnostics, "PAL001")
    assert err.range == range_of(insert + BUGGY, "sems", after=DMA_CALL)


async def test_text_typed_into_comments_keeps_findings_in_place_and_noqa_applies(client, tmp_path):
    """A character typed into a comment (the analysis keeps the block's tree) leaves the
    findings where they are; `noqa` typed into the comment of a finding's line suppresses
    it, and deleting it brings it back."""
    await start(client, "neovim-0.7")
    uri = doc_uri(tmp_path)
    text = "# pallas kernel\n" + BUGGY.replace("buf.at[slot], sems)", "buf.at[slot], sems)  # ", 1)
    open_doc(client, uri, text)
    [err] = by_code((await wait_publish(client, uri, 1)).diagnostics, "PAL001")
    at_end = types.Position(err.range.start.line, len(text.split("\n")[err.range.start.line]))
    change_doc(client, uri, 2, "s", types.Range(types.Position(0, 15), types.Position(0, 15)))
    assert by_code((await wait_publish(client, uri, 2)).diagnostics, "PAL001") == [err]
    change_doc(client, uri, 3, "noqa", types.Range(at_end, at_end))
    assert not by_code((await wait_publish(client, uri, 3)).diagnostics, "PAL001")
    change_doc(client, uri, 4, "", types.Range(at_end, types.Position(at_end.line, at_end.character + 4)))
    assert by_code((await wait_publish(client, uri, 4)).diagnostics, "PAL001") == [err]


async def test_result_ids_do_not_survive_reopening(client, tmp_path):
    """A result id from before a close never makes a reopened document "unchanged"."""
    await start(client, "vscode")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, FIXED)
    first = await pull(client, uri)
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        types.TextDocumentIdentifier(uri)))
    open_doc(client, uri, BUGGY)
    report = await pull(client, uri, previous=first.result_id)
    assert report.kind == "full" and by_code(report.items, "PAL001")


async def test_crlf_documents(client, tmp_path):
    """Windows line endings: same ranges as with `\\n`, also after an incremental edit."""
    await start(client, "neovim-0.7")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BUGGY.replace("\n", "\r\n"))
    [err] = by_code((await wait_publish(client, uri, 1)).diagnostics, "PAL001")
    assert err.range == range_of(BUGGY, "sems", after=DMA_CALL)
    change_doc(client, uri, 2, "# moved\r\n", types.Range(types.Position(0, 0), types.Position(0, 0)))
    [err] = by_code((await wait_publish(client, uri, 2)).diagnostics, "PAL001")
    assert err.range == range_of("# moved\n" + BUGGY, "sems", after=DMA_CALL)
