"""pygls' protocol, with its `didChange` handling guarded and made cheaper.

- pygls applies `didChange` to its workspace before our handlers run and raises on a URI
  that was never opened; a client bug like that gets one clear log line here instead.
- pygls applies an incremental change by rebuilding the text line by line in Python
  (about 1 ms at 3,000 lines, 10 ms at 20,000, per keystroke).  For `\n`-only text the
  change is applied here with two string slices instead, the line found by walking from
  the previous change's line, columns converted with pygls' position codec; text with
  `\r` goes through pygls unchanged.
- Messages come structured from `structure_message` (the reading loop of `transport`
  has checked them with `jsonrpc.parse`): params that do not fit the method's type are an
  invalid-params error (-32602) of one line, not a logged traceback; a request after
  `shutdown` is answered with an invalid-request error, as the LSP asks.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import unquote

import cattrs
from lsprotocol import types
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    LanguageServerProtocol,
    lsp_method,
)

from .diagnostics import PositionConverter
from .jsonrpc import INVALID_PARAMS, INVALID_REQUEST, BadMessage

log = logging.getLogger(__name__)


_WALK = 64   # farther than this from a known line, let `str.split` find the line


def _line_start(text: str, line: int, known: tuple[int, int]) -> int | None:
    """Offset of the start of `line` in `\n`-separated `text`; None when the text has
    fewer lines.  Near `known` (a line and its start offset, e.g. the previous keystroke's)
    it walks a few lines; otherwise `str.split` counts them in C."""
    cur, off = known
    if abs(line - cur) > _WALK:
        pieces = text.split("\n", line)
        return len(text) - len(pieces[-1]) if len(pieces) > line else None
    while cur < line:
        nl = text.find("\n", off)
        if nl < 0:
            return None
        cur, off = cur + 1, nl + 1
    while cur > line:
        cur, off = cur - 1, text.rfind("\n", 0, off - 1) + 1
    return off


def apply_change(source: str, change, converter: PositionConverter,
                 known: tuple[int, int] = (0, 0)) -> tuple[str, tuple[int, int]]:
    """`source` (which must hold no `\r`) after one change, and a (line, line start) of the
    new text to start the next search from."""
    if not isinstance(change, types.TextDocumentContentChangePartial):
        return change.text, (0, 0)

    def offset(pos: types.Position) -> tuple[int, int]:   # (offset, its line's start)
        start = _line_start(source, pos.line, known)
        if start is None:
            return len(source), -1
        end = source.find("\n", start)
        text = source[start:end if end >= 0 else len(source)]
        return start + converter.column_to_server(text, pos.character), start

    (a, a_line), (b, _) = offset(change.range.start), offset(change.range.end)
    if b < a:
        a, b = b, a
        a_line = -1
    new = source[:a] + change.text + source[b:]
    # The start line of the edit keeps its start offset in the new text.
    return new, (change.range.start.line, a_line) if a_line >= 0 else (0, 0)


class PallasProtocol(LanguageServerProtocol):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # URI -> (text, (line, start offset of that line)) from the last change.
        self._hints: dict[str, tuple[str, tuple[int, int]]] = {}

    # pygls declares it with @lru_cache, a wrapper type a plain method cannot match
    def get_message_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        # publishDiagnostics is only ever sent, with prebuilt params (see `wire`): send it
        # as a plain notification so its params are not re-serialised field by field.
        if method == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            return JsonRPCNotification
        return super().get_message_type(method)

    def structure_message(self, data: dict[str, Any]):
        """The typed message of a checked JSON-RPC message (`jsonrpc.parse`).  Raises
        `BadMessage` for params that do not fit a request's or notification's type; a
        response that does not fit fails the request that awaits it."""
        if "method" in data:
            fallback = JsonRPCRequestMessage if "id" in data else JsonRPCNotification
            kind = self.get_message_type(data["method"]) or fallback
        elif "error" in data:
            kind = types.ResponseErrorMessage
        else:
            kind = self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
        try:
            return self._converter.structure(data, kind)
        except Exception as e:  # noqa: BLE001 - cattrs raises many kinds; all mean "does not fit"
            reason = "; ".join(cattrs.transform_error(e)) if isinstance(
                e, cattrs.ClassValidationError) else str(e)
            if "method" in data:
                raise BadMessage(INVALID_PARAMS, f"Invalid params for {data['method']}: {reason}",
                                 data.get("id"), answered="id" in data) from None
            log.warning("a response to request %r does not fit its type: %s", data["id"], reason)
            return types.ResponseErrorMessage(id=data["id"], error=types.ResponseError(
                code=INVALID_PARAMS, message=f"the client's response does not fit: {reason}"))

    def handle_message(self, message) -> None:
        if self._shutdown and getattr(message, "method", types.EXIT) != types.EXIT \
                and getattr(message, "id", None) is not None:
            self.reply_error(BadMessage(INVALID_REQUEST, "Invalid Request: the server is "
                                        f"shut down ({message.method})", message.id))
            return
        super().handle_message(message)

    def reply_error(self, bad: BadMessage) -> None:
        """Answer a message the server refuses (with `id` null when it has none)."""
        self._send_data(bad.response())

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        uri = params.text_document.uri
        doc = self.workspace.text_documents.get(unquote(uri))
        if doc is None:
            log.warning("didChange for a document that is not open, ignored: %s", uri)
            return
        source = doc.source
        if "\r" in source or any("\r" in c.text for c in params.content_changes):
            yield from super().lsp_text_document__did_change(params)
            return
        converter = PositionConverter(self.workspace.position_codec)
        hint_source, known = self._hints.get(uri, (None, (0, 0)))
        if hint_source is not source:
            known = (0, 0)
        for change in params.content_changes:
            source, known = apply_change(source, change, converter, known)
        self.workspace.put_text_document(types.TextDocumentItem(
            uri=uri, language_id=doc.language_id or "python",
            version=params.text_document.version, text=source))
        self._hints[uri] = (source, known)
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams):
        self._hints.pop(params.text_document.uri, None)
        yield from super().lsp_text_document__did_close(params)

    @lsp_method(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def lsp_notebook_document__did_change(self, params: types.DidChangeNotebookDocumentParams):
        uri = params.notebook_document.uri
        if self.workspace.get_notebook_document(notebook_uri=uri) is None:
            log.warning("didChange for a notebook that is not open, ignored: %s", uri)
            return
        yield from super().lsp_notebook_document__did_change(params)
