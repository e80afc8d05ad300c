#!/usr/bin/env python3
"""The floor under issue 5's open goal: how fast can a whole-file open be in Python?

Opens the same generated kernel file (20,000 lines by default) in fresh sessions of
ruff server and pallas-lsp, pushed diagnostics, with latency.py's client, and times in
fresh processes what any Python analysis of that file must at least do, parse it:

- CPython's `ast.parse` of the whole file, and of only the blocks pallas-lsp parses;
- tree-sitter's parse (tree-sitter + tree-sitter-python, if installed: setup_venv.sh
  installs them in the benchmark venv);
- pallas-lsp's engine alone (`ModuleAnalyzer.analyze`, cold).

Rounds are interleaved; medians are printed next to the goal's budget (3x ruff's open).

    python3 benchmarks/open_floor.py --lines 20000 --rounds 5
    python3 benchmarks/open_floor.py --smoke      # CI: 3,000 lines, one round
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import lspbench
from gen_kernels import generate

# Each probe runs in a fresh interpreter (cold caches, like a server's first open) with
# the cyclic GC off, as the engine runs; it prints milliseconds.
PROBES = {
    "ast.parse, whole file": """
import ast, gc, time
text = open(PATH).read()
gc.disable()
t = time.perf_counter(); ast.parse(text); print((time.perf_counter() - t) * 1000)
""",
    "ast.parse, the blocks pallas-lsp parses": """
import ast, gc, sys, time
sys.path.insert(0, SERVER)
from pallas_lsp.analysis import engine, parse
texts = []
real = parse.parse_text
def recording(text):
    texts.append(text)
    return real(text)
parse.parse_text = recording
text = open(PATH).read()
engine.ModuleAnalyzer(None).analyze(text)
gc.disable()
t = time.perf_counter()
for piece in dict.fromkeys(texts):
    try:
        ast.parse(piece)
    except SyntaxError:
        pass
print((time.perf_counter() - t) * 1000)
""",
    "tree-sitter parse, whole file": """
import gc, time
try:
    import tree_sitter, tree_sitter_python
except ImportError:
    print("nan"); raise SystemExit
parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_python.language()))
data = open(PATH, "rb").read()
gc.disable()
t = time.perf_counter(); parser.parse(data); print((time.perf_counter() - t) * 1000)
""",
    "pallas-lsp engine alone, cold": """
import sys, time
sys.path.insert(0, SERVER)
from pallas_lsp.analysis import engine
text = open(PATH).read()
from pallas_lsp.memory import frozen_after
t = time.perf_counter()
with frozen_after():   # as the server runs it
    engine.ModuleAnalyzer(None).analyze(text)
print((time.perf_counter() - t) * 1000)
""",
}


def probe(python: str, code: str, path: Path) -> float:
    head = f"PATH = {str(path)!r}\nSERVER = {str(ROOT / 'server')!r}\n"
    out = subprocess.run([python, "-c", head + code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def open_ms(cmd: list[str], path: Path, text: str, timeout: float) -> float:
    """didOpen -> the first publishDiagnostics for the file, in a fresh session."""
    c = lspbench.LspClient(cmd, cwd=str(path.parent), root_uri=lspbench.path_to_uri(path.parent))
    try:
        c.request("initialize", {"processId": os.getpid(), "rootUri": lspbench.path_to_uri(path.parent),
                                 "capabilities": lspbench.client_capabilities(pull_cap=False)}, timeout)
        c.notify("initialized", {})
        uri = lspbench.path_to_uri(path)
        start = c.note_count()
        t0 = lspbench.now()
        c.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": text}})
        _, t, _ = c.wait_note(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                              and m["params"]["uri"] == uri, start, timeout)
        return (t - t0) * 1000
    finally:
        c.kill_tree()
        c.close_pipes()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lines", type=int, default=20000)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--venv", default=str(HERE / ".venv"), help="benchmark venv (setup_venv.sh)")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--smoke", action="store_true", help="CI: 3,000 lines, one round")
    o = p.parse_args(argv)
    if o.smoke:
        o.lines, o.rounds = 3000, 1

    venv = Path(o.venv)
    python, ruff = venv / "bin" / "python", venv / "bin" / "ruff"
    if not (python.exists() and ruff.exists()):
        print(f"open_floor: benchmark venv missing at {venv}; run: bash {HERE / 'setup_venv.sh'}",
              file=sys.stderr)
        return 2
    servers = {"ruff server": [str(ruff), "server"], "pallas-lsp": [str(python), "-m", "pallas_lsp"]}

    with tempfile.TemporaryDirectory() as tmp:
        text, _ = generate(o.lines, o.seed)
        path = Path(tmp) / f"kernels_{o.lines}.py"
        path.write_text(text, encoding="utf-8")
        results: dict[str, list[float]] = {}
        for r in range(o.rounds):
            for name, cmd in servers.items():
                results.setdefault(f"{name}: open -> diagnostics", []).append(
                    open_ms(cmd, path, text, o.timeout))
            for name, code in PROBES.items():
                results.setdefault(name, []).append(probe(str(python), code, path))
            print(f"open_floor: round {r + 1}/{o.rounds} done", file=sys.stderr, flush=True)

    med = {k: statistics.median(v) for k, v in results.items()}
    ruff_open = med["ruff server: open -> diagnostics"]
    budget = 3 * ruff_open
    print(f"\n{o.lines:,} lines, {o.rounds} rounds, loadavg {lspbench.loadavg()}; medians, and x ruff's open")
    print(f"{'':44s} {'ms':>9s} {'x ruff':>8s}  (min - max)")
    for k, v in results.items():
        m = med[k]
        if math.isnan(m):   # tree-sitter not installed
            print(f"{k:44s} {'n/a':>9s}            (tree-sitter not installed)")
            continue
        print(f"{k:44s} {m:9.1f} {m / ruff_open:7.2f}x  ({min(v):.1f} - {max(v):.1f})")
    print(f"{'goal: open <= 3x ruff server':44s} {budget:9.1f} {3.0:7.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
