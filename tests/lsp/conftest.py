"""Shared set-up of the end-to-end LSP tests: client profiles, a recording client, helpers.

The server runs as a subprocess (`python -m pallas_lsp`), driven by pytest-lsp's client
with the capabilities of real editors.
"""

from __future__ import annotations

import asyncio
import copy
import sys
import time
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

SERVER_COMMAND = [sys.executable, "-m", "pallas_lsp"]
TIMEOUT = 30.0   # generous: the first analysis may import jedi on a loaded 2-core machine


# -- client profiles -----------------------------------------------------------------------
def vscode() -> types.ClientCapabilities:
    """VS Code with vscode-languageclient 9: pull diagnostics, related information, UTF-16,
    notebooks.  (pytest-lsp's recorded VS Code 1.65 predates pull; we add what 1.7x+ sends.)"""
    caps = copy.deepcopy(client_capabilities("visual-studio-code"))
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities(
        dynamic_registration=True, related_document_support=False)
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    caps.notebook_document = types.NotebookDocumentClientCapabilities(
        synchronization=types.NotebookDocumentSyncClientCapabilities(
            dynamic_registration=True, execution_summary_support=True))
    return caps


def neovim_07() -> types.ClientCapabilities:
    """Neovim 0.7: push only, related information, UTF-16, no workspace/configuration."""
    return copy.deepcopy(client_capabilities("neovim@v0.7.0"))


def neovim_011() -> types.ClientCapabilities:
    """Neovim 0.11: advertises textDocument.diagnostic but not workspace/diagnostic/refresh:
    it pulls, and cannot be asked to re-pull."""
    return copy.deepcopy(client_capabilities("neovim@v0.11.0"))


def eglot_19() -> types.ClientCapabilities:
    """Emacs 28 + eglot 1.9: push only, no relatedInformation, no codeDescription, no
    position-encoding negotiation (UTF-16).  Derived from pytest-lsp's Emacs 29.1 record."""
    caps = copy.deepcopy(client_capabilities("emacs@v29.1"))
    caps.general = None
    return caps


def emacs_29() -> types.ClientCapabilities:
    """Emacs 29.1 eglot: prefers UTF-32 positions."""
    return copy.deepcopy(client_capabilities("emacs@v29.1"))


PROFILES = {
    "vscode": vscode,
    "neovim-0.7": neovim_07,
    "neovim-0.11": neovim_011,
    "eglot-1.9": eglot_19,
    "emacs-29": emacs_29,
}
PUSH_PROFILES = ["neovim-0.7", "eglot-1.9"]
PULL_PROFILES = ["vscode", "neovim-0.11"]


def make_client() -> LanguageClient:
    """pytest-lsp's test client, also recording every publishDiagnostics (with version)
    and accepting capability registrations, as editors do."""
    features = dict(DEFAULT_CLIENT_FEATURES)
    store = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def publish(client: LanguageClient, params: types.PublishDiagnosticsParams):
        store(client, params)
        client.publishes.append(params)

    def register_capability(client: LanguageClient, params: types.RegistrationParams):
        client.registrations.extend(params.registrations)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    features[types.CLIENT_REGISTER_CAPABILITY] = register_capability
    client = LanguageClient(converter_factory=default_converter)
    client.publishes = []
    client.registrations = []
    register_lsp_features(client, features)
    return client


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND,
                                              client_factory=make_client))
async def client(lsp_client: LanguageClient):
    """A started, not yet initialised server; tests call `start(client, profile, ...)`."""
    yield
    await lsp_client.shutdown_session()


async def start(client: LanguageClient, profile: str, init_options=None,
                root: Path | None = None) -> types.InitializeResult:
    root = root or Path(__file__).parent
    result = await client.initialize_session(types.InitializeParams(
        capabilities=PROFILES[profile](),
        initialization_options=init_options,
        root_uri=from_fs_path(str(root)),
        workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(root)), name="root")],
    ))
    client.pull_mode = result.capabilities.diagnostic_provider is not None
    return result


def is_pull(client: LanguageClient) -> bool:
    """Whether the server offered pull diagnostics to this client (else it pushes)."""
    return client.pull_mode


# -- documents -----------------------------------------------------------------------------
def doc_uri(tmp_path: Path, name: str = "kernel.py") -> str:
    return from_fs_path(str(tmp_path / name))


def open_doc(client: LanguageClient, uri: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))


def change_doc(client: LanguageClient, uri: str, version: int, text: str,
               rng: types.Range | None = None) -> None:
    """Send one change: the whole text, or `text` replacing `rng`."""
    change = (types.TextDocumentContentChangeWholeDocument(text=text) if rng is None
              else types.TextDocumentContentChangePartial(range=rng, text=text))
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version), [change]))


async def wait_publish(client: LanguageClient, uri: str, version: int | None = None,
                       timeout: float = TIMEOUT, after: int = 0) -> types.PublishDiagnosticsParams:
    """The first publish for `uri` (at `version`, if given) among those from index `after`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in client.publishes[after:]:
            if p.uri == uri and (version is None or p.version == version):
                return p
        await asyncio.sleep(0.01)
    raise AssertionError(f"no publishDiagnostics for {uri} v{version} within {timeout}s; "
                         f"got {[(p.uri, p.version) for p in client.publishes]}")


async def pull(client: LanguageClient, uri: str, previous: str | None = None):
    return await asyncio.wait_for(client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri),
                                       previous_result_id=previous)), TIMEOUT)


async def diagnostics(client: LanguageClient, uri: str, version: int) -> list[types.Diagnostic]:
    """The diagnostics for `uri` at `version`, pulled or pushed as the profile does it."""
    if is_pull(client):
        report = await pull(client, uri)
        assert report.kind == "full"
        return list(report.items)
    return list((await wait_publish(client, uri, version)).diagnostics)


# -- positions and edits (UTF-16 unless said otherwise) --------------------------------------
def units(s: str, encoding: str = "utf-16") -> int:
    if encoding == "utf-32":
        return len(s)
    if encoding == "utf-8":
        return len(s.encode("utf-8"))
    return len(s.encode("utf-16-le")) // 2


def range_of(text: str, needle: str, *, after: str = "", encoding: str = "utf-16") -> types.Range:
    """The range of the first `needle` that follows the first `after`."""
    start = text.index(needle, text.index(after) + len(after) if after else 0)
    line = text.count("\n", 0, start)
    line_start = text.rfind("\n", 0, start) + 1
    col = units(text[line_start:start], encoding)
    return types.Range(types.Position(line, col),
                       types.Position(line, col + units(needle, encoding)))


def offset(text: str, pos: types.Position) -> int:
    lines = text.split("\n")
    base = sum(len(line) + 1 for line in lines[: pos.line])
    line = lines[pos.line] if pos.line < len(lines) else ""
    units_seen = 0
    for i, ch in enumerate(line):
        if units_seen >= pos.character:
            return base + i
        units_seen += units(ch)
    return base + len(line)


def apply_edits(text: str, edits) -> str:
    """Apply LSP TextEdits (positions refer to the original text)."""
    spans = sorted(((offset(text, e.range.start), offset(text, e.range.end), e.new_text)
                    for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def edits_for(edit: types.WorkspaceEdit, uri: str) -> list[types.TextEdit]:
    if edit.document_changes:
        return [e for dc in edit.document_changes if dc.text_document.uri == uri for e in dc.edits]
    return list((edit.changes or {}).get(uri, []))
