"""Regenerate the parts of the docs that would otherwise drift from the code and the
benchmark runs: the sections between `<!-- begin generated: NAME -->` and
`<!-- end generated: NAME -->` in README.md and docs/*.md.

    python docs/generate.py           rewrite every stale section
    python docs/generate.py --check   exit 1 naming each stale section (CI), 0 when current

Sources: the rule table (`rules.py`, `rule_docs.py`), the corpus, the VS Code extension's
settings, and the figures the benchmarks record in docs/figures/ (`latency.py --json
docs/figures/latency.json`, `published_latency.py --json docs/figures/published_latency.json`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pallas_lsp.analysis.rule_docs import RULE_DOCS  # noqa: E402
from pallas_lsp.analysis.rules import RULES  # noqa: E402

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FIGURES = ROOT / "docs" / "figures"
SECTION = re.compile(r"(<!-- begin generated: (?P<name>[\w-]+) -->)(?P<body>.*?)(<!-- end generated: (?P=name) -->)",
                     re.S)


def rules_table(family: str, with_severity: bool) -> str:
    """The README table of one family of rules, in code order."""
    head = "| code | severity | what | JAX says |\n|---|---|---|---|" if with_severity \
        else "| code | what | JAX says |\n|---|---|---|"
    rows = []
    for code in sorted(c for c, d in RULE_DOCS.items() if d.family == family):
        doc = RULE_DOCS[code]
        severity = f" {doc.severity} |" if with_severity else ""
        rows.append(f"| `{code}` |{severity} {doc.what} | {doc.jax_says} |")
    return "\n".join([head, *rows])


def corpus_modules() -> str:
    return str(len(list((ROOT / "tests" / "corpus").glob("*.py"))))


def corpus_traced() -> str:
    """How many corpus modules define a `trace()` the oracle tests run."""
    modules = (ROOT / "tests" / "corpus").glob("*.py")
    return str(sum("def trace(" in m.read_text() for m in modules))


def vscode_settings() -> str:
    """The VS Code settings, as a list of names."""
    manifest = json.loads((ROOT / "vscode-client" / "package.json").read_text())
    names = list(manifest["contributes"]["configuration"]["properties"])
    return ", ".join(f"`{n}`" for n in names)


def _recorded(name: str) -> dict:
    return json.loads((FIGURES / f"{name}.json").read_text())


def _provenance(results: dict, loads: tuple) -> str:
    start, end = loads
    load = f"load average {start[0]:.1f} -> {end[0]:.1f}" if start and end else "load average unknown"
    return (f"Recorded {results['started'][:16].replace('T', ' ')} (commit {results.get('commit') or 'unknown'}, "
            f"{results.get('host_cpus', 2)} CPUs, {load}).")


def latency_table() -> str:
    import latency

    results = _recorded("latency")
    sizes = results["sizes"]
    loads = (sizes[0].get("loadavg_start"), sizes[-1].get("loadavg_end")) if sizes else (None, None)
    return _provenance(results, loads) + "\n\n" + latency.render_markdown(results).rstrip("\n")


def published_table() -> str:
    import published_latency

    results = _recorded("published_latency")
    loads = (results.get("loadavg_start"), results.get("loadavg_end"))
    return "\n\n".join([_provenance(results, loads), published_latency.render_table(results).rstrip("\n"),
                        published_latency.render_goals(results).rstrip("\n")])


GENERATORS: dict[str, Callable[[], str]] = {
    "rules-semaphores": lambda: rules_table("semaphores", with_severity=True),
    "rules-contract": lambda: rules_table("contract", with_severity=False),
    "rules-bodies": lambda: rules_table("bodies", with_severity=False),
    "rules-files": lambda: rules_table("files", with_severity=False),
    "corpus-modules": corpus_modules,
    "corpus-traced": corpus_traced,
    "vscode-settings": vscode_settings,
    "latency-table": latency_table,
    "published-table": published_table,
}


def regenerate(text: str, where: str, problems: list[str]) -> str:
    """`text` with every generated section rewritten; unknown names go to `problems`."""
    def section(m: re.Match) -> str:
        name = m.group("name")
        if name not in GENERATORS:
            problems.append(f"{where}: unknown generated section {name!r}")
            return m.group(0)
        try:
            body = GENERATORS[name]()
        except FileNotFoundError as missing:
            recorded = Path(missing.filename or "").name
            problems.append(f"{where}: {name}: no recorded figures ({recorded}); run the benchmark")
            return m.group(0)
        inline = "\n" not in m.group("body")
        body = body if inline else f"\n{body}\n"
        return f"{m.group(1)}{body}{m.group(4)}"
    return SECTION.sub(section, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a section is stale; change nothing")
    o = parser.parse_args(argv)
    problems: list[str] = []
    stale: list[str] = []
    missing = set(GENERATORS)   # every section must appear in some doc
    for path in DOCS:
        text = path.read_text()
        missing -= {m.group("name") for m in SECTION.finditer(text)}
        new = regenerate(text, path.name, problems)
        if new != text:
            names = [m.group("name") for m, n in zip(SECTION.finditer(text), SECTION.finditer(new))
                     if m.group(0) != n.group(0)]
            stale += [f"{path.relative_to(ROOT)}: {name}" for name in names]
            if not o.check:
                path.write_text(new)
    problems += [f"no doc has the generated section {name!r}" for name in sorted(missing)]
    problems += [f"{code} has no entry in rule_docs.py" for code in sorted(set(RULES) - set(RULE_DOCS))]
    for problem in problems:
        print(f"generate: {problem}", file=sys.stderr)
    if o.check and stale:
        print("generate: stale (run `python docs/generate.py`):\n  " + "\n  ".join(stale), file=sys.stderr)
    elif stale:
        print("generate: rewrote\n  " + "\n  ".join(stale))
    return 1 if problems or (o.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
