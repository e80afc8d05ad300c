"""profile_engine.py: the engine alone, on a generated file or a real one (`--file`)."""

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCH))

import profile_engine
from gen_kernels import generate


def test_a_real_file_is_opened_and_edited_with_the_latency_benchmarks_edits(tmp_path, capsys):
    path = tmp_path / "kernels.py"
    path.write_text(generate(300, 0)[0])
    assert profile_engine.main(["--file", str(path), "--edits", "4", "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert "300 lines: open (whole-file analyze)" in out and "2 findings" in out
    assert "4 edits: analyze median" in out


def test_the_edits_alternate_with_their_reverts():
    text = generate(300, 0)[0]
    texts = list(profile_engine.script_edits(text, 4, 0))
    assert len(texts) == 4 and texts[0] != text and texts[1] == text and texts[3] == text
