"""pygls' protocol, with its document-sync handlers guarded against unknown documents.

pygls applies `didChange` to its workspace before our handlers run and raises on a URI
that was never opened; a client bug like that gets one clear log line here instead.
"""

from __future__ import annotations

import logging
from urllib.parse import unquote

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol, lsp_method

log = logging.getLogger(__name__)


class PallasProtocol(LanguageServerProtocol):
    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        uri = params.text_document.uri
        if unquote(uri) not in self.workspace.text_documents:
            log.warning("didChange for a document that is not open, ignored: %s", uri)
            return
        yield from super().lsp_text_document__did_change(params)

    @lsp_method(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def lsp_notebook_document__did_change(self, params: types.DidChangeNotebookDocumentParams):
        uri = params.notebook_document.uri
        if self.workspace.get_notebook_document(notebook_uri=uri) is None:
            log.warning("didChange for a notebook that is not open, ignored: %s", uri)
            return
        yield from super().lsp_notebook_document__did_change(params)
