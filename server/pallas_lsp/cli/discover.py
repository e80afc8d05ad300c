"""Which files `pallas-lsp check PATH...` checks."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from ..config import Config

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", "build", "dist",
    ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
})
WALKED = (".py", ".ipynb")          # what folders are searched for
NAMED = (".py", ".pyi", ".ipynb")   # what a file named on the command line may be
STDIN = "-"


class UsageError(Exception):
    """A problem with the command line; reported on stderr with exit status 2."""


@dataclass
class Found:
    """The files to check with their configuration, in a stable order; the folders that
    could not be listed as (path, message); the named files that are not Python."""

    files: list[tuple[str, Config]] = field(default_factory=list)
    unlisted: list[tuple[str, str]] = field(default_factory=list)
    not_python: list[str] = field(default_factory=list)


def display(path: str) -> str:
    return os.path.normpath(path)


def is_notebook(path: str) -> bool:
    return path.endswith(".ipynb")


def discover(paths: list[str], config_for: Callable[[str], Config], force_exclude: bool = False,
             extra_exclude: Config | None = None) -> Found:
    """Walk folders for `*.py` and `*.ipynb`, skipping SKIP_DIRS, the configuration's
    `exclude` globs and those of `extra_exclude` (the command line's); files named on the
    command line are checked unless excluded with `force_exclude`.  Raises UsageError for
    a path that does not exist."""
    found = Found()
    seen: dict[str, tuple[str, Config]] = {}

    def excluded(path: str, config: Config) -> bool:
        return config.is_excluded(path) or (extra_exclude is not None and extra_exclude.is_excluded(path))

    def walk_error(e: OSError) -> None:
        found.unlisted.append((display(e.filename or "?"), f"cannot list folder: {e.strerror or e}"))

    def add(path: str, config: Config) -> None:
        seen.setdefault(os.path.realpath(path), (display(path), config))

    for raw in paths:
        if raw == STDIN:
            continue
        if not os.path.exists(raw):
            raise UsageError(f"{raw}: no such file or directory")
        if not os.path.isdir(raw):
            config = config_for(raw)
            if not raw.endswith(NAMED):
                found.not_python.append(display(raw))
            elif not (force_exclude and excluded(raw, config)):
                add(raw, config)
            continue
        for folder, dirs, files in os.walk(raw, onerror=walk_error):
            config = config_for(folder)
            dirs[:] = sorted(d for d in dirs
                             if d not in SKIP_DIRS and not excluded(os.path.join(folder, d), config))
            for name in sorted(files):
                path = os.path.join(folder, name)
                if name.endswith(WALKED) and not excluded(path, config):
                    add(path, config)
    found.files = list(seen.values())
    return found
