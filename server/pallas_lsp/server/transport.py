"""Serving stdio with the pipe read on the event loop itself.

pygls' own stdio reader reads every header line and body through a thread pool: three
thread hand-offs per message.  While the analysis thread runs, each hand-off waits for the
GIL, so a burst of keystrokes would be read a few messages per analysis run, and a run
would start for almost every keystroke.  Reading the pipe with asyncio instead, all the
messages already in the pipe are handled back to back before any analysis starts (only
then does the loop get to the scheduled run), which is what makes coalescing work.
The message loop itself is pygls' `run_async`.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading

from pygls.io_ import StdoutWriter, run_async

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
        await run_async(stop_event=server._stop_event, reader=reader,
                        protocol=server.protocol, logger=log,
                        error_handler=server.report_server_error)
    except asyncio.IncompleteReadError:
        log.info("the client closed the connection mid-message")


def serve_stdio(server) -> None:
    """Serve LSP on stdin/stdout; pygls' thread-based reader when stdin is not a pipe."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    if not pipe_capable(stdin):
        server.start_io()
        return
    try:
        asyncio.run(_serve(server, stdin, stdout))
    except BrokenPipeError:
        log.error("connection to the client lost; shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()
