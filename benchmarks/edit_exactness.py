#!/usr/bin/env python3
"""The incremental analysis against a fresh one, on published modules edited as an author
edits them.

An editor's analyzer keeps what it can from one text to the next (blocks and their trees,
a tree but for the one statement an edit changed, entry results, results an undo brings
back, other modules' calls with the same inputs). A
fresh analyzer of the same text is its oracle: after every edit, both must give the same
findings, value notes and kernel-parameter notes. Each module (the wheels' files that
mention pallas, as `real_world.py` reads them) gets `--edits` edits that accumulate, drawn
from `random.Random("SEED:path")`, in turn:

* a character typed after a name in code (the name is another one now);
* an integer literal changed (a size, an index: another value);
* a comment typed at the end of a line of code;
* a blank line or an unread `name = 1` line inserted inside a block;
* the last character typed deleted again (an undo: a text seen before);
* a statement typed on a blank line inside a block (`name = 1`, a name of the next line).

    python3 benchmarks/edit_exactness.py                    # every module, 6 edits each
    python3 benchmarks/edit_exactness.py --smoke --strict   # CI: one small wheel, 4 edits
    python3 benchmarks/edit_exactness.py --seed 2 --edits 12

Prints each mismatch (module, edit, line) and the totals; `--strict` exits 1 on one.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "server"))
sys.path.insert(0, str(HERE))

import lspbench
import published
from pallas_lsp.analysis.engine import ModuleAnalyzer
from pallas_lsp.analysis.workspace import Workspace
from pallas_lsp.memory import frozen_after

SMOKE_WHEELS = ["ringattention==0.1.2"]
_INT = re.compile(r"(?<![\w.])\d+(?![\w.])")


class Author:
    """Edits one text in turn (see the module's docstring); `lines` is the text now."""

    KINDS = ("name", "integer", "comment", "line", "undo", "statement")

    def __init__(self, text: str, rng: random.Random) -> None:
        self.lines = text.split("\n")
        self.rng = rng
        self.typed: tuple[int, int] | None = None   # where the last character was typed

    def text(self) -> str:
        return "\n".join(self.lines)

    def edit(self, i: int) -> int | None:
        """Make edit `i` (its kind in turn); the 1-based line it changed, None if none fits."""
        code = [k for k, line in enumerate(self.lines) if line.strip() and not line.lstrip().startswith("#")]
        if not code:
            return None
        kind = self.KINDS[i % len(self.KINDS)]
        for _ in range(30):
            changed = getattr(self, f"_{kind}")(self.rng.choice(code))
            if changed is not None:
                return changed + 1
        return None

    def _name(self, k: int) -> int | None:
        line = self.lines[k]
        names = [m for m in lspbench.IDENT.finditer(line)
                 if m.group() not in lspbench.KEYWORDS and not _in_string(line, m.start())]
        if not names:
            return None
        at = self.rng.choice(names).end()
        self.lines[k] = line[:at] + "x" + line[at:]
        self.typed = (k, at)
        return k

    def _integer(self, k: int) -> int | None:
        line = self.lines[k]
        ints = [m for m in _INT.finditer(line) if not _in_string(line, m.start())]
        if not ints:
            return None
        m = self.rng.choice(ints)
        self.lines[k] = line[:m.start()] + str(int(m.group()) + 1) + line[m.end():]
        return k

    def _comment(self, k: int) -> int | None:
        line = self.lines[k]
        if "#" in line or line.rstrip().endswith("\\") or '"""' in line or "'''" in line:
            return None
        self.lines[k] = line + "  # typed"
        return k

    def _line(self, k: int) -> int | None:
        """(Inside a bracket's lines too: the block then stops parsing, as half-typed code does.)"""
        line = self.lines[k]
        if not line.startswith((" ", "\t")) or line.rstrip().endswith(("(", "[", "{", ",", "\\")):
            return None
        indent = line[:len(line) - len(line.lstrip())]
        self.lines.insert(k, indent + ("" if self.rng.random() < 0.5 else f"bench_unread_{k} = 1"))
        if self.typed is not None and self.typed[0] >= k:
            self.typed = (self.typed[0] + 1, self.typed[1])   # the character typed moved down
        return k

    def _statement(self, k: int) -> int | None:
        """(`k`: a line of code; the blank line is the nearest one above it.)"""
        blank = next((j for j in range(k - 1, max(k - 20, -1), -1) if not self.lines[j].strip()), None)
        line = self.lines[k]
        names = [m.group() for m in lspbench.IDENT.finditer(line) if m.group() not in lspbench.KEYWORDS]
        if blank is None or not line.startswith((" ", "\t")) or not names:
            return None
        self.lines[blank] = line[:len(line) - len(line.lstrip())] + f"{self.rng.choice(names)} = 1"
        return blank

    def _undo(self, k: int) -> int | None:
        """The last character typed, deleted (`k` aside); None if none is there."""
        if self.typed is None:
            return None
        row, at = self.typed
        self.typed = None
        line = self.lines[row] if row < len(self.lines) else ""
        if line[at:at + 1] != "x":
            return None
        self.lines[row] = line[:at] + line[at + 1:]
        return row


def _in_string(line: str, col: int) -> bool:
    """Roughly: an odd number of quotes before `col` (a name in a string is not code)."""
    before = line[:col]
    return before.count('"') % 2 == 1 or before.count("'") % 2 == 1


def _snapshot(analyzer: ModuleAnalyzer, findings: list) -> tuple:
    return (sorted(map(repr, findings)), sorted(map(repr, analyzer.value_notes())),
            sorted(map(repr, analyzer.parameter_notes())))


def _analyze(analyzer: ModuleAnalyzer, text: str) -> tuple:
    with frozen_after():
        return _snapshot(analyzer, analyzer.analyze(text))


def check_module(path: Path, edits: int, seed: int) -> tuple[int, int, int, list[str]]:
    """(edits made, of those the ones whose block kept its tree but for the edited
    statement, calls taken from earlier runs, mismatches) for one module."""
    text = path.read_text(encoding="utf-8", errors="replace")
    author = Author(text, random.Random(f"{seed}:{path.name}:{len(text)}"))
    editor = ModuleAnalyzer(str(path), Workspace([str(path.parent)]))
    _analyze(editor, text)
    made, spliced, taken, bad = 0, 0, 0, []
    for i in range(edits):
        line = author.edit(i)
        if line is None:
            continue
        made += 1
        new = author.text()
        got = _analyze(editor, new)
        spliced += editor.stats["spliced"]
        taken += editor.stats["calls_remembered"]
        if got != _analyze(ModuleAnalyzer(str(path), Workspace([str(path.parent)])), new):
            bad.append(f"{path}: edit {i} ({Author.KINDS[i % len(Author.KINDS)]}, line {line})")
    return made, spliced, taken, bad


def modules(roots: list[Path]) -> list[Path]:
    return sorted(p for root in roots for p in root.rglob("*.py")
                  if "pallas" in p.read_text(encoding="utf-8", errors="replace"))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--edits", type=int, help="edits per module (default 6; smoke 4)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--smoke", action="store_true", help="CI: one small wheel's modules")
    p.add_argument("--strict", action="store_true", help="exit 1 on a mismatch")
    p.add_argument("--wheels", default=str(HERE / ".bench" / "wheels"), help="download / unpack folder")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    edits = args.edits if args.edits is not None else (4 if args.smoke else 6)
    roots = published.fetch(Path(args.wheels), SMOKE_WHEELS if args.smoke else published.WHEELS)
    files = modules(roots)
    t0 = time.perf_counter()
    made = spliced = taken = 0
    mismatches: list[str] = []
    for path in files:
        n, s, t, bad = check_module(path, edits, args.seed)
        made, spliced, taken = made + n, spliced + s, taken + t
        for line in bad:
            print("MISMATCH", line, flush=True)
        mismatches += bad
    print(f"edit exactness: {len(files)} modules, {made} edits, {len(mismatches)} mismatches with a fresh "
          f"analysis ({spliced} edits parsed one statement again, {taken} calls taken from earlier runs; "
          f"{time.perf_counter() - t0:.0f} s)")
    return 1 if args.strict and mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
