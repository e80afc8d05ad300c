"""The generated sections of README.md and docs/*.md are current (`python docs/generate.py`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _generate():
    spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_sections_are_current(capsys):
    assert _generate().main(["--check"]) == 0, capsys.readouterr().err


def test_a_stale_section_is_named(tmp_path, monkeypatch, capsys):
    generate = _generate()
    doc = tmp_path / "README.md"
    doc.write_text("<!-- begin generated: corpus-modules -->1<!-- end generated: corpus-modules -->\n")
    monkeypatch.setattr(generate, "DOCS", [doc])
    monkeypatch.setattr(generate, "ROOT", tmp_path.parent)
    monkeypatch.setattr(generate, "GENERATORS", {"corpus-modules": lambda: "63"})
    assert generate.main(["--check"]) == 1
    assert "README.md: corpus-modules" in capsys.readouterr().err
    assert generate.main([]) == 0
    assert doc.read_text() == "<!-- begin generated: corpus-modules -->63<!-- end generated: corpus-modules -->\n"


def test_every_rule_is_in_a_readme_table():
    from pallas_lsp.analysis.rule_docs import RULE_DOCS
    from pallas_lsp.analysis.rules import RULES

    readme = (ROOT / "README.md").read_text()
    assert set(RULE_DOCS) == set(RULES)
    assert all(f"| `{code}` |" in readme for code in RULES)
