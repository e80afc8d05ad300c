"""latency.py: the comparison logic, and whole runs against lspbench's fake server."""

import shlex
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCH))

import latency


def fake(mode="ok"):
    return [sys.executable, str(BENCH / "lspbench.py"), "fake", "--mode", mode]


def row(server, mode, edit, burst, open_ms, rss):
    return {"server": server, "mode": mode, "edit_median": edit, "burst": burst,
            "open": open_ms, "rss": rss}


def test_expected_keys_shift_after_burst_line():
    meta = {"deliberate_mistakes": [{"line": 10, "code": "PAL001"}, {"line": 30, "code": "PAL003"}]}
    assert latency.expected_keys(meta) == {(9, "PAL001"), (29, "PAL003")}
    assert latency.expected_keys(meta, shift_from=20) == {(9, "PAL001"), (30, "PAL003")}
    assert latency.expected_keys(meta, shift_from=9) == {(10, "PAL001"), (30, "PAL003")}


def test_check_findings_reports_missing_and_extra_and_ignores_other_codes():
    expected = {(9, "PAL001"), (29, "PAL002")}
    ok = latency.check_findings([(9, "PAL001"), (29, "PAL002"), (3, "F821")], expected)
    assert ok["ok"] and ok["got"] == 2
    bad = latency.check_findings([(9, "PAL001"), (29, "PAL003")], expected)
    assert not bad["ok"]
    assert bad["missing"] == [(29, "PAL002")] and bad["extra"] == [(29, "PAL003")]


def test_goals_like_for_like_and_fastest_vs_fastest():
    rows = [row("pallas-lsp", "push", 5.0, 40.0, 90.0, 60.0),
            row("pallas-lsp", "pull", 6.0, 30.0, 95.0, 70.0),
            row("ruff", "push", 10.0, 100.0, 40.0, 30.0),
            row("ruff", "pull", 8.0, 20.0, 45.0, 30.0)]
    goals = {label: cells for label, cells in latency.goal_lines(20000, rows)}
    assert goals["edit -> diagnostics median <= 1.0x ruff"] == [
        ("push vs push", "0.50x", "MET"), ("pull vs pull", "0.75x", "MET"),
        ("fastest vs fastest", "0.62x", "MET")]  # 5 ms (push) / 8 ms (pull)
    assert goals["burst settle <= 0.5x ruff"] == [
        ("push vs push", "0.40x", "MET"), ("pull vs pull", "1.50x", "MISSED"),
        ("fastest vs fastest", "1.50x", "MISSED")]
    assert goals["open -> diagnostics <= 3x ruff"][0] == ("push vs push", "2.25x", "MET")
    # peak RSS: the larger of pallas-lsp's modes in the fastest column
    assert goals["peak RSS <= 100 MB"][2] == ("fastest vs fastest", "70.0 MB", "MET")
    assert latency.goal_lines(300, rows) == []  # no goal is set at 300 lines


def test_goals_missed_and_single_mode():
    rows = [row("pallas-lsp", "push", 20.0, 60.0, 200.0, 150.0),
            row("ruff", "push", 10.0, 100.0, 40.0, 30.0),
            row("ruff", "pull", 8.0, 20.0, 45.0, 30.0)]
    goals = latency.goal_lines(20000, rows)
    assert [c for c, _, _ in goals[0][1]] == ["push vs push", "fastest vs fastest"]
    assert all(v == "MISSED" for _, cells in goals for _, _, v in cells)


def test_sessions_against_fake_server_give_versioned_results(tmp_path):
    path = tmp_path / "k.py"
    latency.write_kernel_file(path, 300, seed=0)
    o = latency.parse_args(["--sizes", "300", "--edits", "3", "--gap", "0",
                            "--timeout", "10", "--edit-timeout", "5"])
    assert o.edits == 4  # rounded up to even: the text returns to the original
    runs = latency.run_sessions(fake(), path, "push", o)
    r = latency.row_from_runs("fake", "push", runs)
    assert r["errors"] == []
    assert r["edit_n"] == 4 and r["edit_p10"] <= r["edit_median"] <= r["edit_p90"]
    assert r["burst_by"] == ["version"] and r["burst_matches_reference"] == [True]
    assert r["publish_has_version"] and r["rss"] > 0
    assert r["cpu"] is not None and r["cpu"] >= 0


def test_main_exits_1_when_a_server_does_not_start(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(latency, "ensure_venv", lambda venv, allow: None)
    monkeypatch.setattr(latency, "server_specs", lambda venv: {
        "pallas-lsp": fake(), "ruff": fake("crash")})
    rc = latency.main(["--sizes", "40", "--edits", "2", "--gap", "0", "--timeout", "5",
                       "--work-dir", str(tmp_path), "--markdown", str(tmp_path / "t.md")])
    out, err = capsys.readouterr()
    assert rc == 1
    assert "ruff: does not start" in err and "rc=3" in err
    assert "pallas-lsp" in out and "40 lines" in out
    assert (tmp_path / "latency_results.json").exists()
    assert "| 40 | pallas-lsp (push) * |" in (tmp_path / "t.md").read_text()


def test_main_exits_0_and_prints_ratios_when_all_answer(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(latency, "ensure_venv", lambda venv, allow: None)
    monkeypatch.setattr(latency, "server_specs", lambda venv: {
        "pallas-lsp": fake(), "ruff": fake()})
    rc = latency.main(["--sizes", "3000", "--edits", "2", "--gap", "0", "--timeout", "10",
                       "--repeat", "2", "--work-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "pallas-lsp (push) session 2/2" in out
    assert "push vs push" in out and "fastest vs fastest" in out
    assert "goal: edit -> diagnostics median <= 1.0x ruff" in out
    # the fake server knows no PAL rules: the correctness check must say so
    assert "pallas-lsp (push) findings open: 0 on" in out and "MISMATCH" in out
    assert f"modes ['push']: {shlex.join(fake())}" in out


def test_check_edits_knows_the_text_after_deletions_and_line_insertions():
    meta = {"deliberate_mistakes": [{"line": 10, "code": "PAL001"}]}
    edits = [
        {"op": "insert_char", "version": 2, "line": 9, "diags": []},  # not checked
        {"op": "delete_char", "version": 3, "line": 9, "diags": [(9, "PAL001")]},
        {"op": "insert_line", "version": 4, "line": 5, "diags": [(10, "PAL001")]},
        {"op": "delete_line", "version": 5, "line": 5, "diags": [(10, "PAL001")]},  # stale
    ]
    c = latency.check_edits(edits, meta)
    assert (c["expected"], c["got"], c["ok"]) == (3, 2, False)
    assert c["wrong_edits"] == [(5, "delete_line", [(9, "PAL001")], [(10, "PAL001")])]
    assert latency.check_edits(edits[:3], meta)["ok"]


def test_profile_summary_areas_and_top_functions(tmp_path):
    folded = tmp_path / "p.folded"
    folded.write_text(
        "process 1;thread (0x1);<module> (a.py:1);_find_and_load (<frozen importlib._bootstrap>:1)"
        ";<module> (lsprotocol/types.py:9) 50\n"
        "process 1;thread (0x2);_worker (concurrent/futures/thread.py:81)"
        ";analyze (pallas_lsp/analysis/engine.py:189);parse (ast.py:50) 30\n"
        "process 1;thread (0x1);run (pygls/server.py:128);select (selectors.py:468) 10\n"
        "process 1;thread (0x1);run (pygls/server.py:128);dumps (json/__init__.py:231) 10\n"
        "garbage line\n")
    text = latency.summarize_folded(folded)
    assert "100 non-idle samples" in text
    assert "50.0%  imports at startup" in text
    assert "30.0%  analysis (pallas_lsp/analysis)" in text
    assert "10.0%  event loop, thread pool, waiting" in text
    assert "10.0%  JSON-RPC and (de)serialisation" in text
    # steady-state shares exclude the 50 import samples
    assert "60.0%  parse (ast.py:50)" in text
    assert "60.0%  analyze (pallas_lsp/analysis/engine.py:189)" in text
    assert "100.0%  lsprotocol/types.py" in text  # the module being imported
    empty = tmp_path / "e.folded"
    empty.write_text("")
    assert "no samples" in latency.summarize_folded(empty)


def test_venv_is_current_needs_servers_and_matching_source(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("python", "ruff", "jedi-language-server"):
        (bin_dir / name).write_text("#!/bin/sh\n")
        (bin_dir / name).chmod(0o755)
    assert not latency.venv_is_current(tmp_path)  # no stamp yet
    digest = latency.source_digest()
    (tmp_path / ".source.sha256").write_text(digest + "\n")
    assert latency.venv_is_current(tmp_path)
    (tmp_path / ".source.sha256").write_text("0" * 64)  # the source changed since
    assert not latency.venv_is_current(tmp_path)
    (tmp_path / ".source.sha256").write_text(digest)
    (bin_dir / "ruff").unlink()
    assert not latency.venv_is_current(tmp_path)
