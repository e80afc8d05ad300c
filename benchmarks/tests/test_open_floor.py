"""open_floor.py: its open timing against lspbench's fake server, and its parse probes."""

import math
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCH))

import open_floor
from gen_kernels import generate


def test_open_ms_times_didopen_to_the_first_publish(tmp_path):
    path = tmp_path / "k.py"
    text = "x = 1\n"
    path.write_text(text)
    fake = [sys.executable, str(BENCH / "lspbench.py"), "fake", "--mode", "ok", "--delay", "0.2"]
    assert 195 <= open_floor.open_ms(fake, path, text, timeout=30) < 5000


def test_every_probe_reports_a_time(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(generate(300, 0)[0])
    for name, code in open_floor.PROBES.items():
        ms = open_floor.probe(sys.executable, code, path)
        if "tree-sitter" in name and math.isnan(ms):
            continue       # optional: only in the benchmark venv
        assert 0 < ms < 60_000, name
