#!/usr/bin/env python3
"""Time and profile the analysis engine alone, without the LSP server.

Runs `ModuleAnalyzer.analyze` on a generated kernel file the way the server
does: once on the whole text (what didOpen costs), then after each of N
one-character edits (what a keystroke costs), and prints the times and the
top functions by cumulative time (cProfile) for each phase.  Comparing these
with latency.py's figures shows how much of a latency is the engine and how
much is the server around it.

    python benchmarks/profile_engine.py --lines 20000 --edits 20
    python benchmarks/profile_engine.py --file path/to/kernel.py --edits 12

With `--file`, a real module is analysed as the language server sees it (its folder as the
workspace, so the modules it imports from there are read too) and edited with the latency
benchmark's reverting pairs of one-character and one-line edits (lspbench's edit script).
"""

import argparse
import cProfile
import io
import pstats
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_kernels import generate


def one_char_edits(text, n, seed):
    """Yield n texts, each `text` with one character typed after an identifier
    on a random line and then removed again (every other text is the original)."""
    rng = random.Random(seed)
    lines = text.split("\n")
    candidates = [i for i, line in enumerate(lines) if line.strip() and not line.startswith("#")]
    for k in range(n):
        if k % 2:
            yield text
            continue
        i = rng.choice(candidates)
        edited = lines[:i] + [lines[i].rstrip() + "x"] + lines[i + 1:]
        yield "\n".join(edited)


def top(profile, n):
    """The n functions with the most cumulative time, then the n with the most own time."""
    parts = []
    for key, title in (("cumulative", "by cumulative time"), ("tottime", "by own time")):
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats(key).print_stats(n)
        body = out.getvalue()
        start = body.find("   ncalls")
        parts.append(f"-- {title}\n" + (body[start:] if start >= 0 else body).rstrip() + "\n")
    return "\n".join(parts)


def script_edits(text, n, seed):
    """Yield n texts: the latency benchmark's edits (lspbench.EditScript), one after another."""
    import lspbench

    doc = lspbench.Doc(text)
    script = lspbench.EditScript(doc, seed)
    for i in range(n):
        script.next(i)
        yield doc.text


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lines", type=int, default=20000)
    p.add_argument("--file", help="a real module instead of a generated one")
    p.add_argument("--edits", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--top", type=int, default=25, help="functions listed per phase")
    a = p.parse_args(argv)
    if a.lines < 20 or a.edits < 0:
        p.error("need --lines >= 20 and --edits >= 0")
    try:
        from pallas_lsp.analysis.engine import ModuleAnalyzer
        from pallas_lsp.memory import frozen_after
    except ImportError as e:
        sys.exit(f"profile_engine: cannot import pallas_lsp ({e}); run it with the benchmark "
                 f"venv: benchmarks/.venv/bin/python {Path(__file__).name}")
    if a.file:
        from pallas_lsp.analysis.workspace import Workspace

        path = str(Path(a.file).resolve())
        text, mistakes = Path(path).read_text(encoding="utf-8"), []
        analyzer = ModuleAnalyzer(path, Workspace([str(Path(path).parent)]))
        edits = script_edits(text, a.edits, a.seed)
    else:
        text, mistakes = generate(a.lines, a.seed)
        path = str(HERE / ".bench" / f"engine_{a.lines}.py")
        analyzer = ModuleAnalyzer(path)
        edits = one_char_edits(text, a.edits, a.seed)
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    with frozen_after():   # as the server runs it
        findings = analyzer.analyze(text)
    prof.disable()
    open_s = time.perf_counter() - t0
    print(f"{text.count(chr(10)):,} lines: open (whole-file analyze) {open_s * 1000:,.1f} ms "
          f"(under cProfile), {len(findings)} findings"
          + ("" if a.file else f" on {len(mistakes)} deliberate mistakes"))
    print(top(prof, a.top))

    if a.edits:
        prof = cProfile.Profile()
        times = []
        for edited in edits:
            t0 = time.perf_counter()
            prof.enable()
            with frozen_after():
                analyzer.analyze(edited)
            prof.disable()
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        print(f"{a.edits} edits: analyze median {statistics.median(times):,.1f} ms, "
              f"min {times[0]:,.1f}, max {times[-1]:,.1f} (under cProfile)")
        print(top(prof, a.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
