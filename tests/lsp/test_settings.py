"""Rule selection: initializationOptions, didChangeConfiguration, pyproject.toml."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path

from .conftest import diagnostics, doc_uri, open_doc, pull, start, wait_publish
from .kernels import BUGGY, SIGNAL

BOTH = BUGGY + SIGNAL[SIGNAL.index("\n\ndef ring_kernel"):]


def codes(diags):
    return sorted({d.code for d in diags})


def change_settings(client, settings):
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=settings))


@pytest.mark.parametrize("profile", ["vscode", "eglot-1.9"])
async def test_initialization_options_ignore(client, tmp_path, profile):
    await start(client, profile, init_options={"ignore": ["PAL001"], "logLevel": "info"})
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BOTH)
    assert codes(await diagnostics(client, uri, 1)) == ["PAL002", "PAL003"]


async def test_initialization_options_select_prefix(client, tmp_path):
    await start(client, "neovim-0.7", init_options={"select": ["PAL00"], "ignore": ["PAL003"]})
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BOTH)
    assert codes(await diagnostics(client, uri, 1)) == ["PAL001", "PAL002"]


@pytest.mark.parametrize("settings", [
    {"pallas": {"ignore": ["PAL001"]}},   # VS Code: the "pallas" section
    {"ignore": ["PAL001"]},               # flat (Neovim / eglot users)
])
async def test_did_change_configuration_rechecks_open_documents(client, tmp_path, settings):
    await start(client, "neovim-0.7")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BOTH)
    assert "PAL001" in codes((await wait_publish(client, uri, 1)).diagnostics)
    n = len(client.publishes)
    change_settings(client, settings)
    after = await wait_publish(client, uri, 1, after=n)
    assert codes(after.diagnostics) == ["PAL002", "PAL003"]


async def test_pull_client_is_asked_to_refresh(client, tmp_path):
    await start(client, "vscode")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BOTH)
    assert "PAL001" in codes((await pull(client, uri)).items)
    change_settings(client, {"pallas": {"ignore": ["PAL001"]}})
    report = await pull(client, uri)
    assert codes(report.items) == ["PAL002", "PAL003"]
    assert client.diagnostic_refresh_count >= 1


async def test_pull_client_without_refresh_support(client, tmp_path):
    """A client that pulls but cannot be asked to re-pull (Neovim 0.11): answered by pull,
    never pushed to nor sent a refresh; its next pull sees the new settings."""
    result = await start(client, "neovim-0.11")
    assert result.capabilities.diagnostic_provider is not None
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BOTH)
    assert codes((await pull(client, uri)).items) == ["PAL001", "PAL002", "PAL003"]
    change_settings(client, {"pallas": {"ignore": ["PAL001"]}})
    assert codes((await pull(client, uri)).items) == ["PAL002", "PAL003"]
    assert client.diagnostic_refresh_count == 0
    assert client.publishes == []


async def test_empty_change_notification_reads_workspace_configuration(client, tmp_path):
    """Clients of the pull-configuration model send no settings: the server asks."""
    await start(client, "eglot-1.9")
    client.set_configuration({"ignore": ["PAL002", "PAL003"]}, section="pallas")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BOTH)
    await wait_publish(client, uri, 1)
    n = len(client.publishes)
    change_settings(client, None)
    after = await wait_publish(client, uri, 1, after=n)
    assert codes(after.diagnostics) == ["PAL001"]


async def test_bad_settings_are_reported_and_defaults_used(client, tmp_path):
    await start(client, "eglot-1.9", init_options={"select": ["nonsense"], "ignore": "PAL001",
                                                  "logLevel": "loud"})
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BOTH)
    assert codes(await diagnostics(client, uri, 1)) == ["PAL001", "PAL002", "PAL003"]
    logged = "\n".join(m.message for m in client.log_messages)
    assert "NONSENSE" in logged and "`ignore`" in logged and "logLevel" in logged


async def test_pyproject_and_client_settings_win(client, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nignore = ["PAL003"]\n')
    await start(client, "neovim-0.7", root=tmp_path)
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BOTH)
    assert codes((await wait_publish(client, uri, 1)).diagnostics) == ["PAL001", "PAL002"]

    n = len(client.publishes)
    change_settings(client, {"ignore": ["PAL002"]})           # the client's list wins
    after = await wait_publish(client, uri, 1, after=n)
    assert codes(after.diagnostics) == ["PAL001", "PAL003"]


async def test_pyproject_change_is_picked_up(client, tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.pallas-lsp]\nselect = ["PAL001"]\n')
    await start(client, "vscode", root=tmp_path)
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BOTH)
    assert codes((await pull(client, uri)).items) == ["PAL001"]
    # The server asked to be told about pyproject.toml changes (after `initialized`).
    assert any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in client.registrations)

    pyproject.write_text('[tool.pallas-lsp]\nexclude = ["kernel.py"]\n')
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=from_fs_path(str(pyproject)), type=types.FileChangeType.Changed)]))
    assert list((await pull(client, uri)).items) == []


async def test_broken_pyproject_is_reported_not_fatal(client, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nselect = ["PAL001"\n')
    await start(client, "eglot-1.9", root=tmp_path)
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BOTH)
    assert codes((await wait_publish(client, uri, 1)).diagnostics) == ["PAL001", "PAL002", "PAL003"]
    assert any("pyproject.toml" in m.message for m in client.log_messages)


async def test_an_invalid_pyproject_is_shown_once_and_defaults_used(client, tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.pallas-lsp]\nselekt = ["PAL001"]\n')
    await start(client, "vscode", root=tmp_path)
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BOTH)
    assert codes((await pull(client, uri)).items) == ["PAL001", "PAL002", "PAL003"]
    open_doc(client, uri, BOTH, version=2)
    assert codes((await pull(client, uri)).items) == ["PAL001", "PAL002", "PAL003"]
    shown = [m.message for m in client.messages]
    assert len(shown) == 1 and "unknown key `selekt`" in shown[0] and "using defaults" in shown[0]
    # fixed on disk: the table applies, nothing more is shown
    pyproject.write_text('[tool.pallas-lsp]\nselect = ["PAL001"]\n')
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=from_fs_path(str(pyproject)), type=types.FileChangeType.Changed)]))
    assert codes((await pull(client, uri)).items) == ["PAL001"]
    assert len(client.messages) == 1
