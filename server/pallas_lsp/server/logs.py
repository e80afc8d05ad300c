"""Logging for the server: a log file and/or stderr, and `window/logMessage` to the client.

Records of the `pallas_lsp` loggers at or above the client's `logLevel` setting are sent as
`window/logMessage`; they may come from the analysis worker thread, so sending is handed
to the event loop.  pygls' own INFO logging (every message body) stays off unless `-vv`.
"""

from __future__ import annotations

import asyncio
import logging
import threading

from lsprotocol import types
from pygls.lsp.server import LanguageServer

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_TYPES = [
    (logging.ERROR, types.MessageType.Error),
    (logging.WARNING, types.MessageType.Warning),
    (logging.INFO, types.MessageType.Info),
    (0, types.MessageType.Log),
]


class ClientLogHandler(logging.Handler):
    """Forwards log records to the client once the server knows its event loop."""

    def __init__(self, server: LanguageServer) -> None:
        super().__init__(logging.INFO)
        self.server = server
        self.loop: asyncio.AbstractEventLoop | None = None
        self.loop_thread: int | None = None
        self.setFormatter(logging.Formatter("%(message)s"))

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.loop_thread = threading.get_ident()

    def emit(self, record: logging.LogRecord) -> None:
        loop = self.loop
        if loop is None or loop.is_closed() or self.server.protocol.writer is None:
            return   # not started, or gone after `exit`
        try:
            kind = next(t for level, t in _TYPES if record.levelno >= level)
            params = types.LogMessageParams(type=kind, message=self.format(record))
            if threading.get_ident() == self.loop_thread:
                self.server.window_log_message(params)
            else:
                loop.call_soon_threadsafe(self.server.window_log_message, params)
        except Exception:  # noqa: BLE001 - logging must never take the server down
            self.handleError(record)


def configure(log_file: str | None, verbose: int) -> int:
    """Log to `log_file` (or stderr); returns the level chosen.

    Default: INFO to a log file, WARNING to stderr; `-v` INFO, `-vv` DEBUG; pygls' own
    debug output (every message) needs `-vvv`.
    """
    handler: logging.Handler
    if log_file:
        handler = logging.FileHandler(log_file, encoding="utf-8")
    else:
        handler = logging.StreamHandler()   # stderr: stdout carries the protocol
    level = logging.DEBUG if verbose >= 2 else (
        logging.INFO if verbose or log_file else logging.WARNING)
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.setLevel(level)
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(min(level, logging.INFO))
    logging.getLogger("pygls").setLevel(logging.DEBUG if verbose >= 3 else logging.WARNING)
    return level
