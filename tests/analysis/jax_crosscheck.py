"""Cross-check the verdicts of the analysis unit tests against JAX itself.

Runs the `tests/analysis` suite with `helpers.analyze` recording every snippet and the
findings it got, then traces each snippet that has a one-argument `run(x)` (or a
decorated `kernel(x)`) entry point with JAX on CPU in interpret mode, and compares:

* JAX raises `... non-()-shaped semaphore` -> the analysis must report PAL001/PAL002;
* JAX traces without error -> the analysis must report no PAL001/PAL002.

Snippets that JAX rejects for another reason (no mesh for `axis_index`, modules that do
not exist, Mosaic GPU without absl, ...) are counted as "not traceable" and not compared.
Where JAX's verdict depends on a runtime flag (the snippets stay silent by design), the
default argument value is what is traced, so such a case can show up as a disagreement;
read those by hand.

Usage (needs jax; ~2-3 minutes on 2 cores):

    .venv/bin/python tests/analysis/jax_crosscheck.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import inspect
import json
import logging
import os
import signal
import sys
import tempfile
import traceback
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent


def record_snippets() -> list[dict]:
    """Run the suite, recording (snippet, findings) from every `helpers.analyze` call."""
    sys.path.insert(0, str(HERE.parent))
    import pytest

    from analysis import helpers

    recorded = []
    original = helpers.analyze

    def analyze(src, path=None, **options):
        fs = original(src, path, **options)
        recorded.append({"src": helpers.dedent(src),
                         "codes": [(f.span.line + 1, f.code) for f in fs]})
        return fs

    helpers.analyze = analyze
    try:
        pytest.main(["-q", "-p", "no:cacheprovider", str(HERE)])
    finally:
        helpers.analyze = original
    return recorded


def install_interpret_mode():
    """Make pallas_call / pl.kernel / core_map trace in interpret mode, with inputs and
    outputs in ANY memory (so DMAs are legal) unless the snippet says otherwise."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu

    any_spec = pl.BlockSpec(memory_space=pl.ANY)
    sem_spec = pl.BlockSpec(memory_space=pltpu.SEMAPHORE)
    real_call, real_kernel, real_core_map = pl.pallas_call, pl.kernel, pl.core_map

    def pallas_call(kernel, out_shape=None, **kw):
        kw["interpret"] = True

        def call(*args):
            k = dict(kw)
            if "grid_spec" not in k:
                k.setdefault("in_specs", [any_spec] * len(args))
                if "out_specs" not in k:
                    k["out_specs"] = jax.tree.map(
                        lambda s: any_spec if isinstance(s, jax.ShapeDtypeStruct) else sem_spec, out_shape)
            return real_call(kernel, out_shape=out_shape, **k)(*args)
        return call

    def kernel(body=None, **kw):
        kw["interpret"] = True
        return (lambda b: real_kernel(b, **kw)) if body is None else real_kernel(body, **kw)

    def core_map(mesh, **kw):
        kw["interpret"] = True
        return real_core_map(mesh, **kw)

    pl.pallas_call, pl.kernel, pl.core_map = pallas_call, kernel, core_map


class _Timeout(Exception):
    pass


def _alarm(*_):
    raise _Timeout()


def trace(src: str, filename: str):
    """('ok' | 'ERROR' | 'untraceable: why', lines of the snippet in the traceback)."""
    import jax
    import jax.numpy as jnp

    ns = {"__name__": Path(filename).stem, "__file__": filename}
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(60)
    try:
        exec(compile(src, filename, "exec"), ns)  # noqa: S102 - our own test snippets
        entry = next((ns[n] for n in ("run", "kernel") if callable(ns.get(n))), None)
        if entry is None:
            return "untraceable: no entry point", []
        try:
            required = [p for p in inspect.signature(entry).parameters.values()
                        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            required = [None]
        if len(required) != 1:
            return f"untraceable: entry takes {len(required)} arguments", []
        out = entry(jnp.zeros((8, 128), jnp.float32))
        if out is not None:
            jax.block_until_ready(out)
        return "ok", []
    except Exception as e:  # noqa: BLE001 - any failure is a verdict to classify
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        if "non-()-shaped semaphore" in msg:
            lines = sorted({fr.lineno for fr in traceback.extract_tb(e.__traceback__) if fr.filename == filename})
            return "ERROR", lines
        return f"untraceable: {type(e).__name__}: {msg[:100]}", []
    finally:
        signal.alarm(0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keep", help="folder to keep the snippet files and a JSON report in")
    args = ap.parse_args()
    snippets = record_snippets()
    install_interpret_mode()
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    folder = Path(args.keep or tempfile.mkdtemp(prefix="pallas-crosscheck-"))
    folder.mkdir(parents=True, exist_ok=True)
    seen, report = set(), []
    counts = {"agree": 0, "disagree": 0, "untraceable": 0}
    for i, s in enumerate(snippets):
        if s["src"] in seen:
            continue
        seen.add(s["src"])
        filename = str(folder / f"snippet_{i:03d}.py")
        Path(filename).write_text(s["src"], encoding="utf-8")
        if "noqa" in s["src"]:
            verdict, lines = "untraceable: findings suppressed with noqa", []
        else:
            verdict, lines = trace(s["src"], filename)
        ours = sorted({line for line, code in s["codes"] if code in ("PAL001", "PAL002")})
        if verdict.startswith("untraceable"):
            counts["untraceable"] += 1
            agree = None
        else:
            agree = bool(ours) == (verdict == "ERROR")
            counts["agree" if agree else "disagree"] += 1
            if not agree:
                print(f"DISAGREE {filename}: JAX {verdict} (lines {lines}), analysis errors on lines {ours}")
        report.append({"file": filename, "jax": verdict, "jax_lines": lines, "analysis_error_lines": ours,
                       "agree": agree})
    (folder / "report.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(f"snippets: {len(report)}; traced and agreeing: {counts['agree']}; "
          f"disagreeing: {counts['disagree']}; not traceable: {counts['untraceable']}; report: {folder}")
    return 1 if counts["disagree"] else 0


if __name__ == "__main__":
    sys.exit(main())
