"""The reading loop: messages framed, checked and handed to pygls, over stdio or TCP.

One loop serves every transport.  It frames each message by its `Content-Length` header,
answers a body that is not JSON (-32700) or not a JSON-RPC message (-32600) itself
(`jsonrpc`), and hands the structured message to pygls' protocol (`handle_message`);
every refusal is one log line, never a traceback.  It ends at the end of the stream or
at `exit`, whose status it returns: pygls' `exit` handler raises `SystemExit` with 0
after `shutdown` and 1 without.

stdio is read on the event loop itself when it is a pipe.  pygls' own reader reads every
header line and body through a thread pool: three thread hand-offs per message, and while
the analysis thread runs each hand-off waits for the GIL, so a burst of keystrokes would
be read a few messages per analysis run.  Read with asyncio, all the messages already in
the pipe are handled back to back before any analysis starts (only then does the loop get
to the scheduled run), which is what makes coalescing work.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
import threading

from pygls.io_ import StdinAsyncReader, StdoutWriter

from .jsonrpc import BadMessage, parse

log = logging.getLogger(__name__)

CONTENT_LENGTH = "content-length"


def pipe_capable(stream) -> bool:
    """Whether asyncio can watch this stream (a pipe or socket, not a file or a tty)."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


async def _content_length(reader) -> int | None:
    """Read one header block; its `Content-Length`, or None at the end of the stream.
    A block without a usable length is logged and skipped."""
    length: int | None = None
    seen_header = False
    while True:
        try:
            line = await reader.readline()
        except ValueError:   # a "line" longer than the stream's limit: junk, dropped
            log.warning("an overlong header line was dropped")
            continue
        if not line:
            return None
        if line.strip():
            seen_header = True
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == CONTENT_LENGTH:
                length = int(value) if value.strip().isdigit() else None
            continue
        if length is not None:
            return length
        if seen_header:
            log.warning("a message without a valid Content-Length header was skipped")
            seen_header = False


async def read_body(reader) -> bytes | None:
    """The body of the next message; None at the end of the stream."""
    length = await _content_length(reader)
    if length is None:
        return None
    try:
        body = await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        body = b""
    if len(body) < length:   # pygls' stdin reader returns what there was
        log.info("the client closed the connection mid-message")
        return None
    return body


def handle(protocol, body: bytes) -> None:
    """Check, structure and hand one message to pygls; answer what it refuses."""
    try:
        message = protocol.structure_message(parse(body))
    except BadMessage as bad:
        log.warning("%s", bad.reason)
        if bad.answered:
            protocol.reply_error(bad)
        return
    try:
        protocol.handle_message(message)
    except Exception as e:  # noqa: BLE001 - one message must not take the server down
        log.error("handling %s failed: %s", getattr(message, "method", "a response"), e)


async def serve_messages(reader, protocol, stop_event: threading.Event) -> int | None:
    """Handle every message of `reader` until the stream ends (None) or the client sends
    `exit` (its exit status)."""
    while not stop_event.is_set():
        body = await read_body(reader)
        if body is None:
            return None
        try:
            handle(protocol, body)
        except SystemExit as stop:   # pygls' `exit` handler, which closed the writer
            protocol.writer = None   # what is still pending is not sent (nor logged to the client)
            return stop.code if isinstance(stop.code, int) else 1
    return None


async def _stdin_reader(server, stdin) -> asyncio.StreamReader | StdinAsyncReader:
    """Read on the event loop where stdin is a pipe; a file or a tty through a thread."""
    if not pipe_capable(stdin):
        return StdinAsyncReader(stdin, server.thread_pool)
    reader = asyncio.StreamReader()
    loop = asyncio.get_running_loop()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
    return reader


async def _serve_stdio(server, stdin, stdout) -> int | None:
    reader = await _stdin_reader(server, stdin)
    server.protocol.set_writer(StdoutWriter(stdout))
    return await serve_messages(reader, server.protocol, server._stop_event)


async def _serve_tcp(server, host: str, port: int) -> int | None:
    """Serve the first client that connects, until it leaves or sends `exit`."""
    done: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if done.done():   # one client per server, as with stdio
            writer.close()
            return
        server.protocol.set_writer(writer)
        try:
            status = await serve_messages(reader, server.protocol, server._stop_event)
        except ConnectionError as e:
            log.error("connection to the client lost: %s", e)
            status = None
        if not done.done():
            done.set_result(status)

    listener = await asyncio.start_server(connection, host, port)
    log.info("serving on %s", ", ".join(str(s.getsockname()) for s in listener.sockets))
    async with listener:
        return await done


def serve(server, tcp: tuple[str, int] | None = None) -> int:
    """Serve LSP on stdin/stdout, or on TCP at `tcp` (host, port); returns the exit status
    (0 when the stream ends without `exit`)."""
    server._stop_event = threading.Event()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    status: int | None = None
    try:
        if tcp is not None:
            status = asyncio.run(_serve_tcp(server, *tcp))
        else:
            status = asyncio.run(_serve_stdio(server, stdin, stdout))
    except BrokenPipeError:
        log.error("connection to the client lost; shutting down")
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
    return status or 0
