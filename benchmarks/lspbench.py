#!/usr/bin/env python3
"""lspbench - measure a language server's responsiveness over real LSP stdio.

The LSP client and session driver behind benchmarks/latency.py (adapted from
the team's shared harness).  Standard library only.  Subcommands:

  python lspbench.py --server "CMD ARGS" --file path.py [--edits N] [--repeat K]
                     [--pull | --push] [--burst] [--json out.json]
  python lspbench.py gen --lines N [N ...] [--out-dir DIR] [--seed S]   (gen_kernels.py)
  python lspbench.py fake --mode ok|hang|hang-after-init|crash|crash-on-open|silent
  python lspbench.py selftest

("run" may be given explicitly as the first word; it is the default.)

All latencies are wall-clock (time.perf_counter) in the client process: from
just before the triggering message is written to the server's stdin, to the
moment the reader thread has fully read and JSON-decoded the matching message.
"""

import argparse
import ast
import collections
import contextlib
import json
import math
import os
import platform
import queue
import random
import re
import shlex
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_kernels import generate
from gen_kernels import main as gen_main

VERSION = "0.1"


# --------------------------------------------------------------------------
# errors / small helpers
# --------------------------------------------------------------------------

class ServerExited(Exception):
    """The server process closed stdout / exited."""


class WaitTimeout(Exception):
    """Nothing matching arrived within the wait timeout."""


def now():
    return time.perf_counter()


def ms(seconds):
    return None if seconds is None else round(seconds * 1000.0, 3)


def path_to_uri(p):
    return Path(os.path.abspath(p)).as_uri()


def utf16_len(s):
    return len(s.encode("utf-16-le")) // 2


def portable(value, root=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))):
    """`value` (results, nested) with the checkout's own paths made relative to it: what a
    recorded figure file may say of the machine it ran on."""
    if isinstance(value, str):
        return value.replace(root + os.sep, "")
    if isinstance(value, dict):
        return {k: portable(v, root) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [portable(v, root) for v in value]
    return value


def commit():
    """The checkout's commit (short hash, "+" when it has uncommitted changes), or None."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+" if dirty else "")


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return [float(x) for x in f.read().split()[:3]]
    except OSError:
        return None


def pct_nearest_rank(sorted_vals, p):
    if not sorted_vals:
        return None
    k = max(1, math.ceil(p / 100.0 * len(sorted_vals)))
    return sorted_vals[k - 1]


def stats(samples):
    vals = sorted(v for v in samples if v is not None)
    if not vals:
        return {"n": 0}
    return {
        "n": len(vals),
        "min": round(vals[0], 2),
        "p10": round(pct_nearest_rank(vals, 10), 2),
        "median": round(statistics.median(vals), 2),
        "p90": round(pct_nearest_rank(vals, 90), 2),
        "p95": round(pct_nearest_rank(vals, 95), 2),
        "max": round(vals[-1], 2),
    }


# --------------------------------------------------------------------------
# process-tree memory
# --------------------------------------------------------------------------

def _children(pid):
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    out.extend(int(x) for x in f.read().split())
            except OSError:
                pass
    except OSError:
        pass
    return out


def process_tree(pid):
    seen, stack = [], [pid]
    while stack:
        p = stack.pop()
        if p in seen:
            continue
        seen.append(p)
        stack.extend(_children(p))
    return seen


def _status_kb(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def _cpu_ticks(pid):
    """utime + stime of a process, in clock ticks (None if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, ValueError, IndexError):
        return None


class RssSampler(threading.Thread):
    """Samples VmHWM/VmRSS of the server process tree every `interval` s.

    tree_hwm_kb: max over samples of sum(VmHWM) over live tree processes (an
    upper bound of the simultaneous peak; exact when the tree is 1 process).
    main_hwm_kb: VmHWM of the spawned process itself (last value seen).
    """

    def __init__(self, pid, interval=0.2):
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.tree_hwm_kb = 0
        self.tree_rss_kb = 0
        self.main_hwm_kb = 0
        self.max_procs = 0
        self._cpu = {}  # pid -> last utime + stime seen (ticks)
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def sample(self):
        with self._lock:
            self._sample()

    def cpu_s(self):
        """CPU seconds used so far by the tree (exited children: last value seen)."""
        self.sample()
        return sum(self._cpu.values()) / os.sysconf("SC_CLK_TCK")

    def _sample(self):
        pids = process_tree(self.pid)
        hwm = rss = 0
        live = 0
        for p in pids:
            t = _cpu_ticks(p)
            if t is not None:
                self._cpu[p] = max(t, self._cpu.get(p, 0))
            h = _status_kb(p, "VmHWM")
            r = _status_kb(p, "VmRSS")
            if h is None:
                continue
            live += 1
            hwm += h
            rss += r or 0
            if p == self.pid:
                self.main_hwm_kb = max(self.main_hwm_kb, h)
        self.tree_hwm_kb = max(self.tree_hwm_kb, hwm)
        self.tree_rss_kb = max(self.tree_rss_kb, rss)
        self.max_procs = max(self.max_procs, live)

    def run(self):
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def stop(self):
        self._stop.set()


# --------------------------------------------------------------------------
# LSP client over stdio
# --------------------------------------------------------------------------

class LspClient:
    def __init__(self, cmd, cwd=None, config_reply="null", root_uri=None,
                 stderr_log=None):
        self.cmd = cmd
        self.config_reply = config_reply
        self.root_uri = root_uri
        self._wlock = threading.Lock()
        self._cv = threading.Condition()
        self._next_id = 1
        self.responses = {}            # id -> (t, msg)
        self.notes = []                # [(t, msg)] server->client notifications
        self.server_requests = collections.Counter()
        self.exited = False
        self.protocol_errors = []
        self.stderr_tail = collections.deque(maxlen=60)
        self._stderr_log = open(stderr_log, "ab") if stderr_log else None  # noqa: SIM115 (closed in close_pipes)
        self._replies = queue.Queue()
        self.t_spawn = now()
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, cwd=cwd)
        self.pid = self.proc.pid
        for target in (self._read_loop, self._stderr_loop, self._reply_loop):
            threading.Thread(target=target, daemon=True).start()

    # -- threads ---------------------------------------------------------
    def _read_loop(self):
        f = self.proc.stdout
        try:
            while True:
                headers = {}
                while True:
                    line = f.readline()
                    if not line:
                        raise EOFError
                    line = line.strip()
                    if not line:
                        if headers:
                            break
                        continue
                    k, _, v = line.decode("ascii", "replace").partition(":")
                    headers[k.strip().lower()] = v.strip()
                n = int(headers["content-length"])
                body = f.read(n)
                if len(body) < n:
                    raise EOFError
                msg = json.loads(body)
                t = now()
                self._dispatch(t, msg)
        except EOFError:
            pass
        except (ValueError, KeyError) as e:  # malformed framing / JSON
            self.protocol_errors.append(repr(e))
        finally:
            with self._cv:
                self.exited = True
                self._cv.notify_all()

    def _stderr_loop(self):
        for line in self.proc.stderr:
            self.stderr_tail.append(line.decode("utf-8", "replace").rstrip())
            if self._stderr_log:
                self._stderr_log.write(line)
        if self._stderr_log:
            self._stderr_log.flush()

    def _reply_loop(self):
        # Replies to server->client requests are written from this thread so
        # the reader thread never blocks on the stdin pipe.
        while True:
            msg = self._replies.get()
            if msg is None:
                return
            try:
                self._send(msg)
            except ServerExited:
                return

    def _dispatch(self, t, msg):
        if "method" in msg and "id" in msg:
            self._answer_server_request(msg)
            return
        with self._cv:
            if "id" in msg and "method" not in msg:
                self.responses[msg["id"]] = (t, msg)
            else:
                self.notes.append((t, msg))
            self._cv.notify_all()

    def _answer_server_request(self, msg):
        method = msg["method"]
        self.server_requests[method] += 1
        params = msg.get("params") or {}
        result, error = None, None
        if method == "workspace/configuration":
            n = len(params.get("items", []))
            result = [None] * n if self.config_reply == "null" else [{} for _ in range(n)]
        elif method in ("client/registerCapability", "client/unregisterCapability",
                        "window/workDoneProgress/create", "window/showMessageRequest",
                        "workspace/diagnostic/refresh", "workspace/semanticTokens/refresh",
                        "workspace/inlayHint/refresh", "workspace/codeLens/refresh",
                        "workspace/inlineValue/refresh", "window/showDocument"):
            result = None
        elif method == "workspace/workspaceFolders":
            result = [{"uri": self.root_uri, "name": "root"}] if self.root_uri else None
        elif method == "workspace/applyEdit":
            result = {"applied": False}
        else:
            error = {"code": -32601, "message": f"lspbench: unhandled {method}"}
        reply = {"jsonrpc": "2.0", "id": msg["id"]}
        if error:
            reply["error"] = error
        else:
            reply["result"] = result
        self._replies.put(reply)

    # -- sending ---------------------------------------------------------
    def _send(self, msg):
        body = json.dumps(msg, separators=(",", ":")).encode("utf-8")
        data = b"Content-Length: %d\r\n\r\n" % len(body) + body
        with self._wlock:
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError) as e:
                raise ServerExited(f"write failed: {e!r}")

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def send_request(self, method, params):
        rid = self._next_id
        self._next_id += 1
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return rid

    def wait_response(self, rid, timeout):
        deadline = now() + timeout
        with self._cv:
            while True:
                if rid in self.responses:
                    return self.responses.pop(rid)
                if self.exited:
                    raise ServerExited(self.exit_description())
                left = deadline - now()
                if left <= 0:
                    raise WaitTimeout(f"no response in {timeout:g}s")
                self._cv.wait(left)

    def request(self, method, params, timeout):
        """Returns (seconds, response message). Raises WaitTimeout/ServerExited."""
        t0 = now()
        rid = self.send_request(method, params)
        t, msg = self.wait_response(rid, timeout)
        return t - t0, msg

    def note_count(self):
        with self._cv:
            return len(self.notes)

    def wait_note(self, pred, start, timeout):
        """Wait for the first notification at index >= start matching pred.
        Returns (index, t, msg)."""
        deadline = now() + timeout
        with self._cv:
            i = start
            while True:
                while i < len(self.notes):
                    t, msg = self.notes[i]
                    if pred(msg):
                        return i, t, msg
                    i += 1
                if self.exited:
                    raise ServerExited(self.exit_description())
                left = deadline - now()
                if left <= 0:
                    raise WaitTimeout(f"none in {timeout:g}s")
                self._cv.wait(left)

    def exit_description(self):
        rc = self.proc.poll()
        if rc is None:
            try:
                rc = self.proc.wait(0.5)
            except subprocess.TimeoutExpired:
                rc = None
        tail = " | ".join(list(self.stderr_tail)[-3:])
        return f"server exited (rc={rc})" + (f"; stderr: {tail[-300:]}" if tail else "")

    def kill_tree(self):
        """Kill the spawned server and any descendants, by PID."""
        pids = process_tree(self.pid)
        for p in reversed(pids):
            try:
                os.kill(p, 9)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            pass

    def close_pipes(self):
        self._replies.put(None)
        for s in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError, ValueError):
                s.close()
        if self._stderr_log:
            with contextlib.suppress(OSError, ValueError):
                self._stderr_log.close()


# --------------------------------------------------------------------------
# document model + edit script
# --------------------------------------------------------------------------

class Doc:
    def __init__(self, text):
        self.lines = text.split("\n")

    @property
    def text(self):
        return "\n".join(self.lines)

    def apply(self, sl, sc, el, ec, new):
        """Apply a replacement given in *python str* columns."""
        head = self.lines[sl][:sc]
        tail = self.lines[el][ec:]
        repl = (head + new + tail).split("\n")
        self.lines[sl:el + 1] = repl

    def pos(self, line, col):
        return {"line": line, "character": utf16_len(self.lines[line][:col])}


IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
KEYWORDS = {"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"}


def statement_lines(text):
    """0-based lines where a new statement may be inserted (same indent)."""
    lines = text.split("\n")
    out = set()
    try:
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt):
                out.add(node.lineno - 1)
    except SyntaxError:
        out = {i for i, l in enumerate(lines) if l.strip() and not l.rstrip().endswith((",", "(", "["))}
    good = []
    for i in sorted(out):
        if i >= len(lines):
            continue
        prev = i - 1
        while prev >= 0 and not lines[prev].strip():
            prev -= 1
        if prev >= 0 and lines[prev].lstrip().startswith("@"):
            continue  # between decorator and def
        good.append(i)
    return good or [0]


class EditScript:
    """Realistic incremental edits; pairs revert each other so the document
    oscillates around the original:  insert char / delete it, insert line /
    delete it, at seeded-random statement positions."""

    OPS = ("insert_char", "delete_char", "insert_line", "delete_line")

    def __init__(self, doc, seed):
        self.doc = doc
        self.rng = random.Random(seed)
        self.stmts = statement_lines(doc.text)
        self.pending = None

    def next(self, i):
        op = self.OPS[i % 4]
        d = self.doc
        if op == "insert_char":
            for _ in range(50):
                ln = self.rng.choice(self.stmts)
                ids = [m for m in IDENT.finditer(d.lines[ln]) if m.group() not in KEYWORDS]
                if ids:
                    break
            else:
                ln, ids = 0, []
            col = self.rng.choice(ids).end() if ids else len(d.lines[ln])
            s = d.pos(ln, col)
            d.apply(ln, col, ln, col, "x")
            self.pending = (ln, col)
            return op, {"start": s, "end": s}, "x"
        if op == "delete_char":
            ln, col = self.pending
            s, e = d.pos(ln, col), d.pos(ln, col + 1)
            d.apply(ln, col, ln, col + 1, "")
            return op, {"start": s, "end": e}, ""
        if op == "insert_line":
            ln = self.rng.choice(self.stmts)
            indent = re.match(r"\s*", d.lines[ln]).group()
            new = f"{indent}bench_tmp_{i} = {i}\n"
            s = d.pos(ln, 0)
            d.apply(ln, 0, ln, 0, new)
            self.pending = ln
            return op, {"start": s, "end": s}, new
        ln = self.pending  # delete_line
        s, e = d.pos(ln, 0), d.pos(ln + 1, 0)
        d.apply(ln, 0, ln + 1, 0, "")
        return op, {"start": s, "end": e}, ""


def hover_positions(doc, rng, n):
    pat = re.compile(r"\b(make_async_copy|pallas_call|VMEM|SemaphoreType|fori_loop|"
                     r"BlockSpec|ShapeDtypeStruct|zeros|dot|sum|astype)\b")
    cands = []
    for ln, line in enumerate(doc.lines):
        for m in pat.finditer(line):
            cands.append((ln, (m.start() + m.end()) // 2))
    if not cands:
        for ln, line in enumerate(doc.lines):
            for m in IDENT.finditer(line):
                if m.group() not in KEYWORDS:
                    cands.append((ln, (m.start() + m.end()) // 2))
    if not cands:
        cands = [(0, 0)]
    return [rng.choice(cands) for _ in range(n)]


def diag_keys(diags):
    """[(0-based start line, code)] of a diagnostics list, for correctness checks."""
    return sorted((d.get("range", {}).get("start", {}).get("line"), str(d.get("code")))
                  for d in diags or [])


def norm_diags(diags):
    out = []
    for d in diags or []:
        r = d.get("range", {})
        s, e = r.get("start", {}), r.get("end", {})
        out.append((s.get("line"), s.get("character"), e.get("line"), e.get("character"),
                    d.get("severity"), str(d.get("code")), d.get("source"), d.get("message")))
    return sorted(out, key=repr)


# --------------------------------------------------------------------------
# one benchmark session
# --------------------------------------------------------------------------

def client_capabilities(pull_cap=True):
    td = {
        "synchronization": {"dynamicRegistration": False, "didSave": True,
                            "willSave": False, "willSaveWaitUntil": False},
        "publishDiagnostics": {"relatedInformation": True, "versionSupport": True,
                               "codeDescriptionSupport": True, "dataSupport": True,
                               "tagSupport": {"valueSet": [1, 2]}},
        "codeAction": {
            "dynamicRegistration": True, "isPreferredSupport": True,
            "dataSupport": True, "resolveSupport": {"properties": ["edit"]},
            "codeActionLiteralSupport": {"codeActionKind": {"valueSet": [
                "", "quickfix", "refactor", "refactor.extract", "refactor.inline",
                "refactor.rewrite", "source", "source.organizeImports", "source.fixAll"]}},
        },
        "hover": {"dynamicRegistration": True, "contentFormat": ["markdown", "plaintext"]},
    }
    if pull_cap:
        td["diagnostic"] = {"dynamicRegistration": True, "relatedDocumentSupport": False}
    return {
        "workspace": {"configuration": True, "workspaceFolders": True,
                      "didChangeConfiguration": {"dynamicRegistration": True},
                      # like VS Code: a pull client can be asked to re-pull
                      "diagnostics": {"refreshSupport": pull_cap}},
        "textDocument": td,
        "window": {"workDoneProgress": True},
        "general": {"positionEncodings": ["utf-16"]},
    }


class Session:
    def __init__(self, args, run_index):
        self.a = args
        self.run_index = run_index
        self.r = {"run": run_index, "errors": []}
        self.path = os.path.abspath(args.file)
        self.uri = path_to_uri(self.path)
        self.root = os.path.abspath(args.root or os.path.dirname(self.path))
        self.version = 1
        self.mode = None
        self.sync_kind = 2
        self.on_spawn = None  # optional callback(pid), e.g. to attach a profiler
        self.sampler = None

    def err(self, phase, e):
        self.r["errors"].append(f"{phase}: {e}")

    # -- diagnostics helpers --------------------------------------------
    def _is_pub(self, uri, min_version):
        def pred(msg):
            if msg.get("method") != "textDocument/publishDiagnostics":
                return False
            p = msg.get("params") or {}
            if p.get("uri") != uri:
                return False
            v = p.get("version")
            if v is not None:
                self.r["publish_has_version"] = True
                if min_version is not None and v < min_version:
                    return False
            return True
        return pred

    def diagnostics_after(self, c, t0, start_idx, uri, version, timeout):
        """Returns (latency_s, diagnostics list). push: wait publish; pull: request."""
        if self.mode == "pull":
            rid = c.send_request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
            t, msg = c.wait_response(rid, timeout)
            if "error" in msg:
                raise RuntimeError(f"diagnostic request error: {msg['error']}")
            res = msg.get("result") or {}
            return t - t0, res.get("items", [])
        _, t, msg = c.wait_note(self._is_pub(uri, version), start_idx, timeout)
        return t - t0, msg["params"].get("diagnostics", [])

    # -- the session ----------------------------------------------------
    def run(self):
        a = self.a
        text = Path(self.path).read_text()
        doc = Doc(text)
        rng = random.Random(a.seed + 1000 * self.run_index)
        c = None
        sampler = None
        try:
            c = LspClient(a.cmd, cwd=self.root, config_reply=a.config_reply,
                          root_uri=path_to_uri(self.root), stderr_log=a.stderr_log)
            self.r["pid"] = c.pid
            sampler = RssSampler(c.pid)
            self.sampler = sampler
            sampler.start()
            if self.on_spawn is not None:
                self.on_spawn(c.pid)
            self._phases(c, doc, rng)
        except (ServerExited, WaitTimeout, RuntimeError) as e:
            self.err("session", e)
        finally:
            if c is not None:
                if sampler:
                    self.r["cpu_s"] = round(sampler.cpu_s(), 3)
                    if "cpu_at_init_s" in self.r:
                        self.r["cpu_after_init_s"] = round(self.r["cpu_s"] - self.r["cpu_at_init_s"], 3)
                    sampler.stop()
                    self.r["peak_rss_tree_mb"] = round(sampler.tree_hwm_kb / 1024, 1)
                    self.r["peak_rss_main_mb"] = round(sampler.main_hwm_kb / 1024, 1)
                    self.r["max_processes"] = sampler.max_procs
                self._shutdown(c)
                self.r["server_requests"] = dict(c.server_requests)
                self.r["notifications"] = dict(collections.Counter(
                    m.get("method") for _, m in c.notes))
                if c.protocol_errors:
                    self.r["protocol_errors"] = c.protocol_errors
                self.r["stderr_tail"] = list(c.stderr_tail)[-8:]
                c.close_pipes()
        return self.r

    def _phases(self, c, doc, rng):
        a, r = self.a, self.r
        # (1) startup
        init = {
            "processId": os.getpid(),
            "clientInfo": {"name": "lspbench", "version": VERSION},
            "rootUri": path_to_uri(self.root), "rootPath": self.root,
            "workspaceFolders": [{"uri": path_to_uri(self.root), "name": os.path.basename(self.root)}],
            "capabilities": client_capabilities(pull_cap=not a.push),
            "trace": "off",
        }
        if a.init_options:
            init["initializationOptions"] = json.loads(a.init_options)
        try:
            rid = c.send_request("initialize", init)
            t, msg = c.wait_response(rid, a.timeout)
        except WaitTimeout as e:
            r["startup_ms"] = None
            raise WaitTimeout(f"initialize: {e}")
        r["startup_ms"] = ms(t - c.t_spawn)
        if self.sampler is not None:
            r["cpu_at_init_s"] = round(self.sampler.cpu_s(), 3)
        if "error" in msg:
            raise RuntimeError(f"initialize error {msg['error']}")
        res = msg.get("result") or {}
        caps = res.get("capabilities", {})
        r["server_info"] = res.get("serverInfo")
        sync = caps.get("textDocumentSync")
        self.sync_kind = sync.get("change", 1) if isinstance(sync, dict) else (sync if sync is not None else 1)
        r["caps"] = {"textDocumentSync.change": self.sync_kind,
                     "diagnosticProvider": bool(caps.get("diagnosticProvider")),
                     "hoverProvider": bool(caps.get("hoverProvider")),
                     "codeActionProvider": bool(caps.get("codeActionProvider"))}
        if a.pull:
            self.mode = "pull"
        elif a.push:
            self.mode = "push"
        else:
            self.mode = "pull" if caps.get("diagnosticProvider") else "push"
        r["mode"] = self.mode
        c.notify("initialized", {})
        if a.settings:
            c.notify("workspace/didChangeConfiguration", {"settings": json.loads(a.settings)})

        # (2) didOpen -> diagnostics
        idx = c.note_count()
        t0 = now()
        c.notify("textDocument/didOpen", {"textDocument": {
            "uri": self.uri, "languageId": "python", "version": self.version, "text": doc.text}})
        last_diags = []
        try:
            dt, last_diags = self.diagnostics_after(c, t0, idx, self.uri, self.version, a.timeout)
            r["open_ms"] = ms(dt)
            r["open_diag_count"] = len(last_diags)
            r["open_diags"] = diag_keys(last_diags)
        except WaitTimeout as e:
            r["open_ms"] = None
            r["open_status"] = str(e)

        # (3) edits
        script = EditScript(doc, a.seed + self.run_index)
        edits = []
        r["edits"] = edits  # filled in place: kept if the server dies mid-phase
        consecutive = 0
        for i in range(a.edits):
            if a.max_consecutive_timeouts and consecutive >= a.max_consecutive_timeouts:
                edits.append({"op": None, "ms": None,
                              "status": f"skipped after {consecutive} consecutive timeouts"})
                continue
            if a.gap:
                time.sleep(a.gap)
            op, rng_, new = script.next(i)
            self.version += 1
            if self.sync_kind == 2:
                changes = [{"range": rng_, "text": new}]
            else:
                changes = [{"text": doc.text}]
            idx = c.note_count()
            t0 = now()
            c.notify("textDocument/didChange", {
                "textDocument": {"uri": self.uri, "version": self.version},
                "contentChanges": changes})
            e = {"op": op, "version": self.version, "line": rng_["start"]["line"]}
            try:
                dt, d = self.diagnostics_after(c, t0, idx, self.uri, self.version, a.edit_timeout)
                e["ms"] = ms(dt)
                e["n_diags"] = len(d)
                e["diags"] = diag_keys(d)
                last_diags = d
                consecutive = 0
            except WaitTimeout as ex:
                e["ms"] = None
                e["status"] = str(ex)
                consecutive += 1
            edits.append(e)

        # (5) hover, burst, then (4) codeAction (last: some servers' code actions are
        # slow enough to stall everything queued behind them).  A request phase stops
        # at its first timeout (the server is stalled; later requests would only queue).
        positions = hover_positions(doc, rng, a.requests)
        hv = []
        r["hover"] = hv
        for ln, col in positions:
            if hv and hv[-1].get("ms") is None and "status" in hv[-1]:
                hv.append({"ms": None, "status": "skipped after timeout"})
                continue
            item = {}
            try:
                dt, msg = c.request("textDocument/hover", {
                    "textDocument": {"uri": self.uri}, "position": doc.pos(ln, col)}, a.edit_timeout)
                item["ms"] = ms(dt)
                if "error" in msg:
                    item["error"] = msg["error"].get("message")
                else:
                    item["non_null"] = msg.get("result") is not None
            except WaitTimeout as ex:
                item["ms"], item["status"] = None, str(ex)
            hv.append(item)
        r["hover"] = hv

        if a.burst:
            r["burst"], burst_diags = self._burst(c, doc, rng)
            if burst_diags is not None:
                last_diags = burst_diags

        positions = hover_positions(doc, rng, a.requests)
        ca = []
        r["code_action"] = ca
        for k in range(a.requests):
            if ca and ca[-1].get("ms") is None and "status" in ca[-1]:
                ca.append({"ms": None, "status": "skipped after timeout"})
                continue
            if last_diags:
                dg = last_diags[k % len(last_diags)]
                rg, ctx = dg["range"], [dg]
            else:
                ln, col = positions[k]
                p = doc.pos(ln, col)
                rg, ctx = {"start": p, "end": p}, []
            item = {"with_diagnostic": bool(ctx)}
            try:
                dt, msg = c.request("textDocument/codeAction", {
                    "textDocument": {"uri": self.uri}, "range": rg,
                    "context": {"diagnostics": ctx, "triggerKind": 1}}, a.edit_timeout)
                item["ms"] = ms(dt)
                if "error" in msg:
                    item["error"] = msg["error"].get("message")
                else:
                    item["n_actions"] = len(msg.get("result") or [])
            except WaitTimeout as ex:
                item["ms"], item["status"] = None, str(ex)
            ca.append(item)
        r["code_action"] = ca

    def _burst(self, c, doc, rng):
        a = self.a
        n = a.burst_n
        stmts = statement_lines(doc.text)
        ln = rng.choice(stmts)
        indent = re.match(r"\s*", doc.lines[ln]).group()
        typed = "zz_burst_value = zz_undefined_"
        letters = "abcdefghijklmnopqrstuvwxyz"
        while len(typed) < n - 1:
            typed += letters[(len(typed)) % 26]
        typed = typed[:max(0, n - 1)]
        out = {"n_changes": n, "line": ln, "final_line": indent + typed}
        idx0 = c.note_count()
        t_first = now()
        # change 1: new empty line; changes 2..n: one char each
        for k in range(n):
            if k == 0:
                p = doc.pos(ln, 0)
                rg, new = {"start": p, "end": p}, indent + "\n"
                doc.apply(ln, 0, ln, 0, new)
            else:
                col = len(indent) + k - 1
                p = doc.pos(ln, col)
                rg, new = {"start": p, "end": p}, typed[k - 1]
                doc.apply(ln, col, ln, col, new)
            self.version += 1
            changes = [{"range": rg, "text": new}] if self.sync_kind == 2 else [{"text": doc.text}]
            c.notify("textDocument/didChange", {
                "textDocument": {"uri": self.uri, "version": self.version},
                "contentChanges": changes})
        t_last = now()
        final_v = self.version
        out["send_ms"] = ms(t_last - t_first)
        final_diags = None
        if self.mode == "pull":
            try:
                _dt, msg = c.request("textDocument/diagnostic", {"textDocument": {"uri": self.uri}}, a.timeout)
                out["final_ms"] = ms(now() - t_last)
                final_diags = (msg.get("result") or {}).get("items", [])
                out["final_by"] = "pull after last change"
            except WaitTimeout as e:
                out["final_ms"], out["status"] = None, str(e)
        else:
            pred_any = self._is_pub(self.uri, None)
            # first publish after the last change was sent
            first = None
            with c._cv:
                notes = list(c.notes[idx0:])
            for t, m in notes:
                if pred_any(m) and t >= t_last:
                    first = t
                    break
            try:
                _i, t, msg = c.wait_note(self._is_pub(self.uri, final_v), idx0, a.timeout)
                v = msg["params"].get("version")
                if v is not None:
                    out["final_ms"] = ms(t - t_last)
                    final_diags = msg["params"].get("diagnostics", [])
                    out["final_version_matched"] = v == final_v
                    out["final_by"] = "version"
                # unversioned: wait for quiet, take the last publish
                deadline = now() + a.timeout
                while now() < deadline:
                    cnt = c.note_count()
                    time.sleep(a.quiet)
                    if c.note_count() == cnt:
                        break
                with c._cv:
                    notes = list(c.notes[idx0:])
                pubs = [(t, m) for t, m in notes if pred_any(m)]
                out["publishes"] = len(pubs)
                if v is None and pubs:
                    t, m = pubs[-1]
                    out["final_ms"] = ms(t - t_last)
                    final_diags = m["params"].get("diagnostics", [])
                    out["final_is_last_after_quiet"] = True
                    out["final_by"] = "last publish after quiet (unversioned)"
                if first is None:
                    first = next((t for t, m in pubs if t >= t_last), None)
                out["first_after_last_ms"] = ms(first - t_last) if first else None
            except WaitTimeout as e:
                out["final_ms"], out["status"] = None, str(e)
        # stale check: open the final text as a second document and compare
        if final_diags is not None:
            ref_path = os.path.join(os.path.dirname(self.path), "_lspbench_ref_" + os.path.basename(self.path))
            ref_uri = path_to_uri(ref_path)
            idx = c.note_count()
            t0 = now()
            c.notify("textDocument/didOpen", {"textDocument": {
                "uri": ref_uri, "languageId": "python", "version": 1, "text": doc.text}})
            try:
                _, ref = self.diagnostics_after(c, t0, idx, ref_uri, 1, a.timeout)
                out["final_matches_reference"] = norm_diags(ref) == norm_diags(final_diags)
                out["final_n_diags"] = len(final_diags)
                out["final_mentions_full_name"] = any(
                    typed.split(" = ")[-1] in (d.get("message") or "") for d in final_diags) \
                    if " = " in typed else None
            except WaitTimeout as e:
                out["final_matches_reference"] = None
                out["reference_status"] = str(e)
            c.notify("textDocument/didClose", {"textDocument": {"uri": ref_uri}})
        if final_diags is not None:
            out["final_diags"] = diag_keys(final_diags)
        return out, final_diags

    def _shutdown(self, c):
        a, r = self.a, self.r
        sd = {}
        if not c.exited and c.proc.poll() is None:
            try:
                dt, _msg = c.request("shutdown", None, a.shutdown_timeout)
                sd["shutdown_ms"] = ms(dt)
                c.notify("exit", None)
            except (WaitTimeout, ServerExited) as e:
                sd["shutdown_status"] = str(e)
                try:
                    c.notify("exit", None)
                except ServerExited:
                    pass
            t0 = now()
            try:
                rc = c.proc.wait(a.shutdown_timeout)
                sd["exit_ms"] = ms(now() - t0)
                sd["exit_code"] = rc
            except subprocess.TimeoutExpired:
                c.kill_tree()
                sd["exit_code"] = c.proc.poll()
                sd["killed"] = True
        else:
            try:
                sd["exit_code"] = c.proc.wait(2)
            except subprocess.TimeoutExpired:
                c.kill_tree()
                sd["killed"] = True
            sd["exited_early"] = True
        # make sure no descendants survive (by PID, ours only)
        leftovers = [p for p in process_tree(c.pid) if p != c.pid and _status_kb(p, "VmRSS") is not None]
        if leftovers:
            sd["leftover_children_killed"] = leftovers
            for p in leftovers:
                try:
                    os.kill(p, 9)
                except (ProcessLookupError, PermissionError):
                    pass
        sd["clean"] = (sd.get("exit_code") == 0 and "shutdown_ms" in sd and not sd.get("killed"))
        r["shutdown"] = sd


# --------------------------------------------------------------------------
# aggregation / report
# --------------------------------------------------------------------------

def summarize(runs, timeout, edit_timeout):
    def col(key):
        return [r.get(key) for r in runs]

    s = {}
    s["startup_ms"] = stats(col("startup_ms"))
    s["open_diag_ms"] = stats(col("open_ms"))
    s["open_diag_ms"]["none"] = sum(1 for r in runs if r.get("open_ms") is None and "startup_ms" in r)
    ed = [e for r in runs for e in r.get("edits", [])]
    s["edit_diag_ms"] = stats([e["ms"] for e in ed])
    s["edit_diag_ms"]["none"] = sum(1 for e in ed if e["ms"] is None
                                    and not str(e.get("status", "")).startswith("skipped"))
    s["edit_diag_ms"]["skipped"] = sum(1 for e in ed if str(e.get("status", "")).startswith("skipped"))
    for key in ("code_action", "hover"):
        items = [x for r in runs for x in r.get(key, [])]
        s[key + "_ms"] = stats([x.get("ms") for x in items])
        s[key + "_ms"]["none"] = sum(1 for x in items if x.get("ms") is None
                                     and not str(x.get("status", "")).startswith("skipped"))
        s[key + "_ms"]["skipped"] = sum(1 for x in items if str(x.get("status", "")).startswith("skipped"))
        s[key + "_ms"]["with_diagnostic"] = sum(1 for x in items if x.get("with_diagnostic"))
        s[key + "_ms"]["errors"] = sum(1 for x in items if "error" in x)
    s["hover_ms"]["non_null"] = sum(1 for r in runs for x in r.get("hover", []) if x.get("non_null"))
    s["code_action_ms"]["actions_total"] = sum(x.get("n_actions", 0) for r in runs for x in r.get("code_action", []))
    s["peak_rss_tree_mb"] = stats(col("peak_rss_tree_mb"))
    sds = [r.get("shutdown", {}) for r in runs]
    s["shutdown_ms"] = stats([d.get("shutdown_ms") for d in sds])
    s["clean_shutdowns"] = f"{sum(1 for d in sds if d.get('clean'))}/{len(runs)}"
    bursts = [r["burst"] for r in runs if "burst" in r]
    if bursts:
        s["burst_final_ms"] = stats([b.get("final_ms") for b in bursts])
        s["burst_first_after_last_ms"] = stats([b.get("first_after_last_ms") for b in bursts])
        s["burst_publishes"] = [b.get("publishes") for b in bursts]
        s["burst_final_matches_reference"] = [b.get("final_matches_reference") for b in bursts]
    s["errors"] = [e for r in runs for e in r["errors"]]
    return s


def fmt_stat(st, extra=""):
    if not st or st.get("n", 0) == 0:
        return "n=0" + extra
    return (f"{st['min']:9.1f} {st['median']:9.1f} {st['p95']:9.1f} {st['max']:9.1f}   n={st['n']}" + extra)


def print_summary(res, out=sys.stdout):
    s = res["summary"]
    w = out.write
    w(f"\nlspbench {VERSION}: {res['server']}  file={res['file']} ({res['file_lines']} lines)"
      f"  mode={res['modes']}  runs={len(res['runs'])}  loadavg {res['loadavg_start']} -> {res['loadavg_end']}\n")
    w(f"{'metric':28s} {'min':>9s} {'median':>9s} {'p95':>9s} {'max':>9s}   (ms)\n")
    for key, label in (("startup_ms", "startup (spawn->init resp)"),
                       ("open_diag_ms", "didOpen -> diagnostics"),
                       ("edit_diag_ms", "didChange -> diagnostics"),
                       ("code_action_ms", "codeAction round-trip"),
                       ("hover_ms", "hover round-trip"),
                       ("shutdown_ms", "shutdown round-trip")):
        st = s.get(key, {})
        extra = ""
        if st.get("none"):
            extra += f"  none/timeout={st['none']}"
        if st.get("skipped"):
            extra += f"  skipped_after_timeout={st['skipped']}"
        if st.get("errors"):
            extra += f"  errors={st['errors']}"
        w(f"{label:28s} {fmt_stat(st, extra)}\n")
    if "burst_final_ms" in s:
        w(f"{'burst: last change -> final':28s} {fmt_stat(s['burst_final_ms'])}\n")
        w(f"{'burst: first pub after last':28s} {fmt_stat(s['burst_first_after_last_ms'])}\n")
        w(f"burst publishes per 50 changes: {s['burst_publishes']}  final==reference: "
          f"{s['burst_final_matches_reference']}\n")
    st = s["peak_rss_tree_mb"]
    if st.get("n"):
        w(f"{'peak RSS tree (MB)':28s} {st['min']:9.1f} {st['median']:9.1f} {st['p95']:9.1f} {st['max']:9.1f}\n")
    w(f"clean shutdowns: {s['clean_shutdowns']}\n")
    for e in s["errors"]:
        w(f"ERROR {e}\n")


def run_parser():
    p = argparse.ArgumentParser(prog="lspbench.py [run]", description="benchmark an LSP server over stdio")
    p.add_argument("--server", required=True, help='server command line, e.g. "ruff server"')
    p.add_argument("--file", required=True)
    p.add_argument("--root", help="workspace root (default: the file's directory)")
    p.add_argument("--edits", type=int, default=20)
    p.add_argument("--repeat", type=int, default=1, help="fresh server sessions")
    p.add_argument("--requests", type=int, default=10, help="codeAction and hover requests each")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--pull", action="store_true", help="force textDocument/diagnostic")
    g.add_argument("--push", action="store_true",
                   help="force publishDiagnostics (pull capability not advertised)")
    p.add_argument("--burst", action="store_true", help="also run the 50-change typing burst")
    p.add_argument("--burst-n", type=int, default=50)
    p.add_argument("--timeout", type=float, default=30.0, help="startup/open/burst wait (s)")
    p.add_argument("--edit-timeout", type=float, default=10.0, help="per edit / request wait (s)")
    p.add_argument("--shutdown-timeout", type=float, default=5.0)
    p.add_argument("--max-consecutive-timeouts", type=int, default=3,
                   help="skip the remaining edits after this many edit timeouts in a row (0: never)")
    p.add_argument("--quiet", type=float, default=1.0,
                   help="burst: quiet period that ends publish counting (s)")
    p.add_argument("--gap", type=float, default=0.05, help="pause before each edit (s)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--init-options", help="JSON initializationOptions")
    p.add_argument("--settings", help="JSON sent via workspace/didChangeConfiguration")
    p.add_argument("--config-reply", choices=("null", "empty"), default="null",
                   help="workspace/configuration answer items: null or {}")
    p.add_argument("--stderr-log", help="append server stderr here")
    p.add_argument("--label")
    p.add_argument("--json", help="write results JSON here")
    p.add_argument("--quiet-output", action="store_true")
    return p


def parse_run_args(argv):
    """Parse `run` options (also used by latency.py to drive sessions)."""
    a = run_parser().parse_args(argv)
    a.cmd = shlex.split(a.server)
    return a


def cmd_run(argv):
    a = parse_run_args(argv)
    res = bench(a)
    if not a.quiet_output:
        print_summary(res)
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1))
    return res


def bench(a):
    text = Path(a.file).read_text()
    res = {
        "tool": "lspbench", "version": VERSION, "label": a.label, "server": a.server,
        "file": a.file, "file_lines": text.count("\n") + (0 if text.endswith("\n") else 1),
        "file_bytes": len(text.encode()),
        "params": {k: getattr(a, k) for k in ("edits", "repeat", "requests", "pull", "push", "burst",
                                              "burst_n", "timeout", "edit_timeout", "gap", "seed",
                                              "quiet", "config_reply", "max_consecutive_timeouts")},
        "host": {"nproc": os.cpu_count(), "python": platform.python_version(),
                 "platform": platform.platform()},
        "loadavg_start": loadavg(), "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    runs = []
    for k in range(a.repeat):
        runs.append(Session(a, k).run())
    res["loadavg_end"] = loadavg()
    res["runs"] = runs
    res["modes"] = sorted({r.get("mode") for r in runs if r.get("mode")})
    res["summary"] = summarize(runs, a.timeout, a.edit_timeout)
    return res


# --------------------------------------------------------------------------
# fake server for self-tests
# --------------------------------------------------------------------------

def cmd_fake(argv):
    p = argparse.ArgumentParser(prog="lspbench.py fake")
    p.add_argument("--mode", default="ok",
                   choices=["ok", "hang", "hang-after-init", "crash", "crash-on-open", "silent"])
    p.add_argument("--delay", type=float, default=0.0, help="seconds before each publish")
    a = p.parse_args(argv)
    if a.mode == "hang":
        while True:
            time.sleep(3600)
    if a.mode == "crash":
        sys.stderr.write("fake: crashing at startup\n")
        sys.exit(3)
    inp, outp = sys.stdin.buffer, sys.stdout.buffer
    docs = {}
    next_id = [1000]

    def send(m):
        b = json.dumps(m).encode()
        outp.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
        outp.flush()

    def read():
        h = {}
        while True:
            line = inp.readline()
            if not line:
                sys.exit(0)
            line = line.strip()
            if not line:
                break
            k, _, v = line.decode().partition(":")
            h[k.lower()] = v.strip()
        return json.loads(inp.read(int(h["content-length"])))

    def server_request(method, params):
        next_id[0] += 1
        send({"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params})
        while True:  # block until our request is answered (stalls if the client never replies)
            m = read()
            if m.get("id") == next_id[0] and "method" not in m:
                return m
            pending.append(m)

    def publish(uri):
        if a.mode == "silent":
            return
        time.sleep(a.delay)
        lines = docs[uri]["text"].split("\n")
        diags = [{"range": {"start": {"line": i, "character": 0},
                            "end": {"line": i, "character": len(l)}},
                  "severity": 2, "source": "fake", "message": f"marker: {l.strip()}"}
                 for i, l in enumerate(lines) if "zz_" in l or "bench_tmp" in l]
        send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
              "params": {"uri": uri, "version": docs[uri]["version"], "diagnostics": diags}})

    pending = []
    hung = False
    while True:
        m = pending.pop(0) if pending else read()
        meth, mid = m.get("method"), m.get("id")
        if hung:
            if meth == "exit":
                sys.exit(0)
            continue
        if meth == "initialize":
            send({"jsonrpc": "2.0", "id": mid, "result": {
                "capabilities": {"textDocumentSync": 2, "hoverProvider": True,
                                 "codeActionProvider": True},
                "serverInfo": {"name": "lspbench-fake", "version": a.mode}}})
            if a.mode == "hang-after-init":
                hung = True
        elif meth == "initialized":
            server_request("window/workDoneProgress/create", {"token": "t"})
            server_request("workspace/configuration", {"items": [{"section": "fake"}]})
            server_request("client/registerCapability", {"registrations": []})
        elif meth == "textDocument/didOpen":
            if a.mode == "crash-on-open":
                sys.stderr.write("fake: crashing on didOpen\n")
                sys.exit(3)
            td = m["params"]["textDocument"]
            docs[td["uri"]] = {"text": td["text"], "version": td["version"]}
            publish(td["uri"])
        elif meth == "textDocument/didChange":
            td = m["params"]["textDocument"]
            d = docs[td["uri"]]
            doc = Doc(d["text"])
            for ch in m["params"]["contentChanges"]:
                if "range" in ch:
                    s, e = ch["range"]["start"], ch["range"]["end"]  # ASCII: utf16 == str cols
                    doc.apply(s["line"], s["character"], e["line"], e["character"], ch["text"])
                else:
                    doc = Doc(ch["text"])
            d["text"], d["version"] = doc.text, td["version"]
            publish(td["uri"])
        elif meth == "textDocument/didClose":
            docs.pop(m["params"]["textDocument"]["uri"], None)
        elif meth == "textDocument/hover":
            send({"jsonrpc": "2.0", "id": mid, "result": {"contents": "fake hover"}})
        elif meth == "textDocument/codeAction":
            send({"jsonrpc": "2.0", "id": mid, "result": []})
        elif meth == "shutdown":
            send({"jsonrpc": "2.0", "id": mid, "result": None})
        elif meth == "exit":
            sys.exit(0)
        elif mid is not None:
            send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": meth}})


def cmd_selftest(argv):
    import tempfile
    tmp = tempfile.mkdtemp(prefix="lspbench_selftest_")
    f = os.path.join(tmp, "k.py")
    text, _ = generate(300, 0)
    Path(f).write_text(text)
    me = shlex.quote(os.path.abspath(__file__))
    py = shlex.quote(sys.executable)

    def go(mode, extra=(), delay=0.0):
        argv = ["--server", f"{py} {me} fake --mode {mode} --delay {delay}", "--file", f,
                "--edits", "4", "--requests", "2", "--timeout", "2", "--edit-timeout", "1",
                "--shutdown-timeout", "1", "--quiet", "0.3", "--quiet-output", *extra]
        t0 = now()
        res = cmd_run(argv)
        return res, now() - t0

    results = []

    def check(name, cond, detail=""):
        results.append((name, bool(cond)))
        print(f"{'PASS' if cond else 'FAIL'}  {name}  {detail}")

    res, wall = go("ok", [], delay=0.2)
    r0 = res["runs"][0]
    check("ok: open latency ~= injected 200ms", 195 <= (r0.get("open_ms") or 0) <= 400,
          f"open_ms={r0.get('open_ms')}")
    check("ok: every edit got versioned diagnostics",
          all(e["ms"] is not None for e in r0["edits"]), str([e["ms"] for e in r0["edits"]]))
    check("ok: server->client requests answered",
          r0["server_requests"].get("workspace/configuration") == 1, str(r0["server_requests"]))
    check("ok: clean shutdown", r0["shutdown"]["clean"], str(r0["shutdown"]))
    res, wall = go("ok", ["--burst"], delay=0.01)
    b = res["runs"][0].get("burst", {})
    check("ok: burst final version matched, final matches reference, 50 publishes counted",
          b.get("final_version_matched") and b.get("final_matches_reference") is True
          and b.get("publishes") == 50, str(b))
    res, wall = go("ok", ["--burst"], delay=0.2)
    b = res["runs"][0].get("burst", {})
    check("slow (0.2s/publish, 50 queued): burst reported 'none in 2s', no hang",
          b.get("final_ms") is None and "none in 2s" in b.get("status", "") and wall < 20,
          f"{b.get('status')} wall={wall:.1f}s")
    res, wall = go("silent")
    r0 = res["runs"][0]
    check("silent: open reported as 'none in 2s', no hang",
          r0.get("open_ms") is None and "none in 2s" in r0.get("open_status", "") and wall < 15,
          f"{r0.get('open_status')} wall={wall:.1f}s")
    res, wall = go("hang")
    r0 = res["runs"][0]
    check("hang: startup timeout reported, server killed",
          r0.get("startup_ms") is None and r0["shutdown"].get("killed") and wall < 15,
          f"errors={r0['errors']} shutdown={r0['shutdown']} wall={wall:.1f}s")
    res, wall = go("hang-after-init")
    r0 = res["runs"][0]
    check("hang-after-init: open/hover/shutdown timeouts reported, process gone",
          r0.get("open_ms") is None and "shutdown_status" in r0["shutdown"]
          and not r0["shutdown"]["clean"] and r0["shutdown"].get("exit_code") is not None
          and wall < 30,
          f"open={r0.get('open_status')} shutdown={r0['shutdown']} wall={wall:.1f}s")
    res, wall = go("crash")
    r0 = res["runs"][0]
    check("crash: exit reported with rc", any("rc=3" in e for e in r0["errors"]) and wall < 10,
          f"errors={r0['errors']} wall={wall:.1f}s")
    res, wall = go("crash-on-open")
    r0 = res["runs"][0]
    check("crash-on-open: exit reported", any("rc=3" in e for e in r0["errors"])
          and r0["shutdown"].get("exited_early") and wall < 10,
          f"errors={r0['errors']} wall={wall:.1f}s")
    failed = [n for n, ok in results if not ok]
    print(f"\n{len(results) - len(failed)}/{len(results)} passed")
    return 1 if failed else 0


def main():
    argv = sys.argv[1:]
    if argv and argv[0] == "gen":
        return gen_main(argv[1:])
    if argv and argv[0] == "fake":
        return cmd_fake(argv[1:])
    if argv and argv[0] == "selftest":
        return cmd_selftest(argv[1:])
    if argv and argv[0] == "run":
        argv = argv[1:]
    res = cmd_run(argv)
    return 0 if not res["summary"]["errors"] else 2


if __name__ == "__main__":
    sys.exit(main() or 0)
