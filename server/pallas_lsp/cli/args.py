"""The flags of `pallas-lsp check`, and turning their values into settings."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from . import formats
from ..analysis.rules import known_codes
from ..config import (
    Config,
    ignored_codes,
    normalize_selectors,
    parse_per_file_ignore,
    split_selectors,
    unknown_selectors,
)
from .discover import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `check` subcommand's flags."""
    parser.add_argument("paths", nargs="*", default=["."], metavar="PATH",
                        help="files and folders to check (default: `.`; folders: every *.py "
                             "and *.ipynb below them); `-` reads one file from stdin")
    _output_flags(parser)
    _rule_flags(parser)
    _file_flags(parser)
    _fix_flags(parser)
    parser.add_argument("--exit-zero", action="store_true",
                        help="exit 0 even when errors are found (usage errors still exit 2)")
    parser.add_argument("--python", metavar="PATH",
                        help="the project's Python interpreter: names imported from libraries "
                             "installed there are read too (default: only the project's files)")
    parser.add_argument("-j", "--jobs", type=positive_int, default=None, metavar="N",
                        help="worker processes (default: one per core)")


def _output_flags(parser: argparse.ArgumentParser) -> None:
    choices = (*formats.FORMATS, *formats.ALIASES)
    parser.add_argument("--output-format", "--format", dest="format", choices=choices,
                        default="concise", metavar="FORMAT",
                        help=f"{', '.join(choices)} (default: concise; text is concise)")
    parser.add_argument("-o", "--output-file", metavar="PATH",
                        help="write the report to PATH instead of stdout")
    parser.add_argument("--statistics", action="store_true",
                        help="print the number of findings per rule instead of the findings")
    quiet = parser.add_mutually_exclusive_group()
    quiet.add_argument("-q", "--quiet", action="store_true",
                       help="print the findings only, no summary")
    quiet.add_argument("-s", "--silent", action="store_true",
                       help="print nothing; only the exit status tells")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="ANSI colors (default: auto: on a terminal, unless NO_COLOR is set)")


def _rule_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--select", metavar="CODES", action="append",
                        help="comma-separated rule codes or prefixes to report (e.g. PAL001,PAL002); "
                             "repeated flags add up; replaces the configuration's `select`")
    parser.add_argument("--extend-select", metavar="CODES", action="append",
                        help="codes or prefixes to report on top of `select`")
    parser.add_argument("--ignore", metavar="CODES", action="append",
                        help="comma-separated rule codes or prefixes not to report; repeated "
                             "flags add up; replaces the configuration's `ignore`")
    parser.add_argument("--per-file-ignores", metavar="GLOB:CODES", action="append",
                        default=[], type=_per_file_ignore,
                        help="codes not to report in the files matching GLOB (relative to the "
                             "working folder), e.g. 'tests/**:PAL003'; repeatable; added to "
                             "the configuration's `per-file-ignores`")


def _file_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stdin-filename", metavar="PATH",
                        help="the name to report stdin's source under (and to find its "
                             "pyproject.toml from)")
    parser.add_argument("--config", metavar="PATH",
                        help="pyproject.toml to use instead of the nearest one")
    parser.add_argument("--exclude", metavar="GLOBS", action="append",
                        help="comma-separated globs of files and folders to skip (relative to "
                             "the working folder); replaces the configuration's `exclude`")
    parser.add_argument("--extend-exclude", metavar="GLOBS", action="append",
                        help="globs to skip on top of `exclude`")
    parser.add_argument("--force-exclude", action="store_true",
                        help="apply the exclude globs to files named on the command line too "
                             "(for pre-commit hooks, which name every changed file)")


def _fix_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--fix", action="store_true",
                        help="apply the safe fixes in place (those whose edit is certain: an index for "
                             "a semaphore array, `dimension_semantics` padded to the grid, "
                             "`.astype(ref.dtype)` on a store), then report what is left")
    parser.add_argument("--unsafe-fixes", action="store_true",
                        help="with --fix or --diff: apply the fixes marked unsafe too")
    parser.add_argument("--diff", action="store_true",
                        help="print the changes --fix would make as a unified diff; change "
                             "nothing; exit 1 when there are changes")
    parser.add_argument("--show-fixes", action="store_true",
                        help="list the fixes applied (with --fix) or available")


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value


def _per_file_ignore(text: str) -> tuple[str, tuple[str, ...]]:
    try:
        glob, codes = parse_per_file_ignore(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    bad = unknown_selectors(codes)
    if bad:
        raise argparse.ArgumentTypeError(f"unknown rule code or prefix: {', '.join(bad)}")
    return glob, codes


def selectors(values: list[str] | None, flag: str) -> list[str] | None:
    """The codes of a repeatable comma-separated flag (None when not given)."""
    if values is None:
        return None
    out = [s for text in values for s in split_selectors(text)]
    bad = unknown_selectors(out)
    if bad:
        raise UsageError(f"{flag}: unknown rule code or prefix: {', '.join(bad)} "
                         f"(known: {known_codes()})")
    return out


def globs(values: list[str] | None) -> tuple[str, ...] | None:
    if values is None:
        return None
    return tuple(g.strip() for text in values for g in text.split(",") if g.strip())


@dataclass(frozen=True)
class Selection:
    """The rule flags, to be merged with each file's configuration."""

    select: list[str] | None
    extend_select: list[str] | None
    ignore: list[str] | None
    per_file_ignores: Config   # the command line's, anchored at the working folder

    @classmethod
    def from_args(cls, args: argparse.Namespace, cwd: str) -> Selection:
        return cls(
            select=selectors(args.select, "--select"),
            extend_select=selectors(args.extend_select, "--extend-select"),
            ignore=selectors(args.ignore, "--ignore"),
            per_file_ignores=Config(per_file_ignores=tuple(args.per_file_ignores), root=Path(cwd)),
        )

    def for_file(self, path: str, config: Config) -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
        """(select, ignore) for one file: None selects every rule."""
        select = normalize_selectors(self.select) if self.select is not None else config.select
        if self.extend_select and select is not None:
            extra = normalize_selectors(self.extend_select)
            select = None if extra is None else select + extra   # None: `ALL`
        ignore = ignored_codes(self.ignore) if self.ignore is not None else config.ignore
        return select, ignore + config.ignored_in(path) + self.per_file_ignores.ignored_in(path)
