#!/usr/bin/env python3
"""Latency benchmark: pallas-lsp against ruff server and jedi-language-server.

One command runs all three servers, in the same run, on the same generated
Pallas kernel files, through the same LSP client (lspbench.py), and prints a
table per file size:

* edit -> diagnostics: didChange sent -> diagnostics for that version
  (median, p10, p90 over the edits);
* burst: 50 one-character changes sent back to back; last change ->
  diagnostics for the *final* version (a stale publish never counts);
* open -> diagnostics: didOpen sent -> first diagnostics;
* peak RSS of the server process tree;

then the pallas-lsp / ruff ratios against the goals of issue 5, and a
correctness check: the diagnostics pallas-lsp gives on open and after the
burst must sit exactly on the generator's deliberate mistakes.

Each server is measured in every diagnostics mode it offers (push:
textDocument/publishDiagnostics; pull: textDocument/diagnostic when the
server declares diagnosticProvider) and compared in its fastest one.

    python3 benchmarks/latency.py                 # 300 / 3,000 / 20,000 lines
    python3 benchmarks/latency.py --smoke         # CI: tiny files, few edits
    python3 benchmarks/latency.py --profile DIR   # + py-spy profile of pallas-lsp

The servers run from the benchmark's own venv (benchmarks/.venv), created
by setup_venv.sh on first use.  Timings are wall-clock on a shared machine:
they are noisy; the load average is printed with every table.  Exit status:
0 when every server answered, 1 when one failed to (no timing assertions).
"""

import argparse
import hashlib
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import lspbench
from gen_kernels import write_kernel_file

# Goals from issue 5: (metric, sizes it applies to, limit, kind)
# kind "ratio": pallas-lsp / ruff <= limit; "abs": pallas-lsp value <= limit.
GOALS = [
    ("edit_median", (3000, 20000), 1.0, "ratio", "edit -> diagnostics median <= 1.0x ruff"),
    ("burst", (3000, 20000), 0.5, "ratio", "burst settle <= 0.5x ruff"),
    ("open", (20000,), 3.0, "ratio", "open -> diagnostics <= 3x ruff"),
    ("rss", (20000,), 100.0, "abs", "peak RSS <= 100 MB"),
]

MODE_NOTE = (
    "modes: push = the server sends textDocument/publishDiagnostics after each change; "
    "pull = the client sends textDocument/diagnostic right after the change and times the "
    "response (ruff server uses pull whenever the client supports it, as VS Code does). "
    "Each server is measured in every mode it offers (* marks its lowest edit median). "
    "Ratios pallas-lsp / ruff are given like for like (push vs push, pull vs pull) and "
    "each in its fastest mode per metric (fastest vs fastest); in pull mode a burst costs "
    "a server one check of the final text. The burst waits for diagnostics of the final "
    "version: push counts only a publish carrying that version (or, for a server that "
    "publishes without versions, the last publish after 1 s of quiet); pull asks once "
    "after the last change."
)


# --------------------------------------------------------------------------
# servers
# --------------------------------------------------------------------------

def venv_bin(venv, name):
    return str(Path(venv) / "bin" / name)


def server_specs(venv):
    """name -> command line (list) of every server, from the benchmark venv."""
    py = venv_bin(venv, "python")
    if (ROOT / "server" / "pallas_lsp" / "__main__.py").exists():
        pallas = [py, "-m", "pallas_lsp"]
    else:  # before the entry point lands
        pallas = [py, "-c", "from pallas_lsp.server.main import run_server; run_server()"]
    return {
        "pallas-lsp": pallas,
        "ruff": [venv_bin(venv, "ruff"), "server"],
        "jedi-language-server": [venv_bin(venv, "jedi-language-server")],
    }


def source_digest():
    """The digest of what the benchmark venv's pallas-lsp is built from: pyproject.toml,
    setup.py and the server's source (the venv holds a compiled install, not the source)."""
    digest = hashlib.sha256()
    for path in [ROOT / "pyproject.toml", ROOT / "setup.py",
                 *sorted((ROOT / "server" / "pallas_lsp").rglob("*.py"))]:
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def venv_is_current(venv):
    """The venv has every server and its pallas-lsp was built from the current source."""
    needed = [venv_bin(venv, n) for n in ("python", "ruff", "jedi-language-server")]
    if not all(os.access(p, os.X_OK) for p in needed):
        return False
    stamp = Path(venv) / ".source.sha256"
    return stamp.exists() and stamp.read_text().strip() == source_digest()


def ensure_venv(venv, allow_setup):
    if venv_is_current(venv):
        return
    if not allow_setup:
        sys.exit(f"latency: benchmark venv missing, incomplete or older than the source "
                 f"at {venv}; run: bash {HERE / 'setup_venv.sh'}")
    if Path(venv).resolve() != (HERE / ".venv").resolve():
        sys.exit(f"latency: {venv} is incomplete (setup_venv.sh only builds {HERE / '.venv'})")
    print(f"latency: setting up the benchmark venv ({venv}) with setup_venv.sh ...", flush=True)
    subprocess.run(["bash", str(HERE / "setup_venv.sh"), sys.executable], check=True)


def probe_modes(cmd, root, timeout):
    """Start the server once and return (modes it supports, serverInfo, error)."""
    c = None
    try:
        c = lspbench.LspClient(cmd, cwd=root, root_uri=lspbench.path_to_uri(root))
        _, msg = c.request("initialize", {
            "processId": os.getpid(), "rootUri": lspbench.path_to_uri(root),
            "capabilities": lspbench.client_capabilities(pull_cap=True)}, timeout)
        if "error" in msg:
            return [], None, f"initialize error {msg['error']}"
        res = msg.get("result") or {}
        modes = ["push"] + (["pull"] if res.get("capabilities", {}).get("diagnosticProvider") else [])
        try:
            c.request("shutdown", None, 5)
            c.notify("exit", None)
            c.proc.wait(5)
        except (lspbench.WaitTimeout, lspbench.ServerExited, subprocess.TimeoutExpired):
            c.kill_tree()
        return modes, res.get("serverInfo"), None
    except (OSError, lspbench.WaitTimeout, lspbench.ServerExited) as e:
        if c is not None:
            c.kill_tree()
        return [], None, f"{type(e).__name__}: {e}"
    finally:
        if c is not None:
            c.close_pipes()


# --------------------------------------------------------------------------
# profiling (py-spy attached to the server, cProfile as a fallback)
# --------------------------------------------------------------------------

class Profiler:
    """Attach py-spy to the spawned server; summarise the collapsed stacks."""

    def __init__(self, venv, out_dir, label):
        self.pyspy = venv_bin(venv, "py-spy")
        self.out = Path(out_dir) / f"pallas-lsp_{label}.folded"
        self.proc = None
        self.error = None

    def on_spawn(self, pid):
        if not os.access(self.pyspy, os.X_OK):
            self.error = "py-spy not installed in the benchmark venv"
            return
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [self.pyspy, "record", "--pid", str(pid), "--rate", "250", "--format", "raw",
             "--threads", "--output", str(self.out), "--nonblocking"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(0.5)  # let py-spy attach before the session starts talking
        if self.proc.poll() is not None:
            self.error = "py-spy failed: " + self.proc.stderr.read().decode(errors="replace")[-300:]
            self.proc = None

    def finish(self):
        if self.proc is None:
            return
        try:
            self.proc.wait(30)  # py-spy stops by itself when the server exits
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if not self.out.exists():
            self.error = "py-spy wrote no profile: " + self.proc.stderr.read().decode(
                errors="replace")[-300:]


IMPORTS = "imports at startup"
AREAS = (  # a sample goes to the area of its innermost frame that matches one
    ("analysis (pallas_lsp/analysis)", ("pallas_lsp/analysis/",)),
    ("event loop, thread pool, waiting", ("selectors.py", "asyncio/", "concurrent/futures/",
                                          "threading.py", "queue.py")),
    ("JSON-RPC and (de)serialisation (pygls, lsprotocol, cattrs, json)",
     ("pygls/", "lsprotocol/", "cattrs/", "json/", "attr/")),
    ("server glue (other pallas_lsp code)", ("pallas_lsp/",)),
)


def area_of(frames):
    if any("<frozen importlib" in f for f in frames):
        return IMPORTS
    for f in reversed(frames):
        for name, keys in AREAS:
            if any(k in f for k in keys):
                return name
    return "other"


def summarize_folded(path, top=12):
    """Where the server's (non-idle) samples went, from py-spy raw output:
    a breakdown by area, then the top functions by self time and the
    pallas_lsp functions by inclusive time, both excluding startup imports."""
    buckets, self_c, incl_c, mods, total, steady = {}, {}, {}, {}, 0, 0
    for line in Path(path).read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        if not n.isdigit():
            continue
        n = int(n)
        frames = [f for f in stack.split(";") if not f.startswith(("process ", "thread "))]
        if not frames:
            continue
        total += n
        bucket = area_of(frames)
        buckets[bucket] = buckets.get(bucket, 0) + n
        if bucket == IMPORTS:
            for m in {f[len("<module> ("):].rsplit(":", 1)[0] for f in frames
                      if f.startswith("<module> (")}:
                mods[m] = mods.get(m, 0) + n
            continue
        steady += n
        self_c[frames[-1]] = self_c.get(frames[-1], 0) + n
        for f in set(frames):
            incl_c[f] = incl_c.get(f, 0) + n
    if not total:
        return "  (no samples: the server was idle or py-spy could not read it)\n"
    head = (f"  {total} non-idle samples at 250 Hz ({total / 250:.1f} s of CPU), "
            f"folded stacks: {path}\n")
    out = [head, "  by area:\n"]
    for name, n in sorted(buckets.items(), key=lambda kv: -kv[1]):
        out.append(f"    {100.0 * n / total:5.1f}%  {name}\n")
    if mods:
        n_imp = buckets[IMPORTS]
        out.append("  startup imports, by module (inclusive share of the import samples):\n")
        for m, n in sorted(mods.items(), key=lambda kv: -kv[1])[:8]:
            out.append(f"    {100.0 * n / n_imp:5.1f}%  {m}\n")
    out.append("  self time, startup imports excluded:\n")
    for f, n in sorted(self_c.items(), key=lambda kv: -kv[1])[:top]:
        out.append(f"    {100.0 * n / max(steady, 1):5.1f}%  {f}\n")
    out.append("  inclusive time of pallas_lsp functions, startup imports excluded:\n")
    own = [(f, n) for f, n in incl_c.items() if "pallas_lsp/" in f]
    for f, n in sorted(own, key=lambda kv: -kv[1])[:top]:
        out.append(f"    {100.0 * n / max(steady, 1):5.1f}%  {f}\n")
    return "".join(out)


# --------------------------------------------------------------------------
# measuring
# --------------------------------------------------------------------------

def session_args(cmd, path, mode, o):
    argv = ["--server", shlex.join(cmd), "--file", str(path), "--edits", str(o.edits),
            "--requests", "0", "--burst", "--timeout", str(o.timeout),
            "--edit-timeout", str(o.edit_timeout), "--gap", str(o.gap),
            "--seed", str(o.seed), "--quiet-output", f"--{mode}"]
    return lspbench.parse_run_args(argv)


def run_session(cmd, path, mode, o, k=0, profiler=None):
    """One fresh server session (the k-th: its edits use seed + k)."""
    s = lspbench.Session(session_args(cmd, path, mode, o), k)
    if profiler is not None:
        s.on_spawn = profiler.on_spawn
    return s.run()


def run_sessions(cmd, path, mode, o):
    return [run_session(cmd, path, mode, o, k) for k in range(o.repeat)]


def pct(vals, p):
    vals = sorted(v for v in vals if v is not None)
    return lspbench.pct_nearest_rank(vals, p) if vals else None


def median(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def row_from_runs(server, mode, runs):
    edits = [e for r in runs for e in r.get("edits", [])]
    edit_ms = [e["ms"] for e in edits if e.get("ms") is not None]
    bursts = [r.get("burst", {}) for r in runs]
    row = {
        "server": server, "mode": mode,
        "server_info": next((r.get("server_info") for r in runs if r.get("server_info")), None),
        "edit_n": len(edit_ms), "edit_timeouts": sum(1 for e in edits if e.get("ms") is None),
        "edit_median": median(edit_ms), "edit_p10": pct(edit_ms, 10), "edit_p90": pct(edit_ms, 90),
        "burst": median([b.get("final_ms") for b in bursts]),
        "burst_by": sorted({b.get("final_by") for b in bursts if b.get("final_by")}),
        "burst_matches_reference": [b.get("final_matches_reference") for b in bursts],
        "open": median([r.get("open_ms") for r in runs]),
        "startup": median([r.get("startup_ms") for r in runs]),
        "cpu": median([r.get("cpu_after_init_s") for r in runs]),
        "rss": max((r.get("peak_rss_tree_mb") or 0 for r in runs), default=None),
        "open_diag_count": [r.get("open_diag_count") for r in runs],
        "publish_has_version": any(r.get("publish_has_version") for r in runs),
        "errors": [e for r in runs for e in r.get("errors", [])],
    }
    if any(r.get("open_ms") is None for r in runs):
        row["errors"].append("no diagnostics after didOpen")
    if any(b.get("final_ms") is None for b in bursts):
        row["errors"].append("no final diagnostics after the burst: "
                             + "; ".join(str(b.get("status")) for b in bursts if b.get("status")))
    if row["edit_timeouts"]:
        row["errors"].append(f"{row['edit_timeouts']} edit(s) got no diagnostics")
    return row


def expected_keys(meta, shift_from=None):
    """{(0-based line, code)} of the deliberate mistakes; lines at or after
    `shift_from` move down one (the burst inserts one line there)."""
    out = set()
    for m in meta["deliberate_mistakes"]:
        ln = m["line"] - 1
        if shift_from is not None and ln >= shift_from:
            ln += 1
        out.add((ln, m["code"]))
    return out


def check_findings(got, expected):
    """Compare pallas-lsp diagnostics (line, code) with the expected mistakes."""
    got_set = {(ln, c) for ln, c in got if c.startswith("PAL")}
    return {"expected": len(expected), "got": len(got_set),
            "missing": sorted(expected - got_set), "extra": sorted(got_set - expected),
            "ok": got_set == expected}


def check_edits(edits, meta):
    """Check the diagnostics of every edit whose text is known exactly: after a
    deletion the text is the original again; after a line insertion the
    mistakes below it move down one.  (A character insertion may rename a
    semaphore, so it is not checked.)"""
    checked, wrong = 0, []
    for e in edits:
        if "diags" not in e or e["op"] == "insert_char":
            continue
        shift = e["line"] if e["op"] == "insert_line" else None
        c = check_findings(e["diags"], expected_keys(meta, shift_from=shift))
        checked += 1
        if not c["ok"]:
            wrong.append((e["version"], e["op"], c["missing"][:3], c["extra"][:3]))
    ok = not wrong and checked > 0
    return {"expected": checked, "got": checked - len(wrong), "ok": ok,
            "missing": [], "extra": [], "wrong_edits": wrong}


def correctness(runs, meta):
    out = []
    for r in runs:
        if "open_diags" in r:
            out.append(("open", check_findings(r["open_diags"], expected_keys(meta))))
        if r.get("edits"):
            out.append(("edits", check_edits(r["edits"], meta)))
        b = r.get("burst", {})
        if "final_diags" in b:
            out.append(("after burst", check_findings(
                b["final_diags"], expected_keys(meta, shift_from=b["line"]))))
    return out


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------

def fnum(v, nd=1):
    return "-" if v is None else f"{v:,.{nd}f}"


def best_rows(rows):
    """server -> its fastest row (lowest edit median; rows with no data last)."""
    best = {}
    for r in rows:
        key = (r["edit_median"] is None, r["edit_median"] or 0.0)
        cur = best.get(r["server"])
        if cur is None or key < (cur["edit_median"] is None, cur["edit_median"] or 0.0):
            best[r["server"]] = r
    return best


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


METRICS = ("edit_median", "burst", "open", "rss")


def comparisons(rows):
    """[(label, pallas figures, ruff figures)]: each a dict metric -> value.

    "push" and "pull" compare the two servers in the same mode (like for
    like); "fastest" takes each server's best figure over its modes, per
    metric (the way it publishes fastest; for peak RSS, the larger of its
    modes).  In pull mode a burst costs a server one check of the final text.
    """
    by = {(r["server"], r["mode"]): r for r in rows}
    out = []
    for mode in ("push", "pull"):
        p, f = by.get(("pallas-lsp", mode)), by.get(("ruff", mode))
        if p and f:
            out.append((f"{mode} vs {mode}", {m: p[m] for m in METRICS},
                        {m: f[m] for m in METRICS}))

    def fastest(server):
        own = [r for r in rows if r["server"] == server]
        fig = {}
        for m in METRICS:
            vals = [r[m] for r in own if r[m] is not None]
            fig[m] = (max if m == "rss" else min)(vals) if vals else None
        return fig if own else None

    p, f = fastest("pallas-lsp"), fastest("ruff")
    if p and f:
        out.append(("fastest vs fastest", p, f))
    return out


def goal_lines(size, rows):
    """[(goal label, [(comparison label, shown, verdict)])] for this size."""
    comps = comparisons(rows)
    out = []
    for metric, sizes, limit, kind, label in GOALS:
        if size not in sizes or not comps:
            continue
        cells = []
        for clabel, p, f in comps:
            if kind == "ratio":
                v = ratio(p[metric], f[metric])
                shown = "-" if v is None else f"{v:.2f}x"
            else:
                v = p[metric]
                shown = "-" if v is None else f"{v:.1f} MB"
            cells.append((clabel, shown, "n/a" if v is None else ("MET" if v <= limit else "MISSED")))
        out.append((label, cells))
    return out


def render(results, o):
    lines = []
    w = lines.append
    w(f"\nlatency benchmark  host: {os.cpu_count()} CPUs, python {sys.version.split()[0]}; "
      f"edits={o.edits} x repeat={o.repeat}, burst=50 changes, gap={o.gap}s\n")
    w(MODE_NOTE + "\n")
    for size_res in results["sizes"]:
        size = size_res["lines"]
        w(f"\n=== {size:,} lines ({size_res['file']}, {size_res['mistakes']} deliberate "
          f"mistakes)  loadavg {size_res['loadavg_start']} -> {size_res['loadavg_end']}\n")
        hdr = (f"{'server':22s} {'mode':5s} {'edit med':>9s} {'p10':>8s} {'p90':>8s} "
               f"{'burst':>9s} {'open':>9s} {'start':>7s} {'CPU s':>6s} {'RSS MB':>7s} "
               f"{'diags':>6s}  notes")
        w(hdr + "\n" + "-" * len(hdr) + "\n")
        best = best_rows(size_res["rows"])
        for r in size_res["rows"]:
            star = "*" if best.get(r["server"]) is r else " "
            notes = []
            if r["burst_by"] and r["mode"] == "push":
                notes.append("final by " + "/".join(r["burst_by"]))
            if False in r["burst_matches_reference"]:
                notes.append("STALE: burst result != fresh open of the same text")
            if r["errors"]:
                notes.append("ERRORS: " + " | ".join(r["errors"])[:200])
            w(f"{r['server'] + star:22s} {r['mode']:5s} {fnum(r['edit_median']):>9s} "
              f"{fnum(r['edit_p10']):>8s} {fnum(r['edit_p90']):>8s} {fnum(r['burst']):>9s} "
              f"{fnum(r['open']):>9s} {fnum(r['startup'], 0):>7s} {fnum(r.get('cpu'), 2):>6s} "
              f"{fnum(r['rss']):>7s} "
              f"{'/'.join(str(c) for c in r['open_diag_count']):>6s}  {'; '.join(notes)}\n")
        w("(ms unless noted; start = spawn -> initialize answered; CPU s = the server's CPU "
          "time after initialize: open, edits, burst; diags = diagnostics on open; "
          "* = the server's lowest edit median)\n")
        comps = comparisons(size_res["rows"])
        if comps:
            w(f"{'pallas-lsp / ruff':22s} {'edit':>7s} {'burst':>7s} {'open':>7s} {'RSS':>7s}\n")
            for clabel, p, f in comps:
                w(f"  {clabel:20s} " + " ".join(
                    f"{fnum(ratio(p[m], f[m]), 2) + 'x':>7s}" for m in METRICS) + "\n")
            for label, cells in goal_lines(size, size_res["rows"]):
                w(f"  goal: {label:40s} " + " | ".join(
                    f"{c}: {shown} {verdict}" for c, shown, verdict in cells) + "\n")
        for server, checks in size_res["correctness"].items():
            seen = {}  # identical verdicts of several sessions are printed once
            for when, c in checks:
                status = "OK" if c["ok"] else "MISMATCH"
                if when == "edits":
                    text = (f"{server} findings after edits: exact after {c['got']} of "
                            f"{c['expected']} checked edits: {status}")
                    if c["wrong_edits"]:
                        text += f"; wrong (version, op, missing, extra) {c['wrong_edits'][:3]}"
                else:
                    text = (f"{server} findings {when}: {c['got']} on {c['expected']} deliberate "
                            f"mistakes: {status}")
                    if c["missing"]:
                        text += f"; missing (0-based line, code) {c['missing'][:8]}"
                    if c["extra"]:
                        text += f"; extra {c['extra'][:8]}"
                seen[text] = seen.get(text, 0) + 1
            for text, n in seen.items():
                w(text + (f" (in {n} sessions)" if n > 1 else "") + "\n")
        if size_res.get("profile"):
            w(f"profile of pallas-lsp during a separate {size:,}-line session:\n")
            w(size_res["profile"])
    w("\nTimings are wall-clock on a shared 2-core machine: expect noise of tens of percent; "
      "compare ratios from the same run, not absolute numbers across runs.\n")
    return "".join(lines)


def render_markdown(results):
    head = ("| lines | server (mode) | edit median [p10-p90] ms | burst ms | open ms | start ms "
            "| CPU s | peak RSS MB |")
    out = [head, "|---:|---|---:|---:|---:|---:|---:|---:|"]
    for s in results["sizes"]:
        best = best_rows(s["rows"])
        for r in s["rows"]:
            star = " *" if best.get(r["server"]) is r else ""
            out.append(f"| {s['lines']:,} | {r['server']} ({r['mode']}){star} | "
                       f"{fnum(r['edit_median'])} [{fnum(r['edit_p10'])}-{fnum(r['edit_p90'])}] | "
                       f"{fnum(r['burst'])} | {fnum(r['open'])} | {fnum(r['startup'], 0)} | "
                       f"{fnum(r.get('cpu'), 2)} | {fnum(r['rss'])} |")
    out.append("")
    out.append("| lines | goal | push vs push | pull vs pull | fastest vs fastest |")
    out.append("|---:|---|---|---|---|")
    for s in results["sizes"]:
        for label, cells in goal_lines(s["lines"], s["rows"]):
            by = {c: f"{shown} {verdict}" for c, shown, verdict in cells}
            out.append(f"| {s['lines']:,} | {label} | {by.get('push vs push', '-')} | "
                       f"{by.get('pull vs pull', '-')} | {by.get('fastest vs fastest', '-')} |")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Latency benchmark: pallas-lsp vs ruff server vs jedi-language-server.")
    p.add_argument("--smoke", action="store_true",
                   help="CI mode: 300- and 1,000-line files, 4 edits, about a minute")
    p.add_argument("--sizes", type=int, nargs="+", help="file sizes in lines "
                   "(default 300 3000 20000)")
    p.add_argument("--servers", nargs="+", choices=["pallas-lsp", "ruff", "jedi-language-server"],
                   help="servers to run (default: all three)")
    p.add_argument("--edits", type=int, help="edits per session, rounded up to even "
                   "(default 30; smoke 4)")
    p.add_argument("--repeat", type=int, default=1, help="fresh sessions per server and mode")
    p.add_argument("--gap", type=float, default=0.05, help="pause before each edit (s)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=60.0, help="startup / open / burst wait (s)")
    p.add_argument("--edit-timeout", type=float, default=15.0, help="wait per edit (s)")
    p.add_argument("--venv", default=str(HERE / ".venv"), help="benchmark venv")
    p.add_argument("--no-setup", action="store_true",
                   help="fail instead of creating a missing benchmark venv")
    p.add_argument("--work-dir", default=str(HERE / ".bench"),
                   help="where generated files and results go (git-ignored)")
    p.add_argument("--json", help="write all results here (default WORK_DIR/latency_*.json)")
    p.add_argument("--markdown", help="also write the tables as Markdown here")
    p.add_argument("--profile", metavar="DIR",
                   help="after measuring, profile pallas-lsp with py-spy in one more session "
                        "per size (folded stacks in DIR, summary printed)")
    o = p.parse_args(argv)
    o.sizes = o.sizes or ([300, 1000] if o.smoke else [300, 3000, 20000])
    o.servers = o.servers or ["pallas-lsp", "ruff", "jedi-language-server"]
    o.edits = o.edits if o.edits is not None else (4 if o.smoke else 30)
    if o.edits < 0 or o.repeat < 1 or any(n < 20 for n in o.sizes):
        p.error("need --edits >= 0, --repeat >= 1 and sizes of at least 20 lines")
    o.edits += o.edits % 2  # edits come in reverting pairs: the text returns to the original
    return o


def main(argv=None):
    o = parse_args(sys.argv[1:] if argv is None else argv)
    ensure_venv(o.venv, not o.no_setup)
    specs = {k: v for k, v in server_specs(o.venv).items() if k in o.servers}
    work = Path(o.work_dir)
    work.mkdir(parents=True, exist_ok=True)

    failed = []
    modes = {}
    for name, cmd in specs.items():
        m, info, err = probe_modes(cmd, str(work), o.timeout)
        if err:
            failed.append(f"{name}: does not start ({err})")
            print(f"latency: {name} does not start: {err}", file=sys.stderr)
            continue
        modes[name] = m
        print(f"latency: {name} {info or ''} modes {m}: {shlex.join(cmd)}", flush=True)

    results = {"started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "commit": lspbench.commit(),
               "host_cpus": os.cpu_count(),
               "options": {k: v for k, v in vars(o).items()}, "servers": {
                   n: {"cmd": specs[n], "modes": modes.get(n)} for n in specs},
               "sizes": []}
    for si, size in enumerate(o.sizes):
        path = work / f"kernels_{size}.py"
        meta = write_kernel_file(path, size, o.seed)
        size_res = {"lines": size, "file": str(path), "mistakes": len(meta["deliberate_mistakes"]),
                    "loadavg_start": lspbench.loadavg(), "rows": [], "correctness": {}}
        names = [n for n in specs if n in modes]
        names = names[si % len(names):] + names[:si % len(names)] if names else []  # rotate
        plan = [(name, mode) for name in names for mode in modes[name]]
        runs = {key: [] for key in plan}
        for k in range(o.repeat):  # interleaved, so that a busy spell hits every server
            for name, mode in plan:
                print(f"latency: {size:,} lines: {name} ({mode}) session {k + 1}/{o.repeat} ...",
                      flush=True)
                runs[(name, mode)].append(run_session(specs[name], path, mode, o, k))
        for (name, mode), rs in runs.items():
            row = row_from_runs(name, mode, rs)
            size_res["rows"].append(row)
            if name == "pallas-lsp":
                size_res["correctness"][f"{name} ({mode})"] = correctness(rs, meta)
            failed.extend(f"{name} ({mode}) {size} lines: {e}" for e in row["errors"])
        if o.profile and "pallas-lsp" in modes:
            prof = Profiler(o.venv, o.profile, f"{size}")
            print(f"latency: {size:,} lines: profiling pallas-lsp ...", flush=True)
            run_session(specs["pallas-lsp"], path, modes["pallas-lsp"][0], o, profiler=prof)
            prof.finish()
            size_res["profile"] = (f"  profiling failed: {prof.error}\n" if prof.error
                                   else summarize_folded(prof.out))
        size_res["loadavg_end"] = lspbench.loadavg()
        size_res["rows"].sort(key=lambda r: (list(specs).index(r["server"]), r["mode"]))
        results["sizes"].append(size_res)

    text = render(results, o)
    print(text)
    out_json = Path(o.json) if o.json else work / (
        "latency_smoke.json" if o.smoke else "latency_results.json")
    out_json.write_text(json.dumps(lspbench.portable(results), indent=1, default=str))
    print(f"results: {out_json}")
    if o.markdown:
        Path(o.markdown).write_text(render_markdown(results))
        print(f"markdown: {o.markdown}")
    if failed:
        print("\nFAILED: a server did not answer:\n  " + "\n  ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
