"""The protocol's edges, in raw bytes through a real server process (stdio and TCP):
malformed and invalid messages are answered with JSON-RPC errors and the server goes on;
`exit` ends the process with status 0 after `shutdown` and 1 without."""

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

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def message(**fields) -> bytes:
    return frame(json.dumps({"jsonrpc": "2.0", **fields}).encode())


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


def test_a_body_that_is_not_json_is_a_parse_error_and_the_server_goes_on(stdio):
    stdio.send(frame(b'{"jsonrpc": "2.0", "id": 2, "method": '))
    assert error_of(stdio.response(None)) == PARSE_ERROR
    stdio.send(frame(b"\xff\xfe not even UTF-8"))
    assert error_of(stdio.response(None)) == PARSE_ERROR
    stdio.send(hover(3))
    assert stdio.response(3)["result"] is None
    assert any(m.startswith("Parse error") for m in stdio.log_messages)


@pytest.mark.parametrize(("body", "answered_id"), [
    (b'{"jsonrpc": "2.0"}', None),                                   # no method, no response
    (b'{"id": 4, "method": "shutdown"}', 4),                         # no "jsonrpc"
    (b'{"jsonrpc": "1.0", "id": 4, "method": "shutdown"}', 4),
    (b'{"jsonrpc": "2.0", "id": [4], "method": "shutdown"}', None),  # an id of the wrong type
    (b'{"jsonrpc": "2.0", "id": 4, "method": 7}', 4),
    (b'{"jsonrpc": "2.0", "id": 4, "method": "textDocument/hover", "params": 3}', 4),
    (b"[1, 2]", None),                                               # not an object
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


def test_exit_without_shutdown_exits_1(stdio):
    stdio.send(message(method="exit"))
    assert stdio.exit_status() == 1


def test_shutdown_then_exit_exits_0(stdio):
    stdio.send(message(id=8, method="shutdown"))
    assert stdio.response(8)["result"] is None
    stdio.send(hover(9))   # the LSP: requests after shutdown are invalid
    assert error_of(stdio.response(9)) == INVALID_REQUEST
    stdio.send(message(method="exit"))
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
