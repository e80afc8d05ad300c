"""`pallas-lsp check PATH...`: lint files and folders for CI.

Exit status: 0 when no error-severity finding is reported (warnings alone pass), 1 when
one is (or a file could not be read or analysed), 2 on usage errors (bad flag, missing
path, broken configuration).

Many files are checked by a pool of worker processes (one per core by default); each worker
reads its files itself and skips, after a cheap byte search, those that cannot hold a Pallas
semaphore call.
"""

from __future__ import annotations

import argparse
import ast
import gc
import io
import multiprocessing
import os
import re
import sys
import tokenize
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from . import formats
from .analysis.engine import analyze_source
from .analysis.findings import Finding
from .analysis.fixes import apply_edits, fix_all_edits, index_fix, split_lines
from .analysis.rules import RULES, selected
from .analysis.workspace import Workspace
from .config import (
    Config,
    ConfigError,
    ConfigResolver,
    load_config_file,
    normalize_selectors,
    split_selectors,
    unknown_selectors,
)
from .memory import frozen_after, reclaim_when_grown

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", "build", "dist",
    ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
})

# A file that mentions none of these cannot hold a checked call on a Pallas semaphore
# (every declaration and every checked API spells one of them), so it is not analysed.
_CANDIDATE = re.compile(
    rb"pallas|semaphore|async_copy|async_remote_copy|core_barrier", re.IGNORECASE
)

# Below this much source, starting worker processes costs more than it saves.
_PARALLEL_MIN_BYTES = 256 * 1024
_FIX_PASSES = 3


class UsageError(Exception):
    """A problem with the command line; reported on stderr with exit status 2."""


@dataclass
class FileResult:
    """What checking one file gave: findings (with the fix `--fix` would apply), an error
    message when the file could not be read or analysed, and how many fixes were applied."""

    path: str
    items: list[formats.Reported] = field(default_factory=list)
    error: str | None = None
    fixed: int = 0


@dataclass(frozen=True)
class Task:
    """One file to check.  `data` holds the source when it came from stdin (`path` is then
    the name to report it under)."""

    path: str
    select: tuple[str, ...] | None
    ignore: tuple[str, ...]
    fix: bool
    data: bytes | None = None
    roots: tuple[str, ...] = ()       # folders other modules of the project are found in
    interpreter: str | None = None    # the project's Python, for installed libraries


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `check` subcommand's flags."""
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="files and folders to check (folders: every *.py below them); "
                             "`-` reads one file from stdin")
    parser.add_argument("--stdin-filename", metavar="PATH",
                        help="the name to report stdin's source under (and to find its "
                             "pyproject.toml from)")
    parser.add_argument("--format", choices=formats.FORMATS, default="text",
                        help="output format (default: text)")
    parser.add_argument("--select", metavar="CODES",
                        help="comma-separated rule codes or prefixes to report (e.g. PAL001,PAL002); "
                             "replaces the configuration's `select`")
    parser.add_argument("--ignore", metavar="CODES",
                        help="comma-separated rule codes or prefixes not to report; "
                             "replaces the configuration's `ignore`")
    parser.add_argument("--config", metavar="PATH",
                        help="pyproject.toml to use instead of the nearest one")
    parser.add_argument("--force-exclude", action="store_true",
                        help="apply the `exclude` globs to files named on the command line too "
                             "(for pre-commit hooks, which name every changed file)")
    parser.add_argument("--fix", action="store_true",
                        help="apply the index fixes (`sems` -> `sems.at[slot]`) in place, "
                             "then report what is left")
    parser.add_argument("--exit-zero", action="store_true",
                        help="exit 0 even when errors are found (usage errors still exit 2)")
    parser.add_argument("--python", metavar="PATH",
                        help="the project's Python interpreter: names imported from libraries "
                             "installed there are read too (default: only the project's files)")
    parser.add_argument("-j", "--jobs", type=_positive_int, default=None, metavar="N",
                        help="worker processes (default: one per core)")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value


def _selectors(text: str | None, flag: str) -> list[str] | None:
    if text is None:
        return None
    values = split_selectors(text)
    bad = unknown_selectors(values)
    if bad:
        raise UsageError(f"{flag}: unknown rule code or prefix: {', '.join(bad)} "
                         f"(known: {', '.join(RULES)})")
    return values


# ---------------------------------------------------------------------------------------
# finding the files

STDIN = "-"


def _display(path: str) -> str:
    return os.path.normpath(path)


def discover(paths: list[str], config_for, force_exclude: bool = False,
             ) -> tuple[list[tuple[str, Config]], list[tuple[str, str]]]:
    """The files to check with their configuration, in a stable order, and the folders
    that could not be listed as (path, message).

    Folders are walked for `*.py`, skipping SKIP_DIRS and the configuration's `exclude`
    globs; files named on the command line are always checked unless `force_exclude`.
    Raises UsageError for a path that does not exist.
    """
    found: dict[str, tuple[str, Config]] = {}
    unlisted: list[tuple[str, str]] = []

    def walk_error(e: OSError) -> None:
        unlisted.append((_display(e.filename or "?"), f"cannot list folder: {e.strerror or e}"))

    def add(path: str, config: Config) -> None:
        key = os.path.realpath(path)
        found.setdefault(key, (_display(path), config))

    for raw in paths:
        if raw == STDIN:
            continue
        if not os.path.exists(raw):
            raise UsageError(f"{raw}: no such file or directory")
        if not os.path.isdir(raw):
            config = config_for(raw)
            if not (force_exclude and config.is_excluded(raw)):
                add(raw, config)
            continue
        for folder, dirs, files in os.walk(raw, onerror=walk_error):
            config = config_for(folder)
            dirs[:] = sorted(
                d for d in dirs
                if d not in SKIP_DIRS and not config.is_excluded(os.path.join(folder, d))
            )
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    if not config.is_excluded(path):
                        add(path, config)
    return list(found.values()), unlisted


# ---------------------------------------------------------------------------------------
# checking one file (runs in the worker processes)

def read_bytes(path: str) -> tuple[bytes | None, str | None]:
    """(data, error): a file's bytes, or a message saying why there are none."""
    try:
        with open(path, "rb") as fh:
            return fh.read(), None
    except OSError as e:
        return None, f"cannot read: {e.strerror or e}"


def decode_source(data: bytes) -> tuple[str | None, str | None, str | None]:
    """(text, encoding, error): the decoded source, or a message saying why there is none.

    Honours a PEP 263 coding cookie and a UTF-8 BOM; refuses binary files (NUL bytes).
    """
    if b"\0" in data:
        return None, None, "binary file (contains NUL bytes), not checked"
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as e:  # a bad coding cookie, or bad UTF-8 in the first two lines
        encoding, problem = "utf-8", f"cannot decode: {e.msg}"
    else:
        problem = None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as e:
        name = "UTF-8" if encoding.startswith("utf-8") else encoding
        return None, None, f"not valid {name} (byte {e.start}: {e.reason}), not checked"
    if problem is not None:
        return None, None, problem
    return text, encoding, None


_workspaces: dict[tuple, Workspace] = {}


def _workspace(task: Task) -> Workspace:
    """One workspace per process and settings: modules read for one file serve the next."""
    key = (task.roots, task.interpreter)
    ws = _workspaces.get(key)
    if ws is None:
        ws = _workspaces[key] = Workspace(task.roots, task.interpreter)
    return ws


def _analyze(text: str, task: Task) -> list[Finding]:
    with frozen_after():
        findings = analyze_source(text, task.path, _workspace(task))
    reclaim_when_grown()
    return _select(findings, task)


def _select(findings: list[Finding], task: Task) -> list[Finding]:
    return [f for f in findings if selected(f.code, task.select, task.ignore)]


def _write(path: str, text: str, encoding: str) -> None:
    """Replace a file's contents atomically, keeping its permissions."""
    tmp = f"{path}.pallas-lsp-fix.tmp"
    with open(tmp, "w", encoding=encoding, newline="") as fh:
        fh.write(text)
    try:
        os.chmod(tmp, os.stat(path).st_mode & 0o7777)
    except OSError:
        pass
    os.replace(tmp, path)


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def _apply_fixes(task: Task, text: str, findings: list[Finding]) -> tuple[str, list[Finding], int]:
    """Apply the index fixes (a few passes, re-analysing after each).

    Returns (new text, findings left, number of edits applied).  A pass that would turn
    parsable code into a syntax error is not applied.
    """
    count = 0
    parsed = None
    for _ in range(_FIX_PASSES):
        edits = fix_all_edits(findings, split_lines(text))
        if not edits:
            break
        new_text = apply_edits(text, edits)
        if parsed is None:
            parsed = _parses(text)
        if parsed and not _parses(new_text):
            break
        text, count = new_text, count + len(edits)
        findings = _analyze(text, task)
    return text, findings, count


def check_file(task: Task) -> FileResult:
    """Read, prefilter, analyse (and with `fix`, fix) one file.  Never raises."""
    result = FileResult(_display(task.path))
    data, error = (task.data, None) if task.data is not None else read_bytes(task.path)
    if data is not None:
        text, encoding, error = decode_source(data)
    if error is not None:
        result.error = error
        return result
    if not _CANDIDATE.search(data):
        return result
    try:
        findings = _analyze(text, task)
        if task.fix and findings:
            fixed_text, fixed_findings, count = _apply_fixes(task, text, findings)
            if count:
                try:
                    _write(task.path, fixed_text, encoding)
                except OSError as e:
                    result.error = f"cannot write the fixes: {e.strerror or e}"
                else:
                    text, findings, result.fixed = fixed_text, fixed_findings, count
        lines = split_lines(text)
        result.items = [formats.Reported(result.path, f, index_fix(f, lines)) for f in findings]
    except Exception as e:  # noqa: BLE001 - an analysis bug must not hide other files' results
        result.items = []
        result.error = f"internal error while analysing: {type(e).__name__}: {e}"
    return result


# ---------------------------------------------------------------------------------------
# running

def _default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _pool_context():
    # fork: workers start in milliseconds with the analysis already imported.
    if "fork" in multiprocessing.get_all_start_methods() and sys.platform == "linux":
        return multiprocessing.get_context("fork")
    return None


def check_all(tasks: list[Task], jobs: int) -> list[FileResult]:
    """Run `check_file` over the tasks, in worker processes when it pays off."""
    if jobs > 1 and len(tasks) > 1:
        sizes = {id(t): _size(t) for t in tasks}
        if sum(sizes.values()) >= _PARALLEL_MIN_BYTES:
            # Biggest files first, so the last ones to finish are small.
            order = sorted(tasks, key=lambda t: -sizes[id(t)])
            workers = min(jobs, len(tasks))
            gc.freeze()   # the workers are forked: no collection there touches (copies) our pages
            with ProcessPoolExecutor(max_workers=workers, mp_context=_pool_context()) as pool:
                return list(pool.map(check_file, order, chunksize=max(1, len(order) // (workers * 8))))
    return [check_file(t) for t in tasks]


def _size(task: Task) -> int:
    if task.data is not None:
        return len(task.data)
    try:
        return os.path.getsize(task.path)
    except OSError:
        return 0


def _roots(paths: list[str], configs: list[Config]) -> tuple[str, ...]:
    """Where imports of the project's own modules are looked for (besides each file's own
    package root): the working folder, the folders named on the command line and the
    folders holding the configuration."""
    roots = [os.getcwd()]
    roots += [os.path.abspath(p) for p in paths if p != STDIN and os.path.isdir(p)]
    roots += [str(c.root) for c in configs if c.root is not None]
    return tuple(dict.fromkeys(roots))


def run(args: argparse.Namespace) -> int:
    """Run `check` with parsed arguments; returns the exit status."""
    try:
        return _run(args)
    except UsageError as e:
        print(f"pallas-lsp check: error: {e}", file=sys.stderr)
        return 2
    except ConfigError as e:
        print(f"pallas-lsp check: configuration error: {e}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    if args.python is not None and not (os.path.isfile(args.python)
                                        and os.access(args.python, os.X_OK)):
        raise UsageError(f"--python: {args.python}: not an executable file")
    select = _selectors(args.select, "--select")
    ignore = _selectors(args.ignore, "--ignore")
    if args.config is not None:
        fixed_config = load_config_file(args.config)

        def config_for(_path):
            return fixed_config
    else:
        config_for = ConfigResolver().for_path

    found, unlisted = discover(args.paths, config_for, args.force_exclude)
    files = [(path, config, None) for path, config in found]
    stdin_count = args.paths.count(STDIN)
    if stdin_count > 1:
        raise UsageError("`-` (stdin) can be given only once")
    if args.stdin_filename is not None and not stdin_count:
        raise UsageError("--stdin-filename needs `-` among the paths")
    if stdin_count:
        if args.fix:
            raise UsageError("--fix cannot rewrite stdin; give the file's path instead")
        name = args.stdin_filename or STDIN
        files.append((name, config_for(args.stdin_filename or os.getcwd()), sys.stdin.buffer.read()))
    for w in sorted({w for _, c, _ in files for w in c.warnings}):
        print(f"pallas-lsp check: warning: {w}", file=sys.stderr)

    roots = _roots(args.paths, [c for _, c, _ in files])
    tasks = [
        Task(
            path=path,
            select=normalize_selectors(select) if select is not None else config.select,
            ignore=tuple(normalize_selectors(ignore) or ()) if ignore is not None else config.ignore,
            fix=args.fix,
            data=data,
            roots=roots,
            interpreter=args.python,
        )
        for path, config, data in files
    ]
    results = check_all(tasks, args.jobs or _default_jobs())

    items = sorted(
        (item for r in results for item in r.items),
        key=lambda r: (r.path, r.finding.span, r.finding.code),
    )
    errors = sorted([*unlisted, *((r.path, r.error) for r in results if r.error)])
    for path, error in errors:
        print(f"{path}: error: {error}", file=sys.stderr)
    fixed = sum(r.fixed for r in results)

    sys.stdout.write(formats.render(args.format, items, len(tasks), fixed))
    sys.stdout.flush()
    failed = errors or any(r.finding.severity == "error" for r in items)
    return 1 if failed and not args.exit_zero else 0
