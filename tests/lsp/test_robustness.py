"""Bad input never takes the server down: it logs and carries on."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from .conftest import (
    change_doc,
    diagnostics,
    doc_uri,
    make_client,
    open_doc,
    pull,
    start,
    wait_publish,
)
from .kernels import BUGGY


async def still_works(client, tmp_path, name="alive.py"):
    uri = doc_uri(tmp_path, name)
    open_doc(client, uri, BUGGY)
    assert any(d.code == "PAL001" for d in await diagnostics(client, uri, 1))


async def test_change_to_unknown_document(client, tmp_path):
    await start(client, "neovim-0.7")
    change_doc(client, doc_uri(tmp_path, "ghost.py"), 2, "x = 1\n",
               types.Range(types.Position(0, 0), types.Position(0, 0)))
    await still_works(client, tmp_path)
    assert any("not open" in m.message for m in client.log_messages)


async def test_out_of_range_positions(client, tmp_path):
    await start(client, "neovim-0.7")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BUGGY)
    await wait_publish(client, uri, 1)
    far = types.Position(10_000, 5_000)
    change_doc(client, uri, 2, "\n# appended\n", types.Range(far, far))
    await wait_publish(client, uri, 2)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri),
        range=types.Range(far, types.Position(20_000, 0)),
        context=types.CodeActionContext(diagnostics=[])))
    assert not [a for a in actions or [] if a.kind == types.CodeActionKind.QuickFix]
    await still_works(client, tmp_path)


async def test_binary_junk(client, tmp_path):
    await start(client, "eglot-1.9")
    rnd = random.Random(7)
    junk = bytes(rnd.randrange(256) for _ in range(20_000)).decode("latin-1")
    uri = doc_uri(tmp_path, "junk.py")
    open_doc(client, uri, junk + "\x00\ud800 def (")  # NULs, a lone surrogate, bad syntax
    assert list((await wait_publish(client, uri, 1)).diagnostics) == []
    await still_works(client, tmp_path)


async def test_five_megabyte_file(client, tmp_path):
    await start(client, "vscode")
    uri = doc_uri(tmp_path, "huge.py")
    line = "x = [" + ", ".join(str(i) for i in range(20)) + "]  # filler\n"
    huge = BUGGY + line * (5_000_000 // len(line))
    assert len(huge) > 5_000_000
    open_doc(client, uri, huge)
    report = await pull(client, uri)
    assert report.kind == "full"
    assert any("not analysed" in m.message for m in client.log_messages)
    await still_works(client, tmp_path)


async def test_requests_for_unknown_documents(client, tmp_path):
    await start(client, "vscode")
    ghost = doc_uri(tmp_path, "ghost.py")
    assert list((await pull(client, ghost)).items) == []
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(ghost),
        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        context=types.CodeActionContext(diagnostics=[])))
    assert not actions
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        types.TextDocumentIdentifier(ghost)))
    await still_works(client, tmp_path)


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, str(Path(__file__).with_name("crashing_server.py"))],
    client_factory=make_client))
async def crashing(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


async def test_crash_inside_analysis_is_logged_and_survived(crashing, tmp_path):
    client = crashing
    await start(client, "neovim-0.7")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BUGGY + "\n# CRASH_ME\n")
    assert list((await wait_publish(client, uri, 1)).diagnostics) == []
    errors = [m.message for m in client.log_messages if m.type == types.MessageType.Error]
    assert any("analysis of" in m and "boom inside the analysis" in m for m in errors)

    change_doc(client, uri, 2, BUGGY)          # the next change is analysed again
    assert any(d.code == "PAL001" for d in (await wait_publish(client, uri, 2)).diagnostics)
