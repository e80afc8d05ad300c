"""`[tool.pallas-lsp]` in pyproject.toml."""

from __future__ import annotations

from pathlib import Path

import pytest
from pallas_lsp.config import (
    Config,
    ConfigError,
    ConfigResolver,
    ignored_codes,
    load_config,
    load_config_file,
    normalize_selectors,
    parse_per_file_ignore,
    split_selectors,
    unknown_selectors,
)
from pallas_lsp.analysis.rules import RULES, selected


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_no_pyproject_gives_defaults(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    config = load_config(tmp_path / "a.py")
    assert config.select is None and config.ignore == () and config.exclude == ()
    assert not config.is_excluded(tmp_path / "a.py")


def test_nearest_pyproject_with_the_table_wins(tmp_path):
    write(tmp_path / "pyproject.toml",
          '[tool.pallas-lsp]\nselect = ["pal00"]\nignore = ["PAL003"]\nexclude = ["gen/"]\n')
    # a nearer pyproject.toml without the table is skipped (like ruff)
    write(tmp_path / "pkg" / "pyproject.toml", '[project]\nname = "pkg"\n')
    write(tmp_path / "pkg" / "sub" / "k.py", "")
    config = load_config(tmp_path / "pkg" / "sub" / "k.py")
    assert config.select == ("PAL00",)
    assert config.ignore == ("PAL003",)
    assert config.exclude == ("gen/",)
    assert config.root == tmp_path
    assert config.path == tmp_path / "pyproject.toml"
    # a nearer one with the table wins
    write(tmp_path / "pkg" / "pyproject.toml", '[tool.pallas-lsp]\nignore = ["PAL002"]\n')
    config = load_config(tmp_path / "pkg" / "sub")
    assert config.select is None and config.ignore == ("PAL002",)
    assert config.root == tmp_path / "pkg"


def test_all_selects_everything_and_an_empty_select_nothing(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.pallas-lsp]\nselect = ["ALL"]\nignore = ["pal003"]\n')
    config = load_config(tmp_path)
    assert config.select is None
    assert config.ignore == ("PAL003",)
    write(tmp_path / "pyproject.toml", '[tool.pallas-lsp]\nselect = []\n')
    assert load_config(tmp_path).select == ()
    # ruff's meaning: no rule; a file that cannot be read or parsed is still reported
    assert not selected("PAL001", (), None) and selected("E999", (), None)
    assert selected("PAL001", None, None) and not selected("E902", (), ("E9",))


@pytest.mark.parametrize(
    "body, message",
    [
        ("[tool.pallas-lsp\nselect = 1\n", "invalid TOML"),
        ('[tool.pallas-lsp]\nselect = ["PAL9"]\n', "unknown rule code or prefix in [tool.pallas-lsp]: PAL9"),
        ("[tool.pallas-lsp]\nselect = [1, 2]\n",
         "select must be a list of strings, got a list with other items than strings"),
        ('[tool.pallas-lsp]\nselect = "PAL002"\n',
         'select must be a list of strings, got a string (`select = ["PAL002"]`?)'),
        ('[tool.pallas-lsp]\nignore = [1]\n', "ignore must be a list of strings"),
        ('[tool.pallas-lsp]\nignore = "PAL003"\n', "ignore must be a list of strings, got a string"),
        ('[tool.pallas-lsp]\nexclude = "foo"\n', 'exclude must be a list of strings, got a string (`exclude = ["foo"]`?)'),
        ('[tool]\npallas-lsp = "x"\n', "[tool.pallas-lsp] must be a table"),
        ('[tool.pallas-lsp]\nexclude = {a = 1}\n', "exclude must be a list of strings, got a table"),
        ('[tool.pallas-lsp]\nper-file-ignores = ["x"]\n', "per-file-ignores must be a table"),
        ('[tool.pallas-lsp]\nper-file-ignores = {"t/*" = 3}\n', "per-file-ignores.t/* must be a list of strings, got a number"),
        ('[tool.pallas-lsp]\nper-file-ignores = {"t/*" = "PAL003"}\n', "per-file-ignores.t/* must be a list of strings, got a string"),
        ('[tool.pallas-lsp]\nper-file-ignores = {"t/*" = ["X9"]}\n', "unknown rule code or prefix"),
        ('[tool.pallas-lsp]\nselekt = ["PAL001"]\n',
         "unknown key `selekt` in [tool.pallas-lsp]; did you mean `select`? "
         "(known keys: select, ignore, exclude, per-file-ignores)"),
        ('[tool.pallas-lsp]\noutput-format = "json"\n',
         "unknown key `output-format` in [tool.pallas-lsp] (known keys: select, ignore, exclude, per-file-ignores)"),
        ('[tool.pallas-lsp.lint]\nselect = ["PAL001"]\n', "unknown key `lint`"),
    ],
)
def test_broken_configuration_is_a_clear_error(tmp_path, body, message):
    write(tmp_path / "pyproject.toml", body)
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path)
    assert message in str(err.value)
    assert str(tmp_path / "pyproject.toml") in str(err.value)


def test_load_config_file(tmp_path):
    p = write(tmp_path / "custom.toml", '[tool.pallas-lsp]\nselect = ["PAL002"]\n')
    assert load_config_file(p).select == ("PAL002",)
    p = write(tmp_path / "empty.toml", "")
    assert load_config_file(p) == Config(root=tmp_path, path=p)
    with pytest.raises(ConfigError, match="no such file"):
        load_config_file(tmp_path / "missing.toml")


@pytest.mark.parametrize(
    "rel, excluded",
    [
        ("gen", True),
        ("gen/a.py", True),
        ("src/gen/a.py", True),           # a trailing slash does not anchor (as in .gitignore)
        ("lib/gen/a.py", True),
        ("lib/gen2/a.py", False),
        ("pkg/generated/x.py", True),     # "pkg/generated" has a slash: anchored at the root
        ("src/pkg/generated/x.py", False),
        ("src/k_pb2.py", True),           # no slash: any component
        ("src/k.py", False),
        ("third_party/x/y.py", True),     # "**/" may match nothing
        ("a/b/third_party/y.py", True),
        ("vendored", True),
        ("src/vendored/z.py", True),
        ("tests/fixtures/bad.py", True),  # "./" prefix
        ("tests/ok.py", False),
    ],
)
def test_exclude_globs(tmp_path, rel, excluded):
    config = Config(exclude=("gen/", "*_pb2.py", "**/third_party", "vendored",
                             "./tests/fixtures/*", "pkg/generated"), root=tmp_path)
    assert config.is_excluded(tmp_path / rel) is excluded


def test_exclude_outside_the_root_matches_names_only(tmp_path):
    config = Config(exclude=("pkg/gen", "*_pb2.py"), root=tmp_path / "proj")
    assert config.is_excluded(tmp_path / "other" / "x_pb2.py")
    assert not config.is_excluded(tmp_path / "other" / "pkg" / "gen")


def test_resolver_reads_each_pyproject_once_and_matches_load_config(tmp_path, monkeypatch):
    write(tmp_path / "pyproject.toml", '[tool.pallas-lsp]\nignore = ["PAL003"]\n')
    write(tmp_path / "a" / "b" / "k.py", "")
    write(tmp_path / "c" / "pyproject.toml", '[tool.pallas-lsp]\nselect = ["PAL001"]\n')
    import pallas_lsp.config as config_module

    reads = []
    real = config_module.read_table
    monkeypatch.setattr(config_module, "read_table", lambda p: reads.append(p) or real(p))
    resolver = ConfigResolver()
    for _ in range(3):
        assert resolver.for_path(tmp_path / "a" / "b" / "k.py").ignore == ("PAL003",)
        assert resolver.for_path(tmp_path / "c").select == ("PAL001",)
    assert sorted(reads) == [tmp_path / "c" / "pyproject.toml", tmp_path / "pyproject.toml"]
    assert resolver.for_path(tmp_path / "a") == load_config(tmp_path / "a")


def test_selector_helpers():
    assert split_selectors(" PAL001, pal002 ,,") == ["PAL001", "pal002"]
    assert unknown_selectors(["PAL", "pal003", "ALL", "E501", "PAL9"]) == ["E501", "PAL9"]
    assert normalize_selectors(["pal001", " "]) == ("PAL001",)
    assert normalize_selectors(["PAL001", "all"]) is None
    assert normalize_selectors(None) is None
    assert ignored_codes(["all"]) == tuple(RULES) and ignored_codes(["pal003"]) == ("PAL003",)
    assert ignored_codes(None) == ignored_codes([]) == ()


def test_per_file_ignores(tmp_path):
    write(tmp_path / "pyproject.toml",
          '[tool.pallas-lsp]\nper-file-ignores = {"tests/**" = ["pal003"], "*_bench.py" = ["PAL"]}\n')
    config = load_config(tmp_path)
    assert config.per_file_ignores == (("tests/**", ("PAL003",)), ("*_bench.py", ("PAL",)))
    assert config.ignored_in(tmp_path / "tests" / "deep" / "k.py") == ("PAL003",)
    assert config.ignored_in(tmp_path / "src" / "x_bench.py") == ("PAL",)
    assert config.ignored_in(tmp_path / "src" / "tests.py") == ()


def test_parse_per_file_ignore():
    assert parse_per_file_ignore("tests/**:PAL003, pal001") == ("tests/**", ("PAL003", "PAL001"))
    assert parse_per_file_ignore("C:/x/*.py:PAL") == ("C:/x/*.py", ("PAL",))
    for bad in ("tests", ":PAL001", "tests:"):
        with pytest.raises(ValueError, match="expected GLOB:CODES"):
            parse_per_file_ignore(bad)
