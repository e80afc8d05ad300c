"""JSON-RPC messages as they arrive, checked before pygls sees them.

A body that is not JSON is a parse error (-32700); JSON that is not a JSON-RPC 2.0 message
(not an object, `"jsonrpc"` not "2.0", no `method` and not a response, a `method` or `id`
of the wrong type, `params` neither an object nor an array) is an invalid request
(-32600); `"params": null`, which many clients send with `shutdown` and `exit`, counts as
no params.  Both are answered with `id` null unless the message has a valid id.  Params
that do not fit the method's type (-32602) are found where the message is structured
(`protocol.PallasProtocol.structure_message`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

MessageId = int | str


@dataclass
class BadMessage(Exception):
    """A message the server refuses: its error code, why, and whom to answer (`id`;
    `answered` is false for a notification, which gets no reply)."""

    code: int
    reason: str
    id: MessageId | None = None
    answered: bool = True

    def response(self) -> dict:
        """The JSON-RPC error response (JSON-ready)."""
        return {"jsonrpc": "2.0", "id": self.id,
                "error": {"code": self.code, "message": self.reason}}


def _valid_id(value: object) -> bool:
    return isinstance(value, (int, str)) and not isinstance(value, bool)


def _invalid(reason: str, data: dict) -> BadMessage:
    msg_id = data.get("id")
    return BadMessage(INVALID_REQUEST, f"Invalid Request: {reason}",
                      msg_id if _valid_id(msg_id) else None)


def _problem(data: dict) -> str | None:
    """What makes this JSON object no JSON-RPC 2.0 message, or None."""
    if data.get("jsonrpc") != "2.0":
        return '"jsonrpc" must be "2.0"'
    if "method" in data:
        if not isinstance(data["method"], str):
            return '"method" must be a string'
        if "id" in data and not _valid_id(data["id"]):
            return '"id" must be a number or a string'
        if not isinstance(data.get("params", {}), (dict, list)):
            return '"params" must be an object or an array'
        return None
    if "id" not in data or ("result" in data) == ("error" in data):
        return 'no "method" (nor the "id" and "result" or "error" of a response)'
    return None


def parse(body: bytes) -> dict:
    """The message in `body`, a JSON-RPC 2.0 request, notification or response; raises
    `BadMessage` for anything else."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as e:   # not JSON, not UTF-8, nested too deep
        raise BadMessage(PARSE_ERROR, f"Parse error: {e}") from None
    if not isinstance(data, dict):
        raise BadMessage(INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
    if "method" in data and "params" in data and data["params"] is None:
        del data["params"]
    problem = _problem(data)
    if problem is not None:
        raise _invalid(problem, data)
    return data
