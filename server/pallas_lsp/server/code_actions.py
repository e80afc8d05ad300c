"""Code actions: quick fixes tied to their diagnostic, and `source.fixAll.pallas`.

Edits are built by `pallas_lsp.analysis.fixes` from the finding carried in
`Diagnostic.data` (ruff-lsp style).  When the data is missing (a client that drops it) or
stale (the text under the diagnostic changed), the finding is taken from the analysis of
the current text instead.  Spans are converted to the client's encoding here; in a
notebook each edit goes to the cell that holds it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

from lsprotocol import types

from ..analysis import fixes
from ..analysis.choices import ChoiceCheck
from ..analysis.findings import Finding, Span, finding_from_data
from .capabilities import ClientFeatures
from .diagnostics import SOURCE, PositionConverter
from .documents import Result

log = logging.getLogger(__name__)

FIX_ALL_KIND = f"{types.CodeActionKind.SourceFixAll.value}.pallas"
# VS Code asks for this kind on a notebook's save (`notebook.codeActionsOnSave`).
NOTEBOOK_FIX_ALL_KIND = f"notebook.{FIX_ALL_KIND}"
KINDS = [types.CodeActionKind.QuickFix, FIX_ALL_KIND, NOTEBOOK_FIX_ALL_KIND]


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """LSP kind matching: `source.fixAll` asks for `source.fixAll.pallas` too."""
    return only is None or any(kind == k or kind.startswith(f"{k}.") for k in only)


def _before(a: types.Position, b: types.Position) -> bool:
    return (a.line, a.character) < (b.line, b.character)


def _overlap(a: types.Range, b: types.Range) -> bool:
    """Ranges overlap or touch (an empty request range at a diagnostic's end counts)."""
    return not (_before(a.end, b.start) or _before(b.end, a.start))


class ActionBuilder:
    """Turns fixes for one request into code actions."""

    def __init__(self, uri: str, result: Result, features: ClientFeatures,
                 converter: PositionConverter, choices: ChoiceCheck | None = None):
        self.uri = uri
        self.choices = choices                        # judged choices: the unsound ones are left out
        self.result = result
        self.features = features
        self.converter = converter
        self.lines = result.lines_with_endings        # what `fixes` expects

    def locate(self, span: Span):
        if self.result.notebook is not None:
            return self.result.notebook.locate(span)
        return self.uri, self.result.lines, span

    def workspace_edit(self, edits: Iterable[fixes.TextEdit]) -> types.WorkspaceEdit | None:
        """The edit, grouped per document (per cell); None if an edit cannot be placed."""
        per_uri: dict[str, list[types.TextEdit]] = {}
        for e in edits:
            placed = self.locate(e.span)
            if placed is None:
                return None
            uri, lines, span = placed
            per_uri.setdefault(uri, []).append(
                types.TextEdit(self.converter.span_to_range(lines, span), e.new_text))
        if not per_uri:
            return None
        if self.features.document_changes:
            return types.WorkspaceEdit(document_changes=[
                types.TextDocumentEdit(
                    types.OptionalVersionedTextDocumentIdentifier(
                        uri, self.result.versions.get(uri)),
                    list(text_edits))
                for uri, text_edits in per_uri.items()
            ])
        return types.WorkspaceEdit(changes=per_uri)

    def _from_data(self, diag: types.Diagnostic) -> Finding | None:
        """The finding carried by the diagnostic, if it still matches the text."""
        if not isinstance(diag.data, dict):
            return None
        try:
            f = finding_from_data(diag.data)
        except (KeyError, TypeError, ValueError):
            return None
        if f.fix is not None:
            if fixes.text_at(self.lines, f.span) != f.fix.sem_text:
                return None                              # stale: the text moved on
        elif f not in self.result.findings:
            return None                                  # nothing to check it by: trust only a current one
        return f

    def _current(self, diag: types.Diagnostic) -> Finding | None:
        """Re-analysis fallback: the current finding with this code at this range."""
        for f, d, _ in self.result.entries.get(self.uri, ()):
            if d.code == diag.code and d.range == diag.range:
                return f
        return None

    def targets(self, params: types.CodeActionParams):
        """(diagnostic, finding) pairs the request is about."""
        ours = [d for d in params.context.diagnostics if d.source == SOURCE]
        if ours:
            for d in ours:
                f = self._from_data(d) or self._current(d)
                if f is not None:
                    yield d, f
            return
        # The client sent no diagnostics of ours (some do not): the request range decides.
        for f, d, _ in self.result.entries.get(self.uri, ()):
            if _overlap(d.range, params.range):
                yield d, f

    def build(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        only = params.context.only
        actions: list[types.CodeAction] = []
        if wanted(types.CodeActionKind.QuickFix, only):
            for diag, finding in self.targets(params):
                for fix in fixes.fixes_for(finding, self.lines):
                    if self.choices is not None and self.choices.judged(finding, fix) is False:
                        continue                          # it would leave a finding behind
                    edit = self.workspace_edit(fix.edits)
                    if edit is None:
                        continue
                    actions.append(types.CodeAction(
                        title=f"Pallas ({fix.code}): {fix.title}",
                        kind=fix.kind,
                        diagnostics=[diag],
                        edit=edit,
                        is_preferred=(fix.preferred or None) if self.features.preferred_actions else None,
                    ))
        kinds = [FIX_ALL_KIND]
        if self.result.notebook is not None:
            kinds.append(NOTEBOOK_FIX_ALL_KIND)
        kinds = [k for k in kinds if wanted(k, only)]
        if kinds and self.result.findings:
            edits = fixes.fix_all_edits(self.result.findings, self.lines)
            edit = self.workspace_edit(edits) if edits else None
            if edit is not None:
                actions.extend(types.CodeAction(
                    title="Pallas: index every semaphore array passed whole",
                    kind=kind,
                    edit=edit,
                ) for kind in kinds)
        return actions
