"""`pallas-lsp` / `python -m pallas_lsp`: serve LSP (the default) or `check` files.

    pallas-lsp                         serve LSP over stdio
    pallas-lsp --tcp 127.0.0.1:2087    serve LSP over TCP
    pallas-lsp check src/ --output-format json
    pallas-lsp rule PAL001             print a rule's documentation
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn

from . import __version__, interpreter_build


def _tcp_address(text: str) -> str:
    """Validate `HOST:PORT` (IPv6 hosts in brackets: `[::1]:2087`); returns it unchanged."""
    host, sep, port = text.rpartition(":")
    if not sep or not host.strip("[]"):
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"bad port in {text!r} (expected 0-65535)")
    return text


def build_parser(with_check: bool = True) -> argparse.ArgumentParser:
    """The command line.  `with_check=False` leaves out the `check` options, so serving
    LSP does not import the CLI (a faster start)."""
    parser = argparse.ArgumentParser(
        prog="pallas-lsp",
        description="Language server and CI checker for JAX Pallas TPU kernels: finds, "
                    "without running them, the mistakes JAX raises on (semaphore shapes and "
                    "kinds, the pallas_call contract, TPU block tiling, the DMA and semaphore "
                    "protocol, the shapes and dtypes in kernel bodies). "
                    "Without a command, serves LSP over stdio.",
    )
    parser.add_argument("-V", "--version", action="version", version=f"pallas-lsp {__version__} (interpreter: {interpreter_build()})")
    parser.add_argument("--tcp", metavar="HOST:PORT", type=_tcp_address,
                        help="serve LSP over TCP instead of stdio")
    parser.add_argument("--log-file", metavar="PATH", help="write the server's log to PATH")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="more logging (-vv: debug)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    check = commands.add_parser(
        "check", help="check files and folders (for CI)",
        description="Check the Pallas kernels in Python files, notebooks and folders: "
                    "semaphore shapes and kinds, the pallas_call contract, TPU block tiling, "
                    "the DMA and semaphore protocol, kernel-body shapes and dtypes. "
                    "Exit status: 0 clean (warnings allowed), 1 errors found, 2 usage error.",
    )
    if with_check:
        from .cli import args as check_args

        check_args.add_arguments(check)
    rule = commands.add_parser("rule", help="print a rule's documentation",
                               description="Print a rule's documentation.")
    which = rule.add_mutually_exclusive_group(required=True)
    which.add_argument("code", nargs="?", metavar="CODE", help="a rule code, e.g. PAL001")
    which.add_argument("--all", action="store_true", help="every rule")
    return parser


def _safe_output() -> None:
    """Characters the terminal's encoding lacks are printed as escapes instead of
    failing (an exit status of 1 would read as "errors found" in CI)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def _rule(args: argparse.Namespace) -> int:
    from .analysis.rules import RULES, known_codes
    from .cli.formats import render_rule

    if args.all:
        print("\n".join(render_rule(r) for r in RULES.values()), end="")
        return 0
    rule = RULES.get(args.code.strip().upper())
    if rule is None:
        print(f"pallas-lsp rule: error: unknown rule {args.code!r} (known: {known_codes()})",
              file=sys.stderr)
        return 2
    print(render_rule(rule), end="")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    _safe_output()
    args = build_parser(with_check="check" in argv).parse_args(argv)
    if args.command == "rule":
        return _rule(args)
    if args.command == "check":
        from .cli import run as check_run

        try:
            return check_run.run(args)
        except KeyboardInterrupt:
            return 130
        except BrokenPipeError:  # `pallas-lsp check . | head`: stop quietly
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 1
    sys.modules.setdefault("ssl", None)  # type: ignore[arg-type]  # no TLS: asyncio need not load OpenSSL (4.5 MB)
    from .server.main import run_server

    _leave(run_server(tcp=args.tcp, log_file=args.log_file, verbose=args.verbose))


def _leave(status: int) -> NoReturn:
    """End the server process at once, its output flushed: the interpreter's own teardown
    of a large analysis (millions of objects freed one by one) would take up to half a
    second and more memory than the server ever used while serving."""
    import logging

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
