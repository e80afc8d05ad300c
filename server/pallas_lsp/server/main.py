"""The pallas-lsp language server: pygls wiring of the handlers.

Each handler is thin: it updates state and defers to `documents` (scheduling and
publishing), `diagnostics` (conversion), `code_actions` and `notebooks`.  Diagnostics are
pulled (`textDocument/diagnostic`) by clients that advertise it, and pushed to the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys

from lsprotocol import types
from pygls.exceptions import FeatureAlreadyRegisteredError
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__, interpreter_build
from ..analysis.workspace import Workspace
from . import capabilities, kernel_params, logs, transport, wire
from .code_actions import KINDS, ActionBuilder, wanted
from .diagnostics import PositionConverter
from .documents import DocumentStore
from .hover import hover as semaphore_hover
from .hover import position
from .protocol import PallasProtocol
from .settings import ProjectConfigs, Selection, Settings, parse_settings
from .warm_up import warm_up

log = logging.getLogger(__name__)

NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[types.NotebookDocumentFilterWithCells(
        notebook="jupyter-notebook",
        cells=[types.NotebookCellLanguage(language="python")],
    )],
    save=True,
)
WATCHED = ("**/pyproject.toml", "**/*.py")
# The analysis thread holds the GIL in slices of this length; the default 5 ms would make
# every message read during a run wait that long.
SWITCH_INTERVAL_S = 0.001


class PallasLanguageServer(LanguageServer):
    """Server state: client features, settings, project configs and the open documents."""

    def __init__(self, file_log_level: int = logging.INFO):
        self.wire_converter = wire.make_converter()
        super().__init__("pallas-lsp", __version__,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         notebook_document_sync=NOTEBOOK_SYNC, protocol_cls=PallasProtocol,
                         converter_factory=lambda: self.wire_converter)
        self.features = capabilities.ClientFeatures()
        self.settings = Settings()
        self.configs = ProjectConfigs()
        self.file_log_level = file_log_level
        self.client_log = logs.ClientLogHandler(self)
        logging.getLogger("pallas_lsp").addHandler(self.client_log)
        # The cross-module index (names imported from the user's other modules and the
        # environment of `interpreter`), made at initialize.  Only the analysis thread
        # touches it: changes are handed over with `store.on_worker`.
        self.project_workspace: Workspace | None = None
        self.store: DocumentStore | None = None
        self._told: set[str] = set()

    # -- helpers -----------------------------------------------------------------------
    @property
    def documents(self) -> DocumentStore:
        """The open documents (made at `initialize`)."""
        if self.store is None:
            raise RuntimeError("a document message came before initialize")
        return self.store

    def report_server_error(self, error, source) -> None:
        """Log protocol-level errors (window/logMessage + log file) instead of pop-ups."""
        log.error("%s: %s", getattr(source, "__name__", source), error)

    def converter(self) -> PositionConverter:
        return PositionConverter(self.workspace.position_codec)

    def selection_for(self, path: str | None) -> Selection:
        selection = self.configs.selection(self.settings, path)
        for problem in selection.problems:
            if problem not in self._told:       # once per problem, not per keystroke
                self._told.add(problem)
                log.warning("%s", problem)
                # a configuration ignored in favour of the defaults must not go unnoticed
                self.window_show_message(types.ShowMessageParams(
                    type=types.MessageType.Warning, message=f"pallas-lsp: {problem}"))
        return selection

    def publish(self, uri: str, diagnostics: list[dict], version: int | None) -> None:
        """Push JSON-ready diagnostics (see `wire`)."""
        params: dict[str, object] = {"uri": uri, "diagnostics": diagnostics}
        if version is not None:
            params["version"] = version
        self.protocol.notify(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, wire.Prebuilt(params))

    def apply_settings(self, raw) -> None:
        self.settings, problems = parse_settings(raw, self.settings)
        for p in problems:
            log.warning("settings: %s", p)
        if self.project_workspace is not None and self.store is not None:
            self.store.on_worker(self.project_workspace.set_interpreter, self.settings.interpreter)
        self.client_log.setLevel(self.settings.log_level_number)
        logging.getLogger("pallas_lsp").setLevel(
            min(self.settings.log_level_number, self.file_log_level))

    def invalidate_workspace_path(self, path: str | None) -> None:
        """A file changed on disk: drop what the cross-module index knows about it."""
        if path and self.project_workspace is not None and self.store is not None:
            self.store.on_worker(self.project_workspace.invalidate, path)

    def workspace_roots(self) -> list[str]:
        roots = [to_fs_path(f.uri) for f in self.workspace.folders.values()]
        if not roots and self.workspace.root_path:
            roots = [self.workspace.root_path]
        return [r for r in roots if r]

    def recheck_all(self) -> None:
        """Re-analyse every open document (settings or project files changed)."""
        if self.store is None:
            return
        self.store.touch_all()
        if self.features.pull_diagnostics and self.features.diagnostic_refresh:
            self.workspace_diagnostic_refresh(None)


server = PallasLanguageServer()


def _is_python(item: types.TextDocumentItem) -> bool:
    lang = (item.language_id or "").lower()
    return "python" in lang or item.uri.endswith((".py", ".pyi"))


# -- lifecycle ---------------------------------------------------------------------------
@server.feature(types.INITIALIZE)
def initialize(ls: PallasLanguageServer, params: types.InitializeParams) -> None:
    ls.client_log.attach(asyncio.get_running_loop())
    ls.features = capabilities.resolve(params.capabilities)
    if ls.features.pull_diagnostics:
        # Registered here, before pygls computes the capabilities: only a pull client is
        # told about `diagnosticProvider` (a client that gets both would show both).
        with contextlib.suppress(FeatureAlreadyRegisteredError):   # a second initialize
            ls.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, DIAGNOSTIC_OPTIONS)(document_diagnostic)
    ls.apply_settings(params.initialization_options)
    ls.project_workspace = Workspace(ls.workspace_roots(), ls.settings.interpreter)
    ls.store = DocumentStore(
        ls, ls.converter, ls.selection_for,
        publish=None if ls.features.pull_diagnostics else ls.publish,
        project_workspace=ls.project_workspace,
    )
    warm_up()   # the analysis's one-time costs, paid before the client may send a document
    log.info("pallas-lsp %s (interpreter: %s): %s diagnostics, position encoding %s", __version__,
             interpreter_build(), "pull" if ls.features.pull_diagnostics else "push",
             getattr(ls.workspace.position_encoding, "value", ls.workspace.position_encoding))


@server.feature(types.INITIALIZED)
async def initialized(ls: PallasLanguageServer, params: types.InitializedParams) -> None:
    if not ls.features.watched_files_registration:
        return
    try:
        await ls.client_register_capability_async(types.RegistrationParams(registrations=[
            types.Registration(
                id="pallas-lsp-watched-files",
                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[types.FileSystemWatcher(glob_pattern=g) for g in WATCHED]),
            )
        ]))
    except Exception as e:  # noqa: BLE001 - a refusal only loses re-checks on file changes
        log.info("file watching not registered: %s", e)


@server.feature(types.SHUTDOWN)
def shutdown(ls: PallasLanguageServer, params) -> None:
    if ls.store is not None:
        ls.store.stop()


# -- text documents ----------------------------------------------------------------------
@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: PallasLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    item = params.text_document
    if not _is_python(item):
        log.debug("not a Python document, not analysed: %s (%s)", item.uri, item.language_id)
        return
    ls.documents.open(item.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: PallasLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    doc = ls.documents.docs.get(params.text_document.uri)
    if doc is not None:
        ls.documents.touch(doc)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: PallasLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.invalidate_workspace_path(to_fs_path(params.text_document.uri))
    ls.recheck_all()   # other open modules may import the saved one


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: PallasLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.documents.close(params.text_document.uri)


# -- notebooks ---------------------------------------------------------------------------
@server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
def notebook_open(ls: PallasLanguageServer, params: types.DidOpenNotebookDocumentParams) -> None:
    ls.documents.open(params.notebook_document.uri, is_notebook=True)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
def notebook_change(ls: PallasLanguageServer, params: types.DidChangeNotebookDocumentParams) -> None:
    doc = ls.documents.docs.get(params.notebook_document.uri)
    if doc is not None:
        ls.documents.touch(doc)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
def notebook_save(ls: PallasLanguageServer, params: types.DidSaveNotebookDocumentParams) -> None:
    ls.recheck_all()


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
def notebook_close(ls: PallasLanguageServer, params: types.DidCloseNotebookDocumentParams) -> None:
    ls.documents.close(params.notebook_document.uri)


# -- diagnostics (pull) and code actions --------------------------------------------------
DIAGNOSTIC_OPTIONS = types.DiagnosticOptions(
    identifier="pallas-lsp", inter_file_dependencies=False, workspace_diagnostics=False)


async def document_diagnostic(ls: PallasLanguageServer, params: types.DocumentDiagnosticParams):
    """textDocument/diagnostic (registered at initialize for pull clients)."""
    uri = params.text_document.uri
    store = ls.documents
    doc = store.get(uri)
    result = await store.current(doc) if doc is not None else None
    if result is None or uri not in result.entries:
        if doc is None:
            log.debug("diagnostics asked for a document that is not open: %s", uri)
        return types.FullDocumentDiagnosticReport(items=[])
    result_id = result.result_ids[uri]
    if params.previous_result_id == result_id:
        return types.UnchangedDocumentDiagnosticReport(result_id=result_id)
    # A FullDocumentDiagnosticReport, built from the cached JSON-ready diagnostics.
    return wire.Prebuilt({"kind": "full", "resultId": result_id, "items": result.wire(uri)})


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=KINDS, resolve_provider=False),
)
async def code_action(ls: PallasLanguageServer, params: types.CodeActionParams):
    uri = params.text_document.uri
    doc = ls.documents.get(uri)
    if doc is None:
        log.debug("code actions asked for a document that is not open: %s", uri)
        return []
    result = await ls.documents.current(doc)
    if result is None:
        return []
    try:
        builder = ActionBuilder(uri, result, ls.features, ls.converter())
        if wanted(types.CodeActionKind.QuickFix, params.context.only):
            targets = [finding for _, finding in builder.targets(params)]
            builder.choices = await ls.documents.judge_choices(doc, result, targets)
        return builder.build(params)
    except Exception:
        log.exception("building code actions for %s failed", uri)
        return []


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(ls: PallasLanguageServer, params: types.HoverParams):
    uri = params.text_document.uri
    doc = ls.documents.get(uri)
    if doc is None:
        return None
    try:
        return await semaphore_hover(ls.documents, doc, uri, params.position, ls.converter())
    except Exception:
        log.exception("hover for %s failed", uri)
        return None


@server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
async def inlay_hint(ls: PallasLanguageServer, params: types.InlayHintParams):
    uri = params.text_document.uri
    doc = ls.documents.get(uri)
    if doc is None or not ls.settings.inlay_hints:
        return []
    try:
        return await kernel_params.inlay_hints(ls.documents, doc, uri, params.range, ls.converter())
    except Exception:
        log.exception("inlay hints for %s failed", uri)
        return []


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
async def definition(ls: PallasLanguageServer, params: types.DefinitionParams):
    uri = params.text_document.uri
    doc = ls.documents.get(uri)
    if doc is None:
        return None
    try:
        result = await ls.documents.current(doc)
        where = position(result, uri, params.position, ls.converter()) if result is not None else None
        if where is None:
            return None
        return await kernel_params.definition(ls.documents, doc, uri, where, ls.converter()) or None
    except Exception:
        log.exception("go to definition in %s failed", uri)
        return None


# -- workspace -----------------------------------------------------------------------------
@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: PallasLanguageServer,
                                   params: types.DidChangeConfigurationParams) -> None:
    raw = params.settings
    if not raw and ls.features.configuration_request:
        # Clients of the "pull configuration" model send an empty notification.
        try:
            items = await ls.workspace_configuration_async(types.ConfigurationParams(
                items=[types.ConfigurationItem(section="pallas")]))
            raw = items[0] if items else None
        except Exception as e:  # noqa: BLE001 - any failure: keep the current settings
            log.warning("could not read the client configuration: %s", e)
            return
    hints = ls.settings.inlay_hints
    ls.apply_settings(raw)
    ls.recheck_all()
    if ls.settings.inlay_hints != hints and ls.features.inlay_hint_refresh:
        ls.workspace_inlay_hint_refresh(None)   # the client asks for the hints again


@server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
def did_change_workspace_folders(ls: PallasLanguageServer,
                                 params: types.DidChangeWorkspaceFoldersParams) -> None:
    roots = ls.workspace_roots()   # pygls has updated its folders already

    def reroot(ws: Workspace) -> None:
        ws.roots = [os.path.abspath(r) for r in roots]
        ws.invalidate(None)

    ls.documents.on_worker(reroot, ls.project_workspace)
    ls.recheck_all()


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: PallasLanguageServer,
                             params: types.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        path = to_fs_path(change.uri)
        if path and os.path.basename(path) == "pyproject.toml":
            ls.configs.clear()
        else:
            ls.invalidate_workspace_path(path)
    ls.recheck_all()


def run_server(tcp: str | None = None, log_file: str | None = None, verbose: int = 0) -> int:
    """Serve LSP over stdio, or over TCP when `tcp` is "HOST:PORT"; returns the exit
    status (1 after an `exit` without `shutdown`, as the LSP asks)."""
    address = _tcp_address(tcp) if tcp else None
    server.file_log_level = logs.configure(log_file, verbose)
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    return transport.serve(server, address)


def _tcp_address(tcp: str) -> tuple[str, int]:
    """(host, port) from "HOST:PORT" ("[::1]:2087" for IPv6; an empty host is 127.0.0.1)."""
    host, sep, port_text = tcp.rpartition(":")
    if not sep or not port_text.isdigit():
        raise ValueError(f"--tcp expects HOST:PORT (e.g. 127.0.0.1:2087), got {tcp!r}")
    return host.strip("[]") or "127.0.0.1", int(port_text)
