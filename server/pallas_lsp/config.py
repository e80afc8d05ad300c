"""Project configuration: `[tool.pallas-lsp]` in the nearest pyproject.toml.

```toml
[tool.pallas-lsp]
select = ["PAL"]            # codes or prefixes; absent or ["ALL"]: every rule; []: none
ignore = ["PAL003"]         # codes or prefixes; ignore wins over select
exclude = ["generated/", "**/third_party/*.py"]   # globs, relative to the pyproject's folder
per-file-ignores = {"tests/**" = ["PAL003"]}      # glob -> codes or prefixes not reported
```

The nearest pyproject.toml that has a `[tool.pallas-lsp]` table wins (like ruff, a
pyproject.toml without the table is skipped).  As in ruff, a table with an unknown key or a
value of the wrong type is an error, not ignored.  Client settings (LSP) and command-line
flags win over it; that merging is done by the callers.
"""

from __future__ import annotations

import difflib
import fnmatch
import os
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .analysis.rules import RULES, known_codes

if sys.version_info >= (3, 11):
    import tomllib as _toml
else:  # pragma: no cover - depends on the interpreter
    import tomli as _toml

SECTION = "pallas-lsp"
KEYS = ("select", "ignore", "exclude", "per-file-ignores")


class ConfigError(Exception):
    """A pyproject.toml that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class Config:
    """Rule selection and exclusions for one project.

    `select`/`ignore` are upper-cased codes or prefixes (`select=None`: every rule, `()`:
    none); `exclude` holds globs relative to `root`, the folder of the pyproject.toml they
    came from (None when no configuration was found).
    """

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()   # (glob, codes)
    root: Path | None = None
    path: Path | None = None

    def is_excluded(self, path: str | os.PathLike) -> bool:
        """Whether a file or folder matches one of the `exclude` globs."""
        return self.matches(path, self.exclude)

    def ignored_in(self, path: str | os.PathLike) -> tuple[str, ...]:
        """The codes `per-file-ignores` turns off in the file `path`."""
        return tuple(code for glob, codes in self.per_file_ignores
                     if self.matches(path, (glob,)) for code in codes)

    def matches(self, path: str | os.PathLike, globs: tuple[str, ...]) -> bool:
        """Whether a file or folder matches one of `globs`.

        As in .gitignore: a glob without `/` (a trailing one aside: `gen/`) matches any
        single path component (`build`, `*_pb2.py`); a glob with `/` inside is anchored at
        `root` and matches the relative path or one of its leading parts (`pkg/generated`
        excludes everything below it); a leading `**/` may match nothing, `./` is ignored.
        """
        if not globs:
            return False
        p = Path(path)
        try:
            rel = PurePosixPath(p.resolve().relative_to(self.root.resolve())) if self.root else None
        except ValueError:
            rel = None
        parts = rel.parts if rel is not None else (p.name,)
        prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
        for raw in globs:
            pattern = raw.strip().rstrip("/")
            if not pattern:
                continue
            if "/" not in pattern:
                if any(fnmatch.fnmatchcase(part, pattern) for part in parts):
                    return True
                continue
            if rel is None:
                continue
            candidates = [pattern.removeprefix("./")]
            if pattern.startswith("**/"):
                candidates.append(pattern[3:])
            if any(fnmatch.fnmatchcase(pre, c) for pre in prefixes for c in candidates):
                return True
        return False


def unknown_selectors(selectors) -> list[str]:
    """The selectors that match no rule code (`ALL` and any prefix of a code are fine)."""
    bad = []
    for s in selectors or ():
        s = s.strip().upper()
        if s != "ALL" and not any(code.startswith(s) for code in RULES):
            bad.append(s)
    return bad


def normalize_selectors(selectors) -> tuple[str, ...] | None:
    """Upper-case, drop blanks; `ALL` means every rule (None)."""
    if selectors is None:
        return None
    out = tuple(s.strip().upper() for s in selectors if s and s.strip())
    if "ALL" in out:
        return None
    return out


def ignored_codes(selectors) -> tuple[str, ...]:
    """An ignore list's codes or prefixes, upper-cased; `ALL` turns off every rule."""
    out = normalize_selectors(selectors)
    if out is None:
        return tuple(RULES) if selectors is not None else ()
    return out


def split_selectors(text: str) -> list[str]:
    """A comma-separated command-line value as a list: `"PAL001, PAL2"` -> [...]."""
    return [s.strip() for s in text.split(",") if s.strip()]


def _string_list(value, key: str, path: Path) -> list[str]:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    example = f' (`{key} = ["{value}"]`?)' if isinstance(value, str) else ""
    raise ConfigError(f"{path}: [tool.{SECTION}] {key} must be a list of strings, "
                      f"got {_toml_type(value)}{example}")


def _toml_type(value) -> str:
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, dict):
        return "a table"
    return "a list with other items than strings" if isinstance(value, list) else "a date or time"


def _check_keys(table: dict, path: Path) -> None:
    """Every key of the table is one pallas-lsp knows (a typo must not pass silently)."""
    for key in table:
        if key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f"; did you mean `{close[0]}`?" if close else ""
            raise ConfigError(f"{path}: unknown key `{key}` in [tool.{SECTION}]{hint} "
                              f"(known keys: {', '.join(KEYS)})")


def _per_file_ignores(value, path: Path) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: [tool.{SECTION}] per-file-ignores must be a table of "
                          f"glob = [codes]")
    return tuple((glob, ignored_codes(_string_list(codes, f"per-file-ignores.{glob}", path)))
                 for glob, codes in value.items())


def parse_per_file_ignore(text: str) -> tuple[str, tuple[str, ...]]:
    """A command-line `GLOB:CODES` (`tests/**:PAL003,PAL001`); raises ValueError."""
    glob, sep, codes = text.rpartition(":")
    selectors = split_selectors(codes)
    if not sep or not glob.strip() or not selectors:
        raise ValueError(f"expected GLOB:CODES, got {text!r}")
    return glob.strip(), ignored_codes(selectors)


def find_pyproject(start: str | os.PathLike) -> tuple[Path, dict] | None:
    """The nearest pyproject.toml at or above `start` that has `[tool.pallas-lsp]`,
    with that table; None when there is none.  Raises ConfigError on broken TOML."""
    here = Path(start).absolute()
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if not candidate.is_file():
            continue
        table = read_table(candidate)
        if table is not None:
            return candidate, table
    return None


def read_table(path: Path) -> dict | None:
    """The `[tool.pallas-lsp]` table of one pyproject.toml (None when it has none)."""
    try:
        with open(path, "rb") as fh:
            data = _toml.load(fh)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from None
    except (_toml.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    table = data.get("tool", {}).get(SECTION) if isinstance(data.get("tool"), dict) else None
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.{SECTION}] must be a table")
    return table


def config_from_table(table: dict, path: Path) -> Config:
    """Validate one `[tool.pallas-lsp]` table: unknown keys, values of the wrong type and
    unknown rule selectors are errors (a typo would silently turn checks off)."""
    _check_keys(table, path)
    select = _string_list(table["select"], "select", path) if "select" in table else None
    ignore = _string_list(table.get("ignore", []), "ignore", path)
    exclude = _string_list(table.get("exclude", []), "exclude", path)
    per_file = _per_file_ignores(table.get("per-file-ignores", {}), path)
    bad = unknown_selectors([*(select or ()), *ignore, *(c for _, codes in per_file for c in codes)])
    if bad:
        raise ConfigError(
            f"{path}: unknown rule code or prefix in [tool.{SECTION}]: {', '.join(bad)} "
            f"(known: {known_codes()})"
        )
    return Config(
        select=normalize_selectors(select),
        ignore=ignored_codes(ignore),
        exclude=tuple(exclude),
        per_file_ignores=per_file,
        root=path.parent,
        path=path,
    )


def load_config(start: str | os.PathLike) -> Config:
    """The configuration that applies to `start` (a file or a folder).

    Defaults (every rule, nothing excluded) when no pyproject.toml with `[tool.pallas-lsp]`
    is found.  Raises ConfigError for a broken file.
    """
    found = find_pyproject(start)
    if found is None:
        return Config()
    return config_from_table(found[1], found[0])


def load_config_file(path: str | os.PathLike) -> Config:
    """The configuration of one given pyproject.toml (the CLI's `--config`).

    Its `[tool.pallas-lsp]` table may be absent (defaults).  Raises ConfigError.
    """
    p = Path(path).absolute()
    if not p.is_file():
        raise ConfigError(f"{path}: no such file")
    table = read_table(p)
    if table is None:
        return Config(root=p.parent, path=p)
    return config_from_table(table, p)


class ConfigResolver:
    """`load_config` for many files, reading each pyproject.toml once.

    `for_path(p)` gives the configuration of the nearest pyproject.toml with
    `[tool.pallas-lsp]` above `p` (a file or folder).  Raises ConfigError like `load_config`.
    """

    def __init__(self):
        self._by_dir: dict[Path, Config] = {}

    def for_path(self, path: str | os.PathLike) -> Config:
        here = Path(path).absolute()
        return self._for_dir(here if here.is_dir() else here.parent)

    def _for_dir(self, folder: Path) -> Config:
        cached = self._by_dir.get(folder)
        if cached is not None:
            return cached
        candidate = folder / "pyproject.toml"
        table = read_table(candidate) if candidate.is_file() else None
        if table is not None:
            config = config_from_table(table, candidate)
        elif folder.parent == folder:
            config = Config()
        else:
            config = self._for_dir(folder.parent)
        self._by_dir[folder] = config
        return config
