"""Output formats of `pallas-lsp check`: text, json, sarif, github.

Each renderer takes the reported findings (sorted by the caller) and returns the whole
output as one string.  Lines and columns are printed 1-based; columns count code points
(SARIF says so with `columnKind`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from . import __version__
from .analysis.findings import Finding, Span
from .analysis.fixes import Fix
from .analysis.rules import RULES

FORMATS = ("text", "json", "sarif", "github")


@dataclass(frozen=True)
class Reported:
    """One finding as the CLI reports it: where, what, and the fix `--fix` would apply."""

    path: str
    finding: Finding
    fix: Fix | None = None


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
# text

def render_text(items: list[Reported], files_checked: int, fixed: int = 0) -> str:
    """ruff-like: `path:line:col: CODE message` per finding, then a summary line."""
    out = [
        f"{r.path}:{r.finding.span.line + 1}:{r.finding.span.col + 1}: "
        f"{r.finding.code} {r.finding.message}"
        for r in items
    ]
    errors = sum(1 for r in items if r.finding.severity == "error")
    warnings = len(items) - errors
    if fixed:
        out.append(f"Fixed {_plural(fixed, 'finding')}.")
    if items:
        files = len({r.path for r in items})
        parts = ([_plural(errors, "error")] if errors else []) + (
            [_plural(warnings, "warning")] if warnings else [])
        out.append(f"Found {' and '.join(parts)} in {_plural(files, 'file')} "
                   f"({_plural(files_checked, 'file')} checked).")
        fixable = sum(1 for r in items if r.fix is not None)
        if fixable:
            out.append(f"[*] {fixable} fixable with `pallas-lsp check --fix`.")
    else:
        out.append(f"All checks passed ({_plural(files_checked, 'file')} checked).")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------
# json

def _fix_json(fix: Fix | None) -> dict | None:
    if fix is None:
        return None
    return {
        "title": fix.title,
        "edits": [{**_positions(e.span), "new_text": e.new_text} for e in fix.edits],
    }


def to_json_objects(items: list[Reported]) -> list[dict]:
    """The json format's objects (1-based lines and columns)."""
    objects = []
    for r in items:
        f = r.finding
        rule = RULES.get(f.code)
        objects.append({
            "path": r.path,
            **_positions(f.span),
            "code": f.code,
            "severity": f.severity,
            "message": f.message,
            "rule": rule.name if rule else None,
            "url": rule.doc_url if rule else None,
            "shape": [s if isinstance(s, int) else str(s) for s in f.shape],
            "related": [
                {"path": display_path(rel.path) if rel.path else r.path,
                 **_positions(rel.span), "message": rel.message}
                for rel in f.related
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
        out.append(f"::{level} {props}::{_escape_data(f'{f.code} {f.message}')}")
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
    loc = {"physicalLocation": {"artifactLocation": _artifact(path), "region": _region(span)}}
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
        result = {
            "ruleId": f.code,
            "level": "error" if f.severity == "error" else "warning",
            "message": {"text": f.message},
            "locations": [_location(r.path, f.span)],
        }
        if f.code in rule_ids:
            result["ruleIndex"] = rule_ids.index(f.code)
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


def render(fmt: str, items: list[Reported], files_checked: int, fixed: int = 0) -> str:
    """The whole output of one run in format `fmt` (one of FORMATS)."""
    if fmt == "text":
        return render_text(items, files_checked, fixed)
    if fmt == "json":
        return render_json(items)
    if fmt == "sarif":
        return render_sarif(items)
    if fmt == "github":
        return render_github(items)
    raise ValueError(f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
