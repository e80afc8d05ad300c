"""JAX is the oracle for the DMA / semaphore protocol corpus (``tests/protocol/``).

Each ``tests/protocol/pal30N_*.py`` module is a small kernel whose ``jax_check()`` runs
it on concrete arrays under JAX's TPU interpreter (``interpret=pltpu.InterpretParams(...)``).
A line carrying ``# expect: PAL30N`` is where the static checker should report;
``*_bug`` modules have at least one, ``*_ok`` modules none.  Here:

* without JAX: the corpus is well formed (names, twins, expectations, enough cases);
* with JAX (``jax_verdicts.py`` in two driver processes): the interpreter rejects exactly
  the ``_bug`` modules, each in the way documented for its rule (``VERDICT``: an
  exception with JAX's words, a semaphore left non-zero at kernel exit, a wait that
  blocks forever, a revisited output block or a detected race), and runs every ``_ok``
  module clean (no exception, no leftover semaphore, no race, no hang).

The JAX tests are skipped when JAX is not installed (``pip install -e '.[oracle]'``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from corpus_marks import expectations

REPO = Path(__file__).resolve().parents[2]
PROTOCOL = REPO / "tests" / "protocol"
RUNNER = PROTOCOL / "jax_verdicts.py"
MODULES = sorted(PROTOCOL.glob("pal*.py"))
CODES = ("PAL301", "PAL302", "PAL303", "PAL304", "PAL305", "PAL306")

# What JAX 0.10.2's TPU interpreter does with each rule's mistake, on a CPU. Each entry:
# (status, exception type, regex on the message (or, for an assert, on its source line),
#  raised inside an interpreter callback?) -- any one alternative may match.
VERDICT: dict[str, list[tuple[str, str | None, str | None, bool | None]]] = {
    # Raised while tracing (abstract eval), before the interpreter runs anything.
    "PAL301": [
        ("error", "ValueError",
         r"Must (signal|wait) semaphores of the following types: \{.*\}\. Got dma_sem\.$", False),
        ("error", "ValueError",
         (r"dma_wait requires a DMA semaphore, but got a regular semaphore\. "
          r"Use pl\.semaphore_wait\(\) instead\.$"), False),
    ],
    # Printed (not raised) at kernel exit, with dma_execution_mode="eager".
    "PAL302": [("leftover", None, None, None)],
    # The interpreter's semaphore wait polls forever: the driver sees it blocked in dma_wait.
    "PAL303": [("hang", None, None, None)],
    # Printed at kernel exit, in either DMA execution mode.
    "PAL304": [("leftover", None, None, None)],
    # Raised when the interpreter stores the DMA's data into the destination buffer.
    "PAL305": [
        ("error", "ValueError",
         r"could not broadcast input array from shape \(\d+(,\d+)*\) into shape \(\d+(,\d+)*\)$",
         True),
        ("error", "AssertionError", r"assert buff\.dtype == value\.dtype", True),
    ],
    # Raised by the interpreter's output bookkeeping, or (two simulated cores writing the
    # same output block) printed by its race detector.
    "PAL306": [
        ("error", "RuntimeError",
         (r"Revisited block \(.*\) of output \d+ in iteration \(.*\)\. The block was "
          r"previously visited in iterations \(.*\) through \(.*\) \.$"), True),
        ("race", None, None, None),
    ],
}
HANG_IN = "pallas/mosaic/interpret/interpret_pallas_call.py:dma_wait"

def _id(path: Path) -> str:
    return path.stem


def _code(path: Path) -> str:
    return path.stem.split("_")[0].upper()


# -- the corpus itself (no JAX needed) ------------------------------------------------

def test_corpus_is_big_enough():
    for code in CODES:
        bugs = [p for p in MODULES if _code(p) == code and p.stem.endswith("_bug")]
        oks = [p for p in MODULES if _code(p) == code and p.stem.endswith("_ok")]
        assert len(bugs) >= 2 and len(oks) >= 2, f"{code}: {len(bugs)} bug / {len(oks)} ok modules"


@pytest.mark.parametrize("path", MODULES, ids=_id)
def test_module_is_well_formed(path):
    assert path.stem.endswith(("_bug", "_ok")), f"{path.name}: name must end in _bug or _ok"
    assert _code(path) in CODES, f"{path.name}: not named for a protocol rule"
    text = path.read_text()
    assert "\ndef jax_check(" in text, f"{path.name}: no jax_check()"
    assert text.startswith('"""'), f"{path.name}: no header docstring"
    assert "interpret=pltpu.InterpretParams(" in text, f"{path.name}: not run by the TPU interpreter"
    if _code(path) == "PAL302":  # a never-waited DMA is only seen when DMAs run eagerly
        assert 'dma_execution_mode="eager"' in text, f"{path.name}: PAL302 needs eager DMAs"
    codes = {code for _, code in expectations(path)}
    if path.stem.endswith("_ok"):
        assert not codes, f"{path.name}: a correct module carries # expect: {sorted(codes)}"
        return
    assert codes == {_code(path)}, f"{path.name}: expects {sorted(codes)}, named for {_code(path)}"
    twin = path.with_name(path.stem[: -len("_bug")] + "_ok.py")
    assert twin.exists(), f"{path.name}: no correct twin {twin.name}"


def _runner():
    import importlib.util

    spec = importlib.util.spec_from_file_location("protocol_jax_verdicts", RUNNER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # imports no JAX: only the worker does
    return mod


SITE = "/venv/lib/python3.11/site-packages/jax/_src/pallas/mosaic/interpret"
IDLE = [
    "Thread 0x00007f0000000001 (most recent call first):",
    '  File "/usr/lib/python3.11/threading.py", line 324 in wait',
    f'  File "{SITE}/shared_memory.py", line 201 in wait',
    f'  File "{SITE}/interpret_pallas_call.py", line 1147 in dma_wait',
    f'  File "{SITE}/interpret_pallas_call.py", line 80 in wrapper',
    "",
    "Current thread 0x00007f0000000002 (most recent call first):",
    '  File "/x/jax_verdicts.py", line 200 in worker',
]
BUSY = IDLE[:1] + [  # a task (a DMA) executed from inside the wait loop: not idle
    f'  File "{SITE}/shared_memory.py", line 790 in store_buffer_content',
    f'  File "{SITE}/interpret_pallas_call.py", line 990 in execute_write',
] + IDLE[2:]


def test_hang_detector_reads_faulthandler_dumps():
    runner = _runner()
    assert runner._stuck_in_wait(IDLE) == HANG_IN
    assert runner._stuck_in_wait(BUSY) is None
    assert runner._stuck_in_wait(IDLE[6:]) is None


# -- JAX's verdicts -------------------------------------------------------------------

def _jax_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("jax") is not None


def _bugs(code: str) -> list[Path]:
    return [p for p in MODULES if _code(p) == code and p.stem.endswith("_bug")]


def _declared_mode(path: Path) -> str:
    return "eager" if 'dma_execution_mode="eager"' in path.read_text() else "on_wait"


def _other(mode: str) -> str:
    return "on_wait" if mode == "eager" else "eager"


# Reruns with every InterpretParams forced to another dma_execution_mode (MODULE.py@MODE):
# the PAL302 bugs under "on_wait", the PAL304 bugs under the mode they do not declare.
FORCED = ([f"{p}@on_wait" for p in _bugs("PAL302")]
          + [f"{p}@{_other(_declared_mode(p))}" for p in _bugs("PAL304")])


@pytest.fixture(scope="session")
def runs() -> dict[str, dict]:
    """{job: jax_verdicts.py record} for every module as written (job = its path) and the
    ``FORCED`` reruns, from two driver processes in parallel.

    Each driver runs the modules expected to hang (PAL303's bugs) last: the worker
    breaks a hang itself and goes on, but should it not, the driver's fallback kills it
    and the modules after a hang would cost a fresh worker."""
    if not _jax_available():
        pytest.skip("JAX is not installed: pip install -e '.[oracle]' (the protocol corpus "
                    "is checked against JAX's TPU interpreter)")
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    hangs = [str(p) for p in _bugs("PAL303")]
    rest = [str(p) for p in MODULES if str(p) not in hangs] + FORCED
    halves = [rest[0::2] + hangs[0::2], rest[1::2] + hangs[1::2]]
    procs = [
        subprocess.Popen([sys.executable, str(RUNNER), *half], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for half in halves if half
    ]
    out = {}
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"jax_verdicts.py exited {proc.returncode}:\n{stderr[-3000:]}"
        for line in stdout.splitlines():
            if line.startswith("{"):
                rec = json.loads(line)
                out[rec["job"]] = rec
    return out


@pytest.fixture(scope="session")
def verdicts(runs) -> dict[str, dict]:
    """{module stem: record} for each module as written."""
    return {rec["module"]: rec for job, rec in runs.items() if rec["dma_mode"] is None}


def _show(rec: dict) -> str:
    if rec["status"] == "error":
        where = f" in {rec['raised_in']}" + (f" ({rec['source']})" if rec["source"] else "")
        return f"{rec['exc_type']}: {rec['message']}{where}"
    if rec["status"] == "leftover":
        return f"semaphores left non-zero at kernel exit: {rec['semaphores']}"
    return f"{rec['status']}: {rec['message']}"


@pytest.mark.parametrize("path", MODULES, ids=_id)
def test_jax_rejects_exactly_the_bug_modules(verdicts, path):
    rec = verdicts.get(path.stem)
    assert rec is not None, f"{path.name}: jax_verdicts.py returned nothing for it"
    assert rec["status"] not in ("no_entry", "crash"), f"{path.name}: {_show(rec)}"
    if not path.stem.endswith("_bug"):
        assert rec["status"] == "ok", f"{path.name} is meant to be correct; JAX: {_show(rec)}"
        assert not rec["semaphores"] and not rec["races"], _show(rec)
        return
    code = _code(path)
    assert rec["status"] != "ok", f"{path.name} expects {code}; JAX ran it clean"
    for status, exc_type, words, wrapped in VERDICT[code]:
        if rec["status"] != status:
            continue
        if exc_type is not None and rec["exc_type"] != exc_type:
            continue
        text = rec["source"] if exc_type == "AssertionError" else rec["message"]
        if words is not None and not re.search(words, text or ""):
            continue
        if wrapped is not None and rec["wrapped"] != wrapped:
            continue
        break
    else:
        pytest.fail(f"{path.name} expects {code} ({[v[0] for v in VERDICT[code]]}); "
                    f"JAX: {_show(rec)}")
    if status == "leftover":
        assert all(s["count"] > 0 for s in rec["semaphores"]), rec["semaphores"]
    if status == "hang":
        assert rec["hang_in"] == HANG_IN, (
            f"{path.name}: the hang is not the interpreter blocked in a DMA wait: {rec}")
        assert "(broken by the runner)" in rec["message"], (
            f"{path.name}: the worker did not break the hang itself (driver fallback): {rec}")


@pytest.mark.parametrize(
    "path", [p for p in MODULES if _code(p) == "PAL301" and p.stem.endswith("_bug")], ids=_id)
def test_jax_points_at_the_expected_line(verdicts, path):
    """PAL301 is raised while tracing, on the call that gets the wrong kind of semaphore:
    the traceback's last line inside the module carries the expectation."""
    rec = verdicts[path.stem]
    lines = {line for line, _ in expectations(path)}
    assert rec["line"] in lines, (
        f"{path.name}: JAX raised at line {rec['line']}, expectations at {sorted(lines)}")



def _remote(path: Path) -> bool:
    return "make_async_remote_copy" in path.read_text()


def test_never_waited_dmas_need_eager_dmas(runs):
    """With the default ``dma_execution_mode="on_wait"`` a local DMA runs only when it is
    waited: one never waited never runs and leaves no count, so JAX says nothing (which
    is why the corpus's PAL302 modules run with ``"eager"``). A remote copy whose send is
    never waited is different: waiting its receive runs the whole copy, which signals the
    send semaphore too, so the count shows in both modes."""
    for path in _bugs("PAL302"):
        rec = runs[f"{path}@on_wait"]
        expected = "leftover" if _remote(path) else "ok"
        assert rec["status"] == expected, f"{path.name} under on_wait: {_show(rec)}"
    assert any(_remote(p) for p in _bugs("PAL302"))


def test_unmatched_signals_show_in_both_dma_modes(runs):
    modes = set()
    for path in _bugs("PAL304"):
        for job, mode in ((str(path), _declared_mode(path)),
                          (f"{path}@{_other(_declared_mode(path))}", _other(_declared_mode(path)))):
            rec = runs[job]
            assert rec["status"] == "leftover", f"{path.name} under {mode}: {_show(rec)}"
            modes.add(mode)
    assert modes == {"eager", "on_wait"}


def test_the_fixes_make_the_kernels_run_clean(tmp_path):
    """Every fix offered on the bug modules (PAL302's wait right after a local
    `copy.start()`, PAL301's copy `.wait()` for a `pl.semaphore_wait` and its
    redeclarations, ...), applied alone: where pallas-lsp then finds nothing, JAX's TPU
    interpreter runs the kernel clean (no exception, no count left, no hang)."""
    if not _jax_available():
        pytest.skip("JAX is not installed: pip install -e '.[oracle]'")
    from pallas_lsp.analysis.engine import analyze_source
    from pallas_lsp.analysis.fixes import apply_edits, fixes_for, split_lines

    fixed, titles = [], []
    for path in (p for p in MODULES if p.stem.endswith("_bug")):
        text = path.read_text()
        for finding in analyze_source(text, str(path)):
            for fix in fixes_for(finding, split_lines(text)):
                new = apply_edits(text, fix.edits)
                if fix.title.startswith("Suppress") or analyze_source(new, str(path)):
                    continue
                out = tmp_path / f"{path.stem.replace('_bug', '_fixed')}_{len(fixed)}.py"
                out.write_text(new)
                fixed.append(out)
                titles.append(fix.title)
    for start in ("Wait for the copy right after", "Declare it as"):
        assert any(t.startswith(start) for t in titles), f"no bug module gets a fix {start!r}: {titles}"
    proc = subprocess.run([sys.executable, str(RUNNER), *map(str, fixed)], env=dict(os.environ, JAX_PLATFORMS="cpu"),
                          capture_output=True, text=True, timeout=600, check=True)
    recs = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{") and '"status"' in line]
    assert len(recs) == len(fixed), proc.stderr[-2000:]
    for rec, title in zip(recs, titles):
        assert rec["status"] == "ok" and not rec["semaphores"], f"{rec['module']} ({title}): {_show(rec)}"
