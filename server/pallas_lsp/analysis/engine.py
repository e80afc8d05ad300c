"""Entry points of the analysis: source text in, findings out.

(Work in progress: the incremental engine is being written; the API below is stable.)
"""

from __future__ import annotations

from .findings import Finding


class ModuleAnalyzer:
    """Incremental analysis of one document: call `analyze(text)` after every change.

    Keeps per-block parse trees and per-entry results keyed by content, so an edit
    re-parses and re-analyses only what it touched.
    """

    def __init__(self, path: str | None = None, workspace=None):
        self.path = path
        self.workspace = workspace

    def analyze(self, source: str) -> list[Finding]:
        return []


def analyze_source(source: str, path: str | None = None, workspace=None) -> list[Finding]:
    """One-shot analysis of a whole module's text (what the CLI uses)."""
    return ModuleAnalyzer(path, workspace).analyze(source)
