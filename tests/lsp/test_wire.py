"""The JSON-RPC edges, as raw bytes through a real server process (stdin a pipe or a file,
TCP): malformed messages get their JSON-RPC error and the server goes on; `exit` gives the
status LSP asks for."""

from __future__ import annotations

import json
import queue
import socket
import subprocess
import sys
import threading
import time

import pytest

from .conftest import SERVER_COMMAND, TIMEOUT

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


# -- a session that waits for each answer ---------------------------------------------------
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602


def message(**fields) -> bytes:
    return frame({"jsonrpc": "2.0", **fields})


def hover(msg_id: int, line: object = 0) -> bytes:
    return message(id=msg_id, method="textDocument/hover", params={
        "textDocument": {"uri": "file:///nowhere/ghost.py"},
        "position": {"line": line, "character": 0}})


class RawSession:
    """A server process spoken to in bytes; what it sends is read on a thread."""

    def __init__(self, send, stream, proc: subprocess.Popen) -> None:
        self.send, self.proc = send, proc
        self.received: queue.Queue[dict] = queue.Queue()
        self.log_messages: list[str] = []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        while True:
            length = None
            while (line := stream.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                return
            self.received.put(json.loads(stream.read(length)))

    def response(self, msg_id: int | None) -> dict:
        """The next response with this id (server notifications and requests skipped)."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            got = self.received.get(timeout=max(0.1, deadline - time.monotonic()))
            if got.get("method") == "window/logMessage":
                self.log_messages.append(got["params"]["message"])
            elif "method" not in got and got.get("id") == msg_id:
                return got

    def initialize(self) -> None:
        self.send(message(id=1, method="initialize",
                          params={"processId": None, "rootUri": None, "capabilities": {}}))
        assert "capabilities" in self.response(1)["result"]
        self.send(message(method="initialized", params={}))

    def exit_status(self) -> int:
        return self.proc.wait(timeout=TIMEOUT)


@pytest.fixture
def stdio(tmp_path):
    stderr = (tmp_path / "stderr.txt").open("wb")
    proc = subprocess.Popen(SERVER_COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=stderr)

    def send(data: bytes) -> None:
        proc.stdin.write(data)
        proc.stdin.flush()

    session = RawSession(send, proc.stdout, proc)
    session.initialize()
    yield session
    proc.kill()
    proc.wait()
    stderr.close()
    # refusals are one line each, in the log file / stderr as in the editor's log
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()
    assert not any("Traceback" in m for m in session.log_messages)


def error_of(response: dict) -> int:
    return response["error"]["code"]


def test_a_body_that_is_not_utf8_is_a_parse_error_in_one_log_line(stdio):
    stdio.send(frame(b"\xff\xfe not even UTF-8"))
    assert error_of(stdio.response(None)) == PARSE_ERROR
    stdio.send(hover(3))
    assert stdio.response(3)["result"] is None
    assert any(m.startswith("Parse error") for m in stdio.log_messages)


@pytest.mark.parametrize(("body", "answered_id"), [
    (b'{"jsonrpc": "2.0"}', None),                                   # no method, no response
    (b'{"jsonrpc": "1.0", "id": 4, "method": "shutdown"}', 4),
    (b'{"jsonrpc": "2.0", "id": [4], "method": "shutdown"}', None),  # an id of the wrong type
    (b'{"jsonrpc": "2.0", "id": 4, "method": 7}', 4),
    (b'{"jsonrpc": "2.0", "id": 4, "method": "textDocument/hover", "params": 3}', 4),
])
def test_a_message_that_is_not_a_request_is_an_invalid_request(stdio, body, answered_id):
    stdio.send(frame(body))
    assert error_of(stdio.response(answered_id)) == INVALID_REQUEST
    stdio.send(hover(5))
    assert stdio.response(5)["result"] is None


def test_params_that_do_not_fit_are_invalid_params(stdio):
    stdio.send(hover(6, line="first"))
    refused = stdio.response(6)
    assert error_of(refused) == INVALID_PARAMS
    assert "position.line" in refused["error"]["message"]
    # a notification gets no answer, only a log line
    stdio.send(message(method="textDocument/didOpen", params={"textDocument": {}}))
    stdio.send(hover(7))
    assert stdio.response(7)["result"] is None
    assert any("Invalid params for textDocument/didOpen" in m for m in stdio.log_messages)


def test_a_request_after_shutdown_is_an_invalid_request(stdio):
    stdio.send(message(id=8, method="shutdown"))
    assert stdio.response(8)["result"] is None
    stdio.send(hover(9))   # the LSP: requests after shutdown are invalid
    assert error_of(stdio.response(9)) == INVALID_REQUEST
    stdio.send(message(method="exit"))
    assert stdio.exit_status() == 0


def test_null_params_are_no_params(stdio):
    """Clients send `"params": null` with shutdown and exit: a clean end, exit status 0."""
    stdio.send(frame(b'{"jsonrpc": "2.0", "id": 8, "method": "shutdown", "params": null}'))
    assert stdio.response(8)["result"] is None
    stdio.send(frame(b'{"jsonrpc": "2.0", "method": "exit", "params": null}'))
    assert stdio.exit_status() == 0


@pytest.mark.parametrize(("ending", "status"), [
    ([message(method="exit")], 1),
    ([message(id=2, method="shutdown"), message(method="exit")], 0),
    ([], 0),   # the stream ends without exit
])
def test_exit_status_when_stdin_is_a_file(tmp_path, ending, status):
    """stdin that is not a pipe (a file, a tty) is read through a thread, same loop."""
    script = tmp_path / "session.bin"
    script.write_bytes(b"".join([
        message(id=1, method="initialize",
                params={"processId": None, "rootUri": None, "capabilities": {}}),
        frame(b"{not json"), *ending]))
    with script.open("rb") as stdin:
        done = subprocess.run(SERVER_COMMAND, stdin=stdin, capture_output=True, timeout=TIMEOUT)
    assert done.returncode == status
    assert b'"code": -32700' in done.stdout
    assert b"Traceback" not in done.stderr


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _connect(port: int, proc: subprocess.Popen) -> socket.socket:
    deadline = time.monotonic() + 60
    while True:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        except OSError:
            assert time.monotonic() < deadline and proc.poll() is None, "server did not listen"
            time.sleep(0.1)


def test_over_tcp_the_same_loop_answers_and_exits_1_without_shutdown():
    port = _free_port()
    proc = subprocess.Popen([*SERVER_COMMAND, "--tcp", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with _connect(port, proc) as conn:
            session = RawSession(conn.sendall, conn.makefile("rb"), proc)
            session.initialize()
            session.send(frame(b"{not json"))
            assert error_of(session.response(None)) == PARSE_ERROR
            session.send(hover(2))
            assert session.response(2)["result"] is None
            session.send(message(method="exit"))
            assert session.exit_status() == 1
    finally:
        proc.kill()
        proc.wait()
