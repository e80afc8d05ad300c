"""`pallas-lsp check [PATH...]`: lint files and folders for CI.

Exit status: 0 when no error-severity finding is reported (warnings alone pass), 1 when
one is (a syntax error, E999, counts, as does a file or folder that could not be read, E902,
and a file the analysis failed on; with `--diff`: when there are changes, or E999 / E902),
2 on usage errors (bad flag, missing path, broken configuration).

Many files are checked by a pool of worker processes (one per core by default); each worker
reads its files itself and skips, after a cheap byte search, those that cannot hold a Pallas
semaphore call.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import multiprocessing
import os
import sys
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from . import formats
from ..analysis.rules import FILE_ERRORS, RULES, selected
from .checker import FileError, FileResult, Task, check_file
from .args import Selection, globs
from ..config import Config, ConfigError, ConfigResolver, load_config_file
from .discover import STDIN, Found, UsageError, discover

# Below this much source, starting worker processes costs more than it saves.
_PARALLEL_MIN_BYTES = 256 * 1024


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


def _config_for(args: argparse.Namespace):
    """path -> Config: the nearest pyproject.toml's, or `--config`'s; `--exclude`
    replaces its `exclude`."""
    base: Callable[[str], Config]
    if args.config is not None:
        fixed = load_config_file(args.config)

        def base(_path: str) -> Config:
            return fixed
    else:
        base = ConfigResolver().for_path
    if args.exclude is None:
        return base
    return lambda path: dataclasses.replace(base(path), exclude=())


def _check_usage(args: argparse.Namespace) -> None:
    if args.python is not None and not (os.path.isfile(args.python)
                                        and os.access(args.python, os.X_OK)):
        raise UsageError(f"--python: {args.python}: not an executable file")
    stdin_count = args.paths.count(STDIN)
    if stdin_count > 1:
        raise UsageError("`-` (stdin) can be given only once")
    if args.stdin_filename is not None and not stdin_count:
        raise UsageError("--stdin-filename needs `-` among the paths")
    if stdin_count and args.fix:
        raise UsageError("--fix cannot rewrite stdin; give the file's path instead")
    if args.unsafe_fixes and not (args.fix or args.diff):
        raise UsageError("--unsafe-fixes needs --fix or --diff")


def _run(args: argparse.Namespace) -> int:
    _check_usage(args)
    cwd = os.getcwd()
    selection = Selection.from_args(args, cwd)
    config_for = _config_for(args)
    cli_globs = (*(globs(args.exclude) or ()), *(globs(args.extend_exclude) or ()))
    extra = Config(exclude=cli_globs, root=Path(cwd)) if cli_globs else None
    found = discover(args.paths, config_for, args.force_exclude, extra)
    files: list[tuple[str, Config, bytes | None]] = [(p, c, None) for p, c in found.files]
    if STDIN in args.paths:
        name = args.stdin_filename or STDIN
        files.append((name, config_for(args.stdin_filename or cwd), sys.stdin.buffer.read()))

    roots = _roots(args.paths, [c for _, c, _ in files])
    tasks = []
    for path, config, data in files:
        select, ignore = selection.for_file(path, config)
        tasks.append(Task(path, select, ignore, fix=args.fix and not args.diff, diff=args.diff,
                          unsafe_fixes=args.unsafe_fixes, data=data, roots=roots,
                          interpreter=args.python))
    results = check_all(tasks, args.jobs or _default_jobs())
    unlisted = _unlisted(found, selection, config_for)
    return _report(args, found, [*results, *unlisted])


def _unlisted(found: Found, selection: Selection, config_for) -> list[FileResult]:
    """The folders that could not be listed, as E902 findings (not counted as checked)."""
    out = []
    for path, message in found.unlisted:
        select, ignore = selection.for_file(path, config_for(path))
        finding = FileError(message).finding()
        items = [formats.Reported(path, finding)] if selected(finding.code, select, ignore) else []
        out.append(FileResult(path, items, checked=False))
    return out


def _report(args: argparse.Namespace, found: Found, results: list[FileResult]) -> int:
    """Print the messages and the report; returns the exit status."""
    items = sorted(
        (item for r in results for item in r.items),
        key=lambda r: (r.path, r.cell or 0, r.finding.span, r.finding.code),
    )
    errors = sorted((r.path, r.error) for r in results if r.error)
    for path, error in errors:
        print(f"{path}: error: {error}", file=sys.stderr)
    notes = [f"{p}: not a Python file (*.py, *.pyi, *.ipynb), not checked" for p in found.not_python]
    notes += [f"{r.path}: {r.note}" for r in results if r.note]
    checked = sum(1 for r in results if r.checked)
    if not checked and not errors and not items:
        notes.append("No Python files found under the given paths")
    if not args.silent:
        for note in notes:
            print(f"pallas-lsp check: warning: {note}", file=sys.stderr)
    if args.diff:
        _output(args, "".join(r.diff for r in results))
        unchecked = [r for r in items if r.finding.code in FILE_ERRORS]
        if not args.silent:
            sys.stderr.write(formats.render_concise(unchecked, None))
        would = sum(len(r.applied) for r in results)
        if not (args.quiet or args.silent):
            print(f"Would fix {would} finding{'' if would == 1 else 's'}.", file=sys.stderr)
        return 1 if (would or errors or unchecked) and not args.exit_zero else 0
    _output(args, _render(args, items, results, checked))
    failed = errors or any(r.finding.severity == "error" for r in items)
    return 1 if failed and not args.exit_zero else 0


def _render(args: argparse.Namespace, items: list[formats.Reported],
            results: list[FileResult], checked: int) -> str:
    fmt = formats.ALIASES.get(args.format, args.format)
    if args.statistics:
        return formats.render_statistics(items, args.unsafe_fixes, as_json=fmt == "json")
    fixed = sum(len(r.applied) for r in results)
    summary = None if args.quiet or not (checked or items) else formats.Summary(checked, fixed, args.unsafe_fixes)
    text = formats.render(fmt, items, summary, formats.Style(_color(args)))
    if args.show_fixes and fmt in ("concise", "full"):
        text += _show_fixes(args, items, results)
    return text


def _show_fixes(args: argparse.Namespace, items: list[formats.Reported],
                results: list[FileResult]) -> str:
    """`--show-fixes`: the fixes applied per file and rule (with --fix), else the ones
    available."""
    if args.fix:
        fixed = sum(len(r.applied) for r in results)
        out = [f"Fixed {fixed} finding{'' if fixed == 1 else 's'}:"]
        for result in results:
            for code, n in sorted(Counter(result.applied).items()):
                out.append(f"  {result.path}: {n} × {code} ({RULES[code].name})")
        return "\n".join(out) + "\n"
    out = ["Fixes available:"]
    for r in items:
        if formats.fixable(r, args.unsafe_fixes) and r.fix is not None:
            cell = f"cell {r.cell}:" if r.cell is not None else ""
            span = r.finding.span
            out.append(f"  {r.path}:{cell}{span.line + 1}:{span.col + 1}: {r.finding.code} {r.fix.title}")
    return "\n".join(out) + "\n" if len(out) > 1 else "No fixes available.\n"


def _color(args: argparse.Namespace) -> bool:
    if args.color != "auto":
        return args.color == "always"
    return (args.output_file is None and sys.stdout.isatty()
            and not os.environ.get("NO_COLOR"))


def _output(args: argparse.Namespace, text: str) -> None:
    if args.silent:
        return
    if args.output_file is not None:
        try:
            with open(args.output_file, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as e:
            raise UsageError(f"--output-file: {args.output_file}: {e.strerror or e}") from None
        return
    sys.stdout.write(text)
    sys.stdout.flush()
