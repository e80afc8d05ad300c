"""Client settings (initializationOptions / didChangeConfiguration) and rule selection.

Contract shared with the editor clients:

    {"select": [codes or prefixes], "ignore": [...], "interpreter": "/path/python" | null,
     "logLevel": "error" | "warning" | "info" | "debug", "inlayHints": false}

`workspace/didChangeConfiguration` sends the same keys either under a `"pallas"` section
(what VS Code sends) or flat.  Each message replaces the settings, except `interpreter`:
one that names none (absent, null or "") keeps the interpreter already known, so that a
client that sends it only at start, or an editor's empty default, does not switch the
environment back to the server's own.  Client settings win over `[tool.pallas-lsp]` in
pyproject.toml, which is read per document folder through `pallas_lsp.config`.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field

from ..analysis.rules import selected
from ..config import (
    Config,
    ConfigError,
    ignored_codes,
    load_config,
    unknown_selectors,
)

SECTION = "pallas"
LOG_LEVELS = {
    "error": logging.ERROR,
    "warning": logging.WARNING,
    "warn": logging.WARNING,
    "info": logging.INFO,
    "debug": logging.DEBUG,
    "trace": logging.DEBUG,
}


@dataclass(frozen=True)
class Settings:
    """The client's settings; `None` for select/ignore means "not set by the client"."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    interpreter: str | None = None
    log_level: str = "info"
    inlay_hints: bool = False   # after each kernel parameter, what Pallas binds to it

    @property
    def log_level_number(self) -> int:
        return LOG_LEVELS[self.log_level]


def _codes(value, key: str, problems: list[str]) -> tuple[str, ...] | None:
    """Validated codes/prefixes; None when unset.  An empty list also counts as unset (an
    editor's default `[]` must not override pyproject.toml); `ALL` means every rule."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        problems.append(f"`{key}` must be a list of rule codes or prefixes; ignored")
        return None
    bad = unknown_selectors(value)
    if bad:
        problems.append(f"`{key}`: unknown rule code or prefix {', '.join(bad)}; ignored")
        value = [v for v in value if v.strip().upper() not in bad]
    return ignored_codes(value) or None   # "ALL": every code


def parse_settings(raw, previous: Settings | None = None) -> tuple[Settings, list[str]]:
    """Settings from a client payload, plus human-readable problems (bad values fall back
    to their defaults; nothing here raises).  `previous`: the settings in force, whose
    interpreter is kept when the payload names none."""
    problems: list[str] = []
    kept = previous.interpreter if previous is not None else None
    if raw is None:
        return Settings(interpreter=kept), problems
    if not isinstance(raw, dict):
        return Settings(interpreter=kept), [
            f"settings must be an object, got {type(raw).__name__}; using defaults"]
    if isinstance(raw.get(SECTION), dict):
        raw = raw[SECTION]
    select = _codes(raw.get("select"), "select", problems)
    ignore = _codes(raw.get("ignore"), "ignore", problems)
    interpreter = raw.get("interpreter")
    if isinstance(interpreter, str):
        interpreter = interpreter.strip() or None
    elif interpreter is not None:
        problems.append("`interpreter` must be a path string or null; ignored")
        interpreter = None
    level = raw.get("logLevel", "info")
    if not isinstance(level, str) or level.lower() not in LOG_LEVELS:
        problems.append(f"`logLevel` must be one of {', '.join(LOG_LEVELS)}; using info")
        level = "info"
    hints = raw.get("inlayHints", False)
    if not isinstance(hints, bool):
        problems.append("`inlayHints` must be true or false; using false")
        hints = False
    return Settings(
        select=select,
        ignore=ignore,
        interpreter=interpreter or kept,
        log_level=level.lower(),
        inlay_hints=hints,
    ), problems


@dataclass(frozen=True)
class Selection:
    """The rules that apply to one document: client settings over pyproject."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    excluded: bool = False
    problems: tuple[str, ...] = field(default=())

    def wants(self, code: str) -> bool:
        select = list(self.select) if self.select is not None else None
        ignore = list(self.ignore) if self.ignore else None
        return not self.excluded and selected(code, select, ignore)


class ProjectConfigs:
    """`pallas_lsp.config.load_config` per folder, cached until a pyproject.toml changes."""

    def __init__(self) -> None:
        self._by_folder: dict[str, tuple[Config, tuple[str, ...]]] = {}

    def clear(self) -> None:
        self._by_folder.clear()

    def lookup(self, path: str | None) -> tuple[Config, tuple[str, ...]]:
        """The config for a file path (defaults for untitled documents) and its problems."""
        if not path:
            return Config(), ()
        folder = os.path.dirname(os.path.abspath(path))
        hit = self._by_folder.get(folder)
        if hit is None:
            try:
                hit = (load_config(folder), ())
            except ConfigError as e:
                hit = (Config(), (f"{e}; using defaults",))
            except OSError as e:
                hit = (Config(), (f"cannot read the project configuration: {e}; using defaults",))
            self._by_folder[folder] = hit
        return hit

    def selection(self, settings: Settings, path: str | None) -> Selection:
        config, problems = self.lookup(path)
        select = settings.select if settings.select is not None else config.select
        ignore = settings.ignore if settings.ignore is not None else config.ignore
        excluded = config.is_excluded(path) if path else False
        return Selection(select=select, ignore=tuple(ignore or ()),
                         excluded=excluded, problems=problems)
