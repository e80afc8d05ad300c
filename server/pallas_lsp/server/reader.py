"""Reading JSON-RPC messages off a stream, answering the malformed ones ourselves.

pygls' loop logs a traceback (which the client log handler forwards) for a body that is
not JSON, and sends nothing back.  Here every message is framed and checked before pygls
sees it, with JSON-RPC's answers: `-32700` for a body that is not JSON, `-32600` for JSON
that is not a request, notification or response, `-32602` for a request whose params do
not fit its method.  Each is a one-line log message.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest, JsonRpcParseError
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage

log = logging.getLogger(__name__)


class MalformedMessage(Exception):
    """A message pygls must not see: the JSON-RPC error to answer with, and the id to answer."""

    def __init__(self, error: JsonRpcException, msg_id: Any = None) -> None:
        super().__init__(error.message)
        self.error = error
        self.msg_id = msg_id


async def read_headers(reader: asyncio.StreamReader) -> dict[str, str] | None:
    """The header fields of the next message (names lower-cased); None at the end of input."""
    headers: dict[str, str] = {}
    while True:
        line = await reader.readline()
        if not line:
            return None
        if not line.strip():
            if headers:
                return headers
            continue   # blank lines between messages
        name, sep, value = line.decode("ascii", "replace").partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()


def parse_message(body: bytes, protocol) -> Any:
    """The message pygls handles, structured by `protocol`; raises `MalformedMessage`."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise MalformedMessage(JsonRpcParseError(f"Parse error: {exc}")) from None
    if not isinstance(data, dict):
        raise MalformedMessage(JsonRpcInvalidRequest("Invalid request: a message must be a JSON object"))
    msg_id = data.get("id")
    if not isinstance(msg_id, (int, str)) or isinstance(msg_id, bool):
        msg_id = None
    if data.get("jsonrpc") != "2.0":
        raise MalformedMessage(JsonRpcInvalidRequest('Invalid request: "jsonrpc" must be "2.0"'), msg_id)
    is_call = isinstance(data.get("method"), str)
    is_response = "id" in data and ("result" in data or "error" in data)
    if not (is_call or is_response):
        raise MalformedMessage(JsonRpcInvalidRequest(
            'Invalid request: neither a "method" nor a "result" / "error"'), msg_id)
    if not is_call:
        return protocol.structure_message(data)   # a response: pygls knows the result type it awaits
    method = data["method"]
    kind = protocol.get_message_type(method) or (JsonRPCRequestMessage if "id" in data else JsonRPCNotification)
    try:
        return protocol._converter.structure(data, kind)
    except Exception:   # cattrs says which field, at length: one line is enough here
        raise MalformedMessage(JsonRpcInvalidParams(f"Invalid params for {method!r}"),
                               msg_id if "id" in data else None) from None


def answer_malformed(problem: MalformedMessage, protocol) -> None:
    """Log it in one line; answer it unless it was a notification with bad params."""
    log.error("pallas-lsp: %s (JSON-RPC error %d)", problem.error.message, problem.error.code)
    if isinstance(problem.error, JsonRpcInvalidParams) and problem.msg_id is None:
        return   # a notification: JSON-RPC never answers those
    error = {"code": problem.error.code, "message": problem.error.message}
    protocol._send_data({"jsonrpc": "2.0", "id": problem.msg_id, "error": error})   # `id` null when unknown


async def serve_stream(reader: asyncio.StreamReader, protocol, stop_event: threading.Event) -> None:
    """Handle every message of `reader` until its end, `stop_event`, or `exit` (SystemExit)."""
    while not stop_event.is_set():
        headers = await read_headers(reader)
        if headers is None:
            return
        length = headers.get("content-length", "")
        if not length.isdigit():
            log.error("pallas-lsp: a message without a valid Content-Length header was skipped")
            continue
        body = await reader.readexactly(int(length))
        try:
            message = parse_message(body, protocol)
        except MalformedMessage as problem:
            answer_malformed(problem, protocol)
            continue
        try:
            protocol.handle_message(message)
        except Exception as exc:   # a handler's own failure: logged, the server goes on
            log.error("pallas-lsp: handling %s failed: %s", getattr(message, "method", "a message"), exc)
