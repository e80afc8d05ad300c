"""What the connected client can do, resolved once at `initialize` into a small object.

Handlers ask `features.pull_diagnostics` instead of walking the optional-everything
`ClientCapabilities` tree each time (the pattern of ruff's `ResolvedClientCapabilities`).
"""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types


@dataclass(frozen=True)
class ClientFeatures:
    # textDocument/diagnostic: such a client is answered by pull and never pushed to (it
    # would show both); the others are pushed to.
    pull_diagnostics: bool = False
    # workspace/diagnostic/refresh: a pull client is asked to re-pull after a settings or
    # project change.  One without it (Neovim 0.10/0.11) re-pulls on its next edit.
    diagnostic_refresh: bool = False
    related_information: bool = False       # Diagnostic.relatedInformation is shown
    code_description: bool = False         # Diagnostic.codeDescription (rule doc link)
    document_changes: bool = False          # WorkspaceEdit.documentChanges (versioned edits)
    preferred_actions: bool = False         # CodeAction.isPreferred
    configuration_request: bool = False     # workspace/configuration
    watched_files_registration: bool = False  # dynamic didChangeWatchedFiles registration
    inlay_hint_refresh: bool = False        # workspace/inlayHint/refresh (after the setting changes)


def _get(obj, *names):
    """Follow optional attributes; None as soon as one is missing."""
    for name in names:
        if obj is None:
            return None
        obj = getattr(obj, name, None)
    return obj


def resolve(caps: types.ClientCapabilities | None) -> ClientFeatures:
    """Read the capabilities we care about (missing anything means unsupported)."""
    td = _get(caps, "text_document")
    pull = _get(td, "diagnostic")
    push = _get(td, "publish_diagnostics")
    # LSP 3.18 lets a pull client state related-information support on the
    # diagnostic capability itself; older pull clients state it on publishDiagnostics.
    def either(name):
        return bool(_get(push, name) or (pull is not None and _get(pull, name)))

    return ClientFeatures(
        pull_diagnostics=pull is not None,
        diagnostic_refresh=bool(_get(caps, "workspace", "diagnostics", "refresh_support")),
        related_information=either("related_information"),
        code_description=either("code_description_support"),
        document_changes=bool(_get(caps, "workspace", "workspace_edit", "document_changes")),
        preferred_actions=bool(_get(td, "code_action", "is_preferred_support")),
        configuration_request=bool(_get(caps, "workspace", "configuration")),
        watched_files_registration=bool(
            _get(caps, "workspace", "did_change_watched_files", "dynamic_registration")
        ),
        inlay_hint_refresh=bool(_get(caps, "workspace", "inlay_hint", "refresh_support")),
    )
