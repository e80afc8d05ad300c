"""Serving stdio (and TCP) with the stream read on the event loop itself.

pygls' own stdio reader reads every header line and body through a thread pool: three
thread hand-offs per message.  While the analysis thread runs, each hand-off waits for the
GIL, so a burst of keystrokes would be read a few messages per analysis run, and a run
would start for almost every keystroke.  Reading the pipe with asyncio instead, all the
messages already in the pipe are handled back to back before any analysis starts (only
then does the loop get to the scheduled run), which is what makes coalescing work.
Messages are framed and checked by `reader.serve_stream`, then handled by pygls.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading

from pygls.io_ import StdoutWriter

from .reader import serve_stream

log = logging.getLogger(__name__)


def pipe_capable(stream) -> bool:
    """Whether asyncio can watch this stream (a pipe or socket, not a file or a tty)."""
    import os
    import stat

    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


async def _serve(server, stdin, stdout) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
    server._stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(stdout))
    try:
        await serve_stream(reader, server.protocol, server._stop_event)
    except asyncio.IncompleteReadError:
        log.info("the client closed the connection mid-message")


def serve_stdio(server) -> int:
    """Serve LSP on stdin/stdout (pygls' thread-based reader when stdin is not a pipe);
    returns the exit status: 1 after an `exit` without `shutdown`, as LSP asks, else 0."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    if not pipe_capable(stdin):
        return _exit_status(server.start_io)
    try:
        return _exit_status(lambda: asyncio.run(_serve(server, stdin, stdout)))
    except BrokenPipeError:
        log.error("connection to the client lost; shutting down")
        return 0
    finally:
        server.shutdown()


def serve_tcp(server, host: str, port: int) -> int:
    """Serve LSP to one client at a time on HOST:PORT; the exit status as `serve_stdio`."""
    server._stop_event = threading.Event()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server.protocol.set_writer(writer)
        try:
            await serve_stream(reader, server.protocol, server._stop_event)
        except (asyncio.IncompleteReadError, ConnectionError):
            log.info("the client closed the connection")

    async def listen() -> None:
        async with await asyncio.start_server(connection, host, port) as listener:
            log.info("serving LSP on %s:%d", host, port)
            await listener.serve_forever()

    try:
        return _exit_status(lambda: asyncio.run(listen()))
    finally:
        server.shutdown()


def _exit_status(serve) -> int:
    """Run `serve`; the status an `exit` notification asked for (pygls raises SystemExit)."""
    try:
        serve()
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 0
    except KeyboardInterrupt:
        pass
    return 0
