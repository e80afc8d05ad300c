"""Output formats of `pallas-lsp check`: concise (alias text), full, json, sarif, github.

Each renderer takes the reported findings (sorted by the caller) and returns the whole
output as one string.  Lines and columns are printed 1-based; columns count code points
(SARIF says so with `columnKind`).  In a notebook, lines count from the start of the
finding's code cell (`Reported.cell`).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .. import __version__
from ..analysis.findings import Finding, Span
from ..analysis.fixes import Fix
from ..analysis.rules import RULES, Rule

FORMATS = ("concise", "full", "json", "sarif", "github")
ALIASES = {"text": "concise"}


@dataclass(frozen=True)
class Reported:
    """One finding as the CLI reports it: where, what, and the fix `--fix` would apply
    (`--unsafe-fixes` needed when it is not `safe`)."""

    path: str
    finding: Finding
    fix: Fix | None = None
    cell: int | None = None   # notebooks: 1-based number of the code cell holding it
    source: str = ""          # the text of the finding's first line (shown by `full`)
    related_cells: tuple[int | None, ...] = ()   # notebooks: the cell of each related place


@dataclass(frozen=True)
class Summary:
    """What the summary lines of `concise` and `full` say besides the findings."""

    files_checked: int
    fixed: int = 0
    unsafe_fixes: bool = False   # `--unsafe-fixes` given: unsafe fixes count as fixable


def fixable(r: Reported, unsafe_fixes: bool) -> bool:
    """Whether `--fix` (with `unsafe_fixes`: `--fix --unsafe-fixes`) applies r's fix."""
    return r.fix is not None and (r.fix.safe or unsafe_fixes)


def display_path(path: str) -> str:
    """An absolute path under the working folder, made relative to it (as the checked
    files are shown); other paths unchanged."""
    p = Path(path)
    if p.is_absolute():
        try:
            return str(p.relative_to(Path.cwd()))
        except ValueError:
            pass
    return path


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _positions(span: Span) -> dict:
    return {
        "line": span.line + 1,
        "column": span.col + 1,
        "end_line": span.end_line + 1,
        "end_column": span.end_col + 1,
    }


# ---------------------------------------------------------------------------------------
# concise and full

_ANSI = {"bold": "1", "red": "1;31", "yellow": "1;33", "cyan": "36", "blue": "1;34"}


@dataclass(frozen=True)
class Style:
    """ANSI colors, or none."""

    color: bool = False

    def __call__(self, text: str, what: str) -> str:
        return f"\x1b[{_ANSI[what]}m{text}\x1b[0m" if self.color and text else text


def _where(r: Reported) -> str:
    span = r.finding.span
    cell = f"cell {r.cell}:" if r.cell is not None else ""
    return f"{r.path}:{cell}{span.line + 1}:{span.col + 1}"


def _headline(r: Reported, style: Style) -> str:
    level = "red" if r.finding.severity == "error" else "yellow"
    return (f"{style(_where(r), 'bold')}: {style(r.finding.code, level)} "
            f"{r.finding.message}")


def _snippet(r: Reported, style: Style) -> list[str]:
    """The finding's line with a `^^^` under its span, and the fix's title."""
    span = r.finding.span
    number = str(span.line + 1)
    gutter = " " * len(number)
    line = r.source.rstrip("\r\n")
    end = span.end_col if span.end_line == span.line else len(line)
    # Keep the tabs before the span so the carets line up under it.
    pad = "".join(c if c == "\t" else " " for c in line[:span.col])
    carets = style("^" * max(1, end - span.col), "red")
    out = [f"{gutter} {style('|', 'blue')}",
           f"{style(number, 'blue')} {style('|', 'blue')} {line}",
           f"{gutter} {style('|', 'blue')} {pad}{carets} {style(r.finding.code, 'red')}",
           f"{gutter} {style('|', 'blue')}"]
    if r.fix is not None:
        unsafe = "" if r.fix.safe else " (unsafe)"
        out.append(f"{gutter} = {style('help', 'cyan')}: {r.fix.title}{unsafe}")
    return out


def _summary(items: list[Reported], summary: Summary) -> list[str]:
    out = []
    if summary.fixed:
        out.append(f"Fixed {_plural(summary.fixed, 'finding')}.")
    if not items:
        out.append(f"All checks passed ({_plural(summary.files_checked, 'file')} checked).")
        return out
    errors = sum(1 for r in items if r.finding.severity == "error")
    warnings = len(items) - errors
    files = len({r.path for r in items})
    parts = ([_plural(errors, "error")] if errors else []) + (
        [_plural(warnings, "warning")] if warnings else [])
    out.append(f"Found {' and '.join(parts)} in {_plural(files, 'file')} "
               f"({_plural(summary.files_checked, 'file')} checked).")
    fixes = sum(1 for r in items if fixable(r, summary.unsafe_fixes))
    if fixes:
        out.append(f"[*] {fixes} fixable with `pallas-lsp check --fix`"
                   f"{' --unsafe-fixes' if summary.unsafe_fixes else ''}.")
    hidden = sum(1 for r in items if r.fix is not None) - fixes
    if hidden:
        more = "1 more fix" if hidden == 1 else f"{hidden} more fixes"
        out.append(f"({more} available with `--unsafe-fixes`.)")
    return out


def render_concise(items: list[Reported], summary: Summary | None, style: Style = Style()) -> str:
    """ruff-like: `path:line:col: CODE message` per finding (`path:cell N:line:col` in a
    notebook), then the summary lines (none when `summary` is None: `--quiet`)."""
    out = [_headline(r, style) for r in items]
    if summary is not None:
        out += _summary(items, summary)
    return "".join(line + "\n" for line in out)


def render_full(items: list[Reported], summary: Summary | None, style: Style = Style()) -> str:
    """`concise`'s line, then the source line with the span underlined and the fix."""
    out = []
    for r in items:
        out.append(_headline(r, style))
        if r.source:
            out += _snippet(r, style)
        out.append("")
    if summary is not None:
        out += _summary(items, summary)
    return "".join(line + "\n" for line in out)


def render_statistics(items: list[Reported], unsafe_fixes: bool, as_json: bool = False) -> str:
    """`--statistics`: one line per rule code, the most frequent first (ruff's layout):
    count, code, `[*]` when `--fix` can fix some of its findings, rule name.  json: the
    same, with how many are fixable."""
    counts = Counter(r.finding.code for r in items)
    fixes = Counter(r.finding.code for r in items if fixable(r, unsafe_fixes))
    rows = []
    for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        rows.append({
            "code": code,
            "name": RULES[code].name,
            "count": n,
            "fixable": fixes[code] > 0,
            "fixable_count": fixes[code],
        })
    if as_json:
        return json.dumps(rows, indent=2) + "\n"
    width = max((len(str(row["count"])) for row in rows), default=1)
    return "".join(f"{row['count']:>{width}}  {row['code']:<6}  "
                   f"{'[*]' if row['fixable'] else '   '} {row['name']}\n" for row in rows)


def render_rule(rule: Rule) -> str:
    """`pallas-lsp rule CODE`: the rule's documentation."""
    return (f"# {rule.name} ({rule.code})\n\n"
            f"Severity: {rule.severity}\n\n"
            f"{rule.summary}\n\n"
            f"Documentation: {rule.doc_url}\n")


# ---------------------------------------------------------------------------------------
# json

def _fix_json(fix: Fix | None) -> dict | None:
    if fix is None:
        return None
    return {
        "title": fix.title,
        "safe": fix.safe,
        "edits": [{**_positions(e.span), "new_text": e.new_text} for e in fix.edits],
    }


def to_json_objects(items: list[Reported]) -> list[dict]:
    """The json format's objects (1-based lines and columns)."""
    objects = []
    for r in items:
        f = r.finding
        rule = RULES[f.code]
        objects.append({
            "path": r.path,
            "cell": r.cell,
            **_positions(f.span),
            "code": f.code,
            "severity": f.severity,
            "message": f.message,
            "rule": rule.name,
            "url": rule.doc_url,
            "shape": [s if isinstance(s, int) else str(s) for s in f.shape],
            "related": [
                {"path": display_path(rel.path) if rel.path else r.path,
                 "cell": r.related_cells[i] if i < len(r.related_cells) else None,
                 **_positions(rel.span), "message": rel.message}
                for i, rel in enumerate(f.related)
            ],
            "fix": _fix_json(r.fix),
        })
    return objects


def render_json(items: list[Reported]) -> str:
    return json.dumps(to_json_objects(items), indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------------------------------
# github workflow commands

def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(items: list[Reported]) -> str:
    """`::error file=...,line=...,col=...,endLine=...,endColumn=...,title=PAL001::message`."""
    out = []
    for r in items:
        f, p = r.finding, _positions(r.finding.span)
        level = "error" if f.severity == "error" else "warning"
        props = (
            f"file={_escape_property(r.path)},line={p['line']},col={p['column']},"
            f"endLine={p['end_line']},endColumn={p['end_column']},title={_escape_property(f.code)}"
        )
        cell = f"cell {r.cell}: " if r.cell is not None else ""
        out.append(f"::{level} {props}::{_escape_data(f'{f.code} {cell}{f.message}')}")
    return "".join(line + "\n" for line in out)


# ---------------------------------------------------------------------------------------
# SARIF 2.1.0

def _artifact(path: str) -> dict:
    """A relative path under %SRCROOT% (the working folder), else a file:// URI."""
    p = Path(path)
    if not p.is_absolute():
        return {"uri": quote(p.as_posix()), "uriBaseId": "%SRCROOT%"}
    try:
        return {"uri": quote(p.relative_to(Path.cwd()).as_posix()), "uriBaseId": "%SRCROOT%"}
    except ValueError:
        return {"uri": p.as_uri()}


def _region(span: Span) -> dict:
    return {
        "startLine": span.line + 1,
        "startColumn": span.col + 1,
        "endLine": span.end_line + 1,
        "endColumn": span.end_col + 1,
    }


def _location(path: str, span: Span, message: str | None = None, id_: int | None = None) -> dict:
    loc: dict[str, Any] = {"physicalLocation": {"artifactLocation": _artifact(path), "region": _region(span)}}
    if id_ is not None:
        loc["id"] = id_
    if message:
        loc["message"] = {"text": message}
    return loc


def to_sarif(items: list[Reported]) -> dict:
    rule_ids = list(RULES)
    rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.name},
            "fullDescription": {"text": rule.summary},
            "helpUri": rule.doc_url,
            "help": {"text": rule.summary},
            "defaultConfiguration": {"level": rule.severity},
        }
        for rule in RULES.values()
    ]
    results = []
    for r in items:
        f = r.finding
        result: dict[str, Any] = {
            "ruleId": f.code,
            "level": "error" if f.severity == "error" else "warning",
            "message": {"text": f.message},
            "locations": [_location(r.path, f.span)],
            "ruleIndex": rule_ids.index(f.code),
        }
        if r.cell is not None:
            result["properties"] = {"cell": r.cell}
        if f.related:
            result["relatedLocations"] = [
                _location(rel.path or r.path, rel.span, rel.message, i)
                for i, rel in enumerate(f.related)
            ]
        if r.fix is not None:
            result["fixes"] = [{
                "description": {"text": r.fix.title},
                "artifactChanges": [{
                    "artifactLocation": _artifact(r.path),
                    "replacements": [
                        {"deletedRegion": _region(e.span), "insertedContent": {"text": e.new_text}}
                        for e in r.fix.edits
                    ],
                }],
            }]
        results.append(result)
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "pallas-lsp",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": rules,
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def render_sarif(items: list[Reported]) -> str:
    return json.dumps(to_sarif(items), indent=2, ensure_ascii=False) + "\n"


def render(fmt: str, items: list[Reported], summary: Summary | None,
           style: Style = Style()) -> str:
    """The whole output of one run in format `fmt` (one of FORMATS or ALIASES);
    `summary` None leaves out the summary lines (`--quiet`)."""
    fmt = ALIASES.get(fmt, fmt)
    if fmt == "concise":
        return render_concise(items, summary, style)
    if fmt == "full":
        return render_full(items, summary, style)
    if fmt == "json":
        return render_json(items)
    if fmt == "sarif":
        return render_sarif(items)
    if fmt == "github":
        return render_github(items)
    raise ValueError(f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
