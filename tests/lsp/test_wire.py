"""The JSON-RPC edges, as raw bytes through a real server process: malformed messages get
their JSON-RPC error and the server goes on; `exit` gives the status LSP asks for."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"processId": None, "rootUri": None, "capabilities": {}}}
SHUTDOWN = {"jsonrpc": "2.0", "id": 99, "method": "shutdown"}
EXIT = {"jsonrpc": "2.0", "method": "exit"}


def frame(message) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def session(*messages) -> tuple[int, list[dict], str]:
    """Send `messages` (framed) to a fresh server: (its exit status, the responses, stderr)."""
    proc = subprocess.run([sys.executable, "-m", "pallas_lsp"], input=b"".join(map(frame, messages)),
                          capture_output=True, timeout=60)
    replies = []
    for chunk in proc.stdout.split(b"Content-Length: ")[1:]:
        reply = json.loads(chunk.split(b"\r\n\r\n", 1)[1])
        if "id" in reply:
            replies.append(reply)
    return proc.returncode, replies, proc.stderr.decode()


def by_id(replies: list[dict]) -> dict:
    return {r["id"]: r for r in replies}


def test_exit_without_shutdown_exits_1_and_after_shutdown_0():
    assert session(INITIALIZE, EXIT)[0] == 1
    status, replies, _ = session(INITIALIZE, SHUTDOWN, EXIT)
    assert status == 0
    assert by_id(replies)[99] == {"jsonrpc": "2.0", "id": 99, "result": None}


def test_a_body_that_is_not_json_gets_a_parse_error_and_the_server_goes_on():
    status, replies, stderr = session(INITIALIZE, b"{not json", SHUTDOWN, EXIT)
    assert status == 0
    errors = [r for r in replies if "error" in r]
    assert [(r["id"], r["error"]["code"]) for r in errors] == [(None, -32700)]
    assert by_id(replies)[99]["result"] is None          # answered after the bad message
    assert "Traceback" not in stderr


@pytest.mark.parametrize("message, msg_id", [
    ({"jsonrpc": "2.0", "id": 5}, 5),                       # neither a method nor a result
    ({"id": 6, "method": "shutdown"}, 6),                   # no "jsonrpc": "2.0"
    ([{"jsonrpc": "2.0", "id": 7, "method": "shutdown"}], None),   # a batch: not LSP
])
def test_json_that_is_not_a_message_gets_invalid_request(message, msg_id):
    status, replies, stderr = session(INITIALIZE, message, SHUTDOWN, EXIT)
    assert status == 0
    assert [(r["id"], r["error"]["code"]) for r in replies if "error" in r] == [(msg_id, -32600)]
    assert 99 in by_id(replies)
    assert "Traceback" not in stderr


def test_params_that_do_not_fit_get_invalid_params():
    hover = {"jsonrpc": "2.0", "id": 8, "method": "textDocument/hover", "params": {"textDocument": {}}}
    status, replies, stderr = session(INITIALIZE, hover, SHUTDOWN, EXIT)
    assert status == 0
    assert by_id(replies)[8]["error"]["code"] == -32602
    assert "textDocument/hover" in by_id(replies)[8]["error"]["message"]
    assert "Traceback" not in stderr
