"""`pallas-lsp check` through a real subprocess: exit codes, formats, files, config, --fix.

The tests in the "with findings" section need the analysis engine (they fail while
`analyze` is a stub); the others check the command line on its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pallas_lsp.analysis.rules import RULES

ENV = {**os.environ, "PYTHONIOENCODING": "utf-8"}


def run_cli(*args, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pallas_lsp", *map(str, args)],
        cwd=cwd, env=ENV, capture_output=True, text=True, timeout=120, check=False,
        input=stdin if stdin is not None else "",
    )


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


HEADER = """\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
"""

CLEAN = HEADER + """

def kernel(x_hbm, o_ref, buf, sems):
    for slot in range(2):
        pltpu.make_async_copy(x_hbm.at[slot], buf.at[slot], sems.at[slot]).start()
        pltpu.make_async_copy(x_hbm.at[slot], buf.at[slot], sems.at[slot]).wait()
    o_ref[...] = buf[...]


def run(x):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((2, 8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
    )(x)
"""

# PAL001 on line 9 (1-based): `sems` passed whole to a DMA start.
DMA_BUG = CLEAN.replace(
    "pltpu.make_async_copy(x_hbm.at[slot], buf.at[slot], sems.at[slot]).start()",
    "pltpu.async_copy(x_hbm.at[slot], buf.at[slot], sems)",
)
DMA_BUG_LINE = 9
DMA_BUG_COL = DMA_BUG.splitlines()[DMA_BUG_LINE - 1].index("sems)") + 1

# PAL002 on line 8 (`pl.semaphore_signal(sems)`); the wait is correct.
SIGNAL_BUG = HEADER + """

def kernel(x_ref, o_ref, sems):
    pl.semaphore_signal(sems)
    pl.semaphore_wait(sems.at[0])
    o_ref[...] = x_ref[...]


def run(x):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        scratch_shapes=[pltpu.SemaphoreType.REGULAR((2,))],
    )(x)
"""

# Only a PAL003 warning: semaphore_read on the whole array.
READ_WARNING = SIGNAL_BUG.replace(
    "    pl.semaphore_signal(sems)\n    pl.semaphore_wait(sems.at[0])\n",
    "    n = pl.semaphore_read(sems)\n",
)


# ---------------------------------------------------------------------------------------
# without findings


def test_clean_file_exits_0_in_every_format(tmp_path):
    write(tmp_path / "k.py", CLEAN)
    r = run_cli("check", "k.py", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, "All checks passed (1 file checked).\n", "")
    r = run_cli("check", "--format", "json", "k.py", cwd=tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout) == []
    r = run_cli("check", "--format", "github", "k.py", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "")


def test_sarif_structure(tmp_path):
    write(tmp_path / "k.py", CLEAN)
    r = run_cli("check", "--format", "sarif", "k.py", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    sarif = json.loads(r.stdout)
    assert sarif["version"] == "2.1.0"
    assert sarif["$schema"].endswith("sarif-2.1.0.json")
    (run,) = sarif["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "pallas-lsp"
    assert [rule["id"] for rule in driver["rules"]] == list(RULES)
    for rule in driver["rules"]:
        assert rule["helpUri"] == RULES[rule["id"]].doc_url
        assert rule["defaultConfiguration"]["level"] == RULES[rule["id"]].severity
        assert rule["fullDescription"]["text"] == RULES[rule["id"]].summary
    assert run["results"] == []
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"


@pytest.mark.parametrize(
    "args, message",
    [
        (["check", "missing.py"], "missing.py: no such file or directory"),
        (["check", "--per-file-ignores", "tests", "k.py"], "expected GLOB:CODES"),
        (["check", "--per-file-ignores", "tests/*:PAL9", "k.py"], "unknown rule code or prefix: PAL9"),
        (["check", "--extend-select", "X1", "k.py"], "--extend-select: unknown rule code"),
        (["check", "--unsafe-fixes", "k.py"], "--unsafe-fixes needs --fix or --diff"),
        (["check", "-q", "-s", "k.py"], "not allowed with argument"),
        (["check", "--color", "sometimes", "k.py"], "invalid choice: 'sometimes'"),
        (["check", "-o", "no/such/dir/out.txt", "k.py"], "--output-file: no/such/dir/out.txt"),
        (["rule", "PAL999"], "unknown rule 'PAL999'"),
        (["rule"], "one of the arguments CODE --all is required"),
        (["check", "--format", "xml", "k.py"], "invalid choice: 'xml'"),
        (["check", "--select", "PAL9,E501", "k.py"], "--select: unknown rule code or prefix: PAL9, E501"),
        (["check", "--ignore", "X", "k.py"], "--ignore: unknown rule code or prefix: X"),
        (["check", "--bogus", "k.py"], "unrecognized arguments: --bogus"),
        (["check", "-j", "0", "k.py"], "must be at least 1"),
        (["check", "--config", "nope.toml", "k.py"], "nope.toml: no such file"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        (["check", "-", "-"], "`-` (stdin) can be given only once"),
        (["check", "--stdin-filename", "a.py", "k.py"], "--stdin-filename needs `-`"),
        (["check", "--fix", "-"], "--fix cannot rewrite stdin"),
        (["check", "--python", "no/such/python", "k.py"], "--python: no/such/python: not an executable"),
        (["--tcp", "localhost"], "expected HOST:PORT"),
        (["--tcp", "localhost:99999"], "bad port"),
    ],
)
def test_usage_errors_exit_2_with_a_message(tmp_path, args, message):
    write(tmp_path / "k.py", CLEAN)
    r = run_cli(*args, cwd=tmp_path)
    assert r.returncode == 2
    assert message in r.stderr
    assert "Traceback" not in r.stderr
    assert r.stdout == ""


def test_broken_pyproject_is_a_usage_error(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.pallas-lsp]\nselect = [\n")
    write(tmp_path / "k.py", CLEAN)
    r = run_cli("check", "k.py", cwd=tmp_path)
    assert r.returncode == 2
    assert "configuration error" in r.stderr and "invalid TOML" in r.stderr
    assert "Traceback" not in r.stderr


def test_help_and_packaging_say_what_is_checked():
    """Every face of the product names all it checks, not only semaphore shapes."""
    root = Path(__file__).resolve().parents[1]
    top = run_cli("--help", cwd=root).stdout
    check = run_cli("check", "--help", cwd=root).stdout
    for text in (top, check):
        flat = " ".join(text.split())
        for topic in ("semaphore shapes and kinds", "pallas_call contract", "TPU block tiling",
                      "DMA and semaphore protocol", "shapes and dtypes"):
            assert topic in flat
    assert "dimension_semantics" in " ".join(check.split())   # --fix: not only semaphore indices
    package = json.loads((root / "vscode-client" / "package.json").read_text())
    assert (package["name"], package["displayName"]) == ("pallas-lsp", "Pallas Kernel Checker")
    hook = (root / ".pre-commit-hooks.yaml").read_text()
    assert "Pallas kernel checks" in hook and "contract" in hook


def test_version_says_which_interpreter_runs():
    """An editable install runs the Python source, `pip install .` mypyc's build of it."""
    from importlib.machinery import EXTENSION_SUFFIXES

    from pallas_lsp.analysis.interp import core

    compiled = core.__file__.endswith(tuple(EXTENSION_SUFFIXES))
    for flag in ("--version", "-V"):
        r = run_cli(flag, cwd=Path.cwd())
        assert r.returncode == 0 and r.stdout.startswith("pallas-lsp 0.")
        assert ("(interpreter: compiled with mypyc)" if compiled else "(interpreter: pure Python)") in r.stdout


@pytest.mark.parametrize(
    "content, where, message",
    [
        (b"\x00\x01\x02ELF binary junk", "1:1", "binary file (contains NUL bytes)"),
        (b"x = '\xff\xfe caf\xe9'\n", "1:6", "not valid UTF-8 (byte 5: invalid start byte)"),
        # latin-1 bytes below a UTF-8 first line, no coding cookie: Python refuses it too
        (b"import jax\nname = 'caf\xe9'\n", "2:12", "not valid UTF-8 (byte 22: invalid continuation byte)"),
        (b"# -*- coding: no-such-codec -*-\nx = 1\n", "1:1", "cannot decode: unknown encoding: no-such-codec"),
        (b"# -*- coding: ascii -*-\nx = 'caf\xe9'\n", "2:9", "not valid ascii (byte 32: ordinal not in range(128))"),
    ],
)
def test_unreadable_files_are_an_e902_finding(tmp_path, content, where, message):
    (tmp_path / "bad.py").write_bytes(content)
    write(tmp_path / "k.py", CLEAN)
    r = run_cli("check", ".", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (1, "")
    assert r.stdout.splitlines() == [f"bad.py:{where}: E902 {message}, not checked",
                                     "Found 1 error in 1 file (2 files checked)."]


def test_os_errors_are_e902(tmp_path, monkeypatch):
    # (in-process: the tests may run as root, for whom permissions do not stop a read or write)
    from pallas_lsp.cli import checker

    (tmp_path / "gone.py").mkdir()      # a file replaced by a folder between listing and reading
    result = checker.check_file(checker.Task(str(tmp_path / "gone.py"), None, ()))
    assert [(r.finding.code, r.finding.message) for r in result.items] == [
        ("E902", "cannot read: Is a directory")]
    path = write(tmp_path / "k.py", DMA_BUG)

    def refuse(*_args):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(checker, "_write", refuse)
    result = checker.check_file(checker.Task(str(path), None, (), fix=True))
    assert [(r.finding.code, r.finding.message[:28]) for r in result.items] == [
        ("E902", "cannot write the fixes: Perm"), ("PAL001", "Cannot signal on a non-()-sh")]
    assert result.applied == [] and path.read_text() == DMA_BUG
    result = checker.check_file(checker.Task(str(path), None, ("E902",), fix=True))
    assert [r.finding.code for r in result.items] == ["PAL001"]


def test_e902_in_every_format_and_selection(tmp_path):
    (tmp_path / "bin.py").write_bytes(bytes(range(256)) * 16)
    write(tmp_path / "k.py", DMA_BUG)
    message = "binary file (contains NUL bytes), not checked"
    r = run_cli("check", "--output-format", "json", ".", cwd=tmp_path)
    assert r.returncode == 1
    e902 = next(item for item in json.loads(r.stdout) if item["code"] == "E902")
    assert (e902["path"], e902["line"], e902["column"], e902["severity"], e902["message"],
            e902["rule"]) == ("bin.py", 1, 1, "error", message, "io-error")
    r = run_cli("check", "--output-format", "sarif", ".", cwd=tmp_path)
    run = json.loads(r.stdout)["runs"][0]
    result = next(res for res in run["results"] if res["ruleId"] == "E902")
    assert result["message"]["text"] == message and result["level"] == "error"
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == "E902"
    r = run_cli("check", "--output-format", "github", "bin.py", cwd=tmp_path)
    assert r.stdout == (f"::error file=bin.py,line=1,col=1,endLine=1,endColumn=1,title=E902::E902 {message}\n")
    r = run_cli("check", "--output-format", "full", "bin.py", cwd=tmp_path)
    assert r.stdout.startswith(f"bin.py:1:1: E902 {message}\n")
    assert r.stdout.endswith("Found 1 error in 1 file (1 file checked).\n")
    r = run_cli("check", "--statistics", ".", cwd=tmp_path)
    assert r.stdout.splitlines() == ["1  E902        io-error", "1  PAL001  [*] dma-nonscalar-semaphore"]
    # a select that names only PAL rules still reports it; ignore and per-file-ignores do not
    r = run_cli("check", "--select", "PAL002", ".", cwd=tmp_path)
    assert (r.returncode, r.stdout.splitlines()[0]) == (1, f"bin.py:1:1: E902 {message}")
    r = run_cli("check", "--ignore", "E902", "bin.py", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "All checks passed (1 file checked).\n")
    r = run_cli("check", "--ignore", "ALL", ".", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "All checks passed (2 files checked).\n")
    r = run_cli("check", "--per-file-ignores", "bin.py:E9", "--select", "E902", ".", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "All checks passed (2 files checked).\n")
    r = run_cli("check", "--diff", ".", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr == f"bin.py:1:1: E902 {message}\nWould fix 1 finding.\n"


def test_declared_encodings_and_bom_are_read(tmp_path):
    (tmp_path / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n")
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbf" + CLEAN.encode())
    r = run_cli("check", ".", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (0, "")
    assert "(2 files checked)" in r.stdout


def test_folders_are_walked_skipping_tool_folders_and_excludes(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.pallas-lsp]\nexclude = ["generated/", "*_pb2.py"]\n')
    for rel in ["a.py", "pkg/b.py", "pkg/deep/c.py",
                ".git/x.py", ".venv/lib/x.py", "venv/x.py", "node_modules/x.py",
                "pkg/__pycache__/x.py", "build/x.py", "dist/x.py",
                "generated/x.py", "pkg/generated/y.py", "pkg/msg_pb2.py"]:
        write(tmp_path / rel, CLEAN)
    write(tmp_path / "notes.txt", "not python")
    (tmp_path / "build" / "junk.py").write_bytes(b"\x00")  # never read: skipped folder
    r = run_cli("check", ".", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout == "All checks passed (3 files checked).\n"
    # a file named on the command line is checked even when excluded, but not a non-Python one
    r = run_cli("check", "pkg/msg_pb2.py", "notes.txt", "a.py", "./a.py", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "All checks passed (2 files checked).\n")
    assert r.stderr == ("pallas-lsp check: warning: notes.txt: not a Python file "
                        "(*.py, *.pyi, *.ipynb), not checked\n")
    # ... unless --force-exclude (for pre-commit)
    r = run_cli("check", "--force-exclude", "pkg/msg_pb2.py", "generated/x.py", "a.py",
                cwd=tmp_path)
    assert r.stdout == "All checks passed (1 file checked).\n"
    # --config replaces the pyproject.toml: nothing excluded
    write(tmp_path / "other.toml", "")
    r = run_cli("check", "--config", "other.toml", "pkg", cwd=tmp_path)
    assert r.stdout == "All checks passed (4 files checked).\n"


def test_no_python_files(tmp_path):
    (tmp_path / "empty").mkdir()
    r = run_cli("check", "empty", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "")
    assert r.stderr == "pallas-lsp check: warning: No Python files found under the given paths\n"
    write(tmp_path / "README.md", "# not Python\n")
    r = run_cli("check", "README.md", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "")
    assert r.stderr.splitlines() == [
        "pallas-lsp check: warning: README.md: not a Python file (*.py, *.pyi, *.ipynb), not checked",
        "pallas-lsp check: warning: No Python files found under the given paths",
    ]
    # machine-readable formats stay valid
    r = run_cli("check", "--output-format", "json", "empty", cwd=tmp_path)
    assert (r.returncode, json.loads(r.stdout)) == (0, [])


@pytest.mark.parametrize("body, message", [
    ('selekt = ["PAL001"]', "unknown key `selekt` in [tool.pallas-lsp]; did you mean `select`? "
                            "(known keys: select, ignore, exclude, per-file-ignores)"),
    ('output-format = "json"', "unknown key `output-format`"),
    ('select = "PAL002"', 'select must be a list of strings, got a string (`select = ["PAL002"]`?)'),
    ('exclude = "foo"', "exclude must be a list of strings, got a string"),
    ("ignore = [1]", "ignore must be a list of strings"),
])
def test_pyproject_mistakes_are_configuration_errors(tmp_path, body, message):
    write(tmp_path / "pyproject.toml", f"[tool.pallas-lsp]\n{body}\n")
    write(tmp_path / "k.py", DMA_BUG)
    r = run_cli("check", "k.py", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith(f"pallas-lsp check: configuration error: {tmp_path / 'pyproject.toml'}: ")
    assert message in r.stderr and "Traceback" not in r.stderr


def test_an_empty_select_checks_nothing_but_unreadable_files(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.pallas-lsp]\nselect = []\n")
    write(tmp_path / "k.py", DMA_BUG)
    r = run_cli("check", ".", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "All checks passed (1 file checked).\n")
    r = run_cli("check", "--extend-select", "PAL001", ".", cwd=tmp_path)
    assert r.returncode == 1 and f"k.py:{DMA_BUG_LINE}:{DMA_BUG_COL}: PAL001" in r.stdout
    write(tmp_path / "broken.py", "def f(:\n")
    r = run_cli("check", ".", cwd=tmp_path)
    assert r.returncode == 1 and r.stdout.startswith("broken.py:1:7: E999")


# ---------------------------------------------------------------------------------------
# with findings (need the analysis engine)


def test_error_exits_1_and_text_format(tmp_path):
    write(tmp_path / "k.py", DMA_BUG)
    r = run_cli("check", "k.py", cwd=tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    first = r.stdout.splitlines()[0]
    assert first.startswith(f"k.py:{DMA_BUG_LINE}:{DMA_BUG_COL}: PAL001 ")
    assert "non-()-shaped semaphore: (2,)" in first
    assert "Found 1 error in 1 file (1 file checked)." in r.stdout


def test_exit_zero(tmp_path):
    write(tmp_path / "k.py", DMA_BUG)
    r = run_cli("check", "--exit-zero", "k.py", cwd=tmp_path)
    assert r.returncode == 0
    assert f"k.py:{DMA_BUG_LINE}:{DMA_BUG_COL}: PAL001 " in r.stdout


def test_the_protocol_rules_are_checked(tmp_path):
    src = (Path(__file__).parent / "protocol" / "pal303_missing_prologue_bug.py").read_text()
    write(tmp_path / "k.py", src)
    r = run_cli("check", "--output-format", "json", "k.py", cwd=tmp_path)
    assert r.returncode == 1
    [item] = json.loads(r.stdout)
    assert (item["code"], item["severity"], item["line"]) == ("PAL303", "error", 29)
    assert "in grid step (0,)" in item["message"]


def test_json_fields_are_one_based(tmp_path):
    write(tmp_path / "k.py", DMA_BUG)
    r = run_cli("check", "--format", "json", "k.py", cwd=tmp_path)
    assert r.returncode == 1
    (item,) = [i for i in json.loads(r.stdout) if i["code"] == "PAL001"]
    assert item["path"] == "k.py"
    assert (item["line"], item["column"]) == (DMA_BUG_LINE, DMA_BUG_COL)
    assert (item["end_line"], item["end_column"]) == (DMA_BUG_LINE, DMA_BUG_COL + len("sems"))
    assert item["severity"] == "error"
    assert item["message"].startswith("Cannot signal on a non-()-shaped semaphore: (2,)")
    assert item["url"] == RULES["PAL001"].doc_url
    # the declaration is related information, 1-based too
    decl_line = DMA_BUG.splitlines().index(
        "        scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,))],"
    ) + 1
    assert decl_line in [rel["line"] for rel in item["related"]]
    # the fix --fix would apply
    (edit,) = item["fix"]["edits"]
    assert edit["new_text"] == "sems.at[slot]"
    assert (edit["line"], edit["column"]) == (DMA_BUG_LINE, DMA_BUG_COL)


def test_sarif_and_github_results(tmp_path):
    write(tmp_path / "k.py", DMA_BUG)
    r = run_cli("check", "--format", "sarif", "k.py", cwd=tmp_path)
    assert r.returncode == 1
    (result,) = [x for x in json.loads(r.stdout)["runs"][0]["results"] if x["ruleId"] == "PAL001"]
    assert result["level"] == "error"
    assert result["ruleIndex"] == list(RULES).index("PAL001")
    loc = result["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "k.py", "uriBaseId": "%SRCROOT%"}
    assert loc["region"] == {"startLine": DMA_BUG_LINE, "startColumn": DMA_BUG_COL,
                             "endLine": DMA_BUG_LINE, "endColumn": DMA_BUG_COL + 4}
    r = run_cli("check", "--format", "github", "k.py", cwd=tmp_path)
    assert r.returncode == 1
    line = next(x for x in r.stdout.splitlines() if "title=PAL001" in x)
    assert line.startswith(
        f"::error file=k.py,line={DMA_BUG_LINE},col={DMA_BUG_COL},endLine={DMA_BUG_LINE},"
        f"endColumn={DMA_BUG_COL + 4},title=PAL001::PAL001 Cannot signal on a non-()-shaped"
    )


def test_warnings_alone_exit_0(tmp_path):
    write(tmp_path / "k.py", READ_WARNING)
    r = run_cli("check", "--format", "json", "k.py", cwd=tmp_path)
    assert r.returncode == 0
    assert [(i["code"], i["severity"], i["line"]) for i in json.loads(r.stdout)] == [
        ("PAL003", "warning", 8)
    ]


def test_select_ignore_and_pyproject(tmp_path):
    write(tmp_path / "dma.py", DMA_BUG)
    write(tmp_path / "sig.py", SIGNAL_BUG)

    def codes(*args):
        r = run_cli("check", "--format", "json", *args, ".", cwd=tmp_path)
        return r.returncode, sorted({(i["path"], i["code"]) for i in json.loads(r.stdout)})

    assert codes() == (1, [("dma.py", "PAL001"), ("sig.py", "PAL002")])
    assert codes("--select", "PAL002") == (1, [("sig.py", "PAL002")])
    assert codes("--ignore", "pal001,PAL002") == (0, [])
    write(tmp_path / "pyproject.toml", '[tool.pallas-lsp]\nignore = ["PAL002"]\n')
    assert codes() == (1, [("dma.py", "PAL001")])
    assert codes("--ignore", "PAL001") == (1, [("sig.py", "PAL002")])  # the flag replaces it


def test_noqa_suppresses(tmp_path):
    write(tmp_path / "k.py", SIGNAL_BUG.replace(
        "pl.semaphore_signal(sems)\n", "pl.semaphore_signal(sems)  # noqa: PAL002\n"))
    r = run_cli("check", "k.py", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "All checks passed (1 file checked).\n")


def test_fix_rewrites_the_file_then_it_is_clean(tmp_path):
    path = write(tmp_path / "k.py", DMA_BUG)
    r = run_cli("check", "--fix", "k.py", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Fixed 1 finding." in r.stdout
    assert path.read_text() == DMA_BUG.replace("buf.at[slot], sems)", "buf.at[slot], sems.at[slot])")
    r = run_cli("check", "k.py", cwd=tmp_path)
    assert r.returncode == 0


def test_parallel_and_serial_runs_agree(tmp_path):
    # enough source to use the worker pool; a few buggy files among many clean ones
    for i in range(40):
        write(tmp_path / f"pkg{i % 4}" / f"k{i}.py", (DMA_BUG if i % 10 == 3 else CLEAN) * 12)
    serial = run_cli("check", "--format", "json", "-j", "1", ".", cwd=tmp_path)
    parallel = run_cli("check", "--format", "json", "-j", "2", ".", cwd=tmp_path)
    assert serial.returncode == parallel.returncode == 1
    assert serial.stdout == parallel.stdout
    assert {i["path"] for i in json.loads(serial.stdout)} == {
        os.path.join(f"pkg{i % 4}", f"k{i}.py") for i in (3, 13, 23, 33)
    }


def test_stdin(tmp_path):
    r = run_cli("check", "-", cwd=tmp_path, stdin=CLEAN)
    assert (r.returncode, r.stdout) == (0, "All checks passed (1 file checked).\n")
    r = run_cli("check", "--format", "json", "-", "--stdin-filename", "src/k.py",
                cwd=tmp_path, stdin=DMA_BUG)
    assert r.returncode == 1, r.stderr
    assert {(i["path"], i["code"], i["line"]) for i in json.loads(r.stdout)} >= {
        ("src/k.py", "PAL001", DMA_BUG_LINE)
    }
    # the pyproject.toml is looked up from --stdin-filename
    write(tmp_path / "src" / "pyproject.toml", '[tool.pallas-lsp]\nignore = ["PAL001"]\n')
    r = run_cli("check", "--format", "json", "-", "--stdin-filename", "src/k.py",
                cwd=tmp_path, stdin=DMA_BUG)
    assert "PAL001" not in {i["code"] for i in json.loads(r.stdout)}


def test_fix_keeps_crlf_and_the_declared_encoding(tmp_path):
    source = "# -*- coding: latin-1 -*-\n# caf\xe9\n" + DMA_BUG
    path = tmp_path / "k.py"
    path.write_bytes(source.replace("\n", "\r\n").encode("latin-1"))
    r = run_cli("check", "--fix", "k.py", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    expected = source.replace("buf.at[slot], sems)", "buf.at[slot], sems.at[slot])")
    assert path.read_bytes() == expected.replace("\n", "\r\n").encode("latin-1")


def test_helpers_imported_from_another_module_of_the_project(tmp_path):
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "common.py", """\
        from jax.experimental.pallas import tpu as pltpu


        def start_copy(src, dst, sem):
            pltpu.make_async_copy(src, dst, sem).start()
        """)
    kernel = DMA_BUG.replace(
        "pltpu.async_copy(x_hbm.at[slot], buf.at[slot], sems)",
        "start_copy(x_hbm.at[slot], buf.at[slot], sems)",
    ).replace(HEADER, HEADER + "\nfrom .common import start_copy\n")
    write(tmp_path / "pkg" / "kernel.py", kernel)
    r = run_cli("check", "--format", "json", ".", cwd=tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    (item,) = json.loads(r.stdout)
    assert (item["path"], item["code"], item["line"]) == (
        os.path.join("pkg", "kernel.py"), "PAL001", DMA_BUG_LINE + 2)
    # where the helper starts the DMA is related information, shown relative like the rest
    assert (os.path.join("pkg", "common.py"), 5) in {(x["path"], x["line"]) for x in item["related"]}


# ---------------------------------------------------------------------------------------
# notebooks


KERNEL_CELL = "%load_ext autoreload\n" + DMA_BUG[len(HEADER) + 2:]   # from `def kernel`
NB_BUG_LINE = DMA_BUG_LINE - 6 + 1         # in the kernel cell (after its magic line)
NB_DECL_LINE = 19 - 6 + 1


def notebook(cells, language="python") -> str:
    def cell(kind, source):
        extra = {"execution_count": None, "outputs": []} if kind == "code" else {}
        return {"cell_type": kind, "metadata": {}, "source": source, **extra}

    return json.dumps({
        "cells": [cell(kind, source) for kind, source in cells],
        "metadata": {"kernelspec": {"name": "python3" if language == "python" else "ir",
                                    "language": language}},
        "nbformat": 4, "nbformat_minor": 5,
    }, indent=1)


BUGGY_NOTEBOOK = [
    ("code", HEADER.splitlines(keepends=True)
     + ["%matplotlib inline\n", "!pip list\n", "np.sum?\n", "?jax\n"]),
    ("markdown", "# The kernel\n"),
    ("code", "%%bash\necho not python\n"),
    ("code", KERNEL_CELL),
]


def test_notebook_code_cells_are_checked_and_reported_per_cell(tmp_path):
    write(tmp_path / "nb.ipynb", notebook(BUGGY_NOTEBOOK))
    col = KERNEL_CELL.splitlines()[NB_BUG_LINE - 1].index("sems)") + 1
    r = run_cli("check", "nb.ipynb", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert r.stdout.startswith(f"nb.ipynb:cell 3:{NB_BUG_LINE}:{col}: PAL001 ")
    assert f"declared at cell 3, line {NB_DECL_LINE}" in r.stdout
    r = run_cli("check", "--output-format", "json", ".", cwd=tmp_path)   # folders include notebooks
    (item,) = json.loads(r.stdout)
    assert (item["path"], item["cell"], item["line"], item["column"]) == ("nb.ipynb", 3, NB_BUG_LINE, col)
    assert (3, NB_DECL_LINE) in {(rel["cell"], rel["line"]) for rel in item["related"]}
    assert (item["fix"]["edits"][0]["line"], item["fix"]["edits"][0]["column"]) == (NB_BUG_LINE, col)
    r = run_cli("check", "--output-format", "sarif", "nb.ipynb", cwd=tmp_path)
    (result,) = json.loads(r.stdout)["runs"][0]["results"]
    assert result["properties"] == {"cell": 3}
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == NB_BUG_LINE


def test_notebooks_in_other_languages_or_broken_are_not_checked(tmp_path):
    write(tmp_path / "r.ipynb", notebook([("code", "x <- c(1, 2)\n")], language="R"))
    r = run_cli("check", "r.ipynb", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "")
    assert "r.ipynb: not a Python notebook, not checked" in r.stderr
    write(tmp_path / "broken.ipynb", "{not json")
    r = run_cli("check", "broken.ipynb", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (1, "")
    assert r.stdout.startswith("broken.ipynb:1:1: E902 not a valid notebook (invalid JSON")


def test_notebook_fix_edits_the_cell_and_keeps_ipython_lines(tmp_path):
    path = write(tmp_path / "nb.ipynb", notebook(BUGGY_NOTEBOOK))
    before = path.read_text()
    r = run_cli("check", "--diff", "nb.ipynb", cwd=tmp_path)
    assert r.returncode == 1 and path.read_text() == before
    assert "-   \"source\": \"%load_ext autoreload" in r.stdout
    r = run_cli("check", "--fix", "nb.ipynb", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    cells = json.loads(path.read_text())["cells"]
    assert cells[3]["source"] == KERNEL_CELL.replace("buf.at[slot], sems)", "buf.at[slot], sems.at[slot])")
    assert cells[0]["source"] == json.loads(before)["cells"][0]["source"]   # magics untouched
    assert run_cli("check", "nb.ipynb", cwd=tmp_path).returncode == 0


# ---------------------------------------------------------------------------------------
# output


def test_default_path_is_the_working_folder(tmp_path):
    write(tmp_path / "pkg" / "k.py", DMA_BUG)
    r = run_cli("check", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout.startswith(f"{os.path.join('pkg', 'k.py')}:{DMA_BUG_LINE}:{DMA_BUG_COL}: PAL001 ")


def test_full_and_concise_formats(tmp_path):
    write(tmp_path / "k.py", DMA_BUG)
    concise = run_cli("check", "--output-format", "concise", "k.py", cwd=tmp_path)
    assert concise.stdout == run_cli("check", "--format", "text", "k.py", cwd=tmp_path).stdout
    headline = concise.stdout.splitlines()[0]
    full = run_cli("check", "--output-format", "full", "k.py", cwd=tmp_path)
    assert full.returncode == 1
    pad = " " * (DMA_BUG_COL - 1)
    assert full.stdout.splitlines()[:7] == [
        headline,
        "  |",
        f"{DMA_BUG_LINE} | {DMA_BUG.splitlines()[DMA_BUG_LINE - 1]}",
        f"  | {pad}^^^^ PAL001",
        "  |",
        "  = help: Index the semaphore: `sems.at[slot]`",
        "",
    ]
    assert full.stdout.endswith("Found 1 error in 1 file (1 file checked).\n"
                                "[*] 1 fixable with `pallas-lsp check --fix`.\n")


def test_statistics_quiet_silent_and_output_file(tmp_path):
    write(tmp_path / "a.py", DMA_BUG)
    write(tmp_path / "b.py", DMA_BUG)
    write(tmp_path / "c.py", READ_WARNING)
    r = run_cli("check", "--statistics", ".", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout == ("2  PAL001  [*] dma-nonscalar-semaphore\n"
                        "1  PAL003      wait-read-nonscalar-semaphore\n")
    r = run_cli("check", "--statistics", "--output-format", "json", ".", cwd=tmp_path)
    assert json.loads(r.stdout)[0] == {"code": "PAL001", "name": "dma-nonscalar-semaphore",
                                       "count": 2, "fixable": True, "fixable_count": 2}
    # a rule some of whose findings have a safe fix is fixable; the count says how many
    write(tmp_path / "d.py", CHOICE_BUG)
    write(tmp_path / "e.py", CHOICE_BUG)
    r = run_cli("check", "--statistics", "--output-format", "json", ".", cwd=tmp_path)
    assert json.loads(r.stdout)[0] == {"code": "PAL001", "name": "dma-nonscalar-semaphore",
                                       "count": 4, "fixable": True, "fixable_count": 2}
    r = run_cli("check", "--statistics", "d.py", "e.py", "c.py", cwd=tmp_path)
    assert r.stdout == ("2  PAL001      dma-nonscalar-semaphore\n"
                        "1  PAL003      wait-read-nonscalar-semaphore\n")
    for name in ("d.py", "e.py"):
        (tmp_path / name).unlink()
    r = run_cli("check", "-q", ".", cwd=tmp_path)
    assert r.returncode == 1
    assert [line.split(": ")[1].split()[0] for line in r.stdout.splitlines()] == [
        "PAL001", "PAL001", "PAL003"]
    r = run_cli("check", "-s", ".", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", "")
    r = run_cli("check", "-o", "report.txt", ".", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (1, "")
    report = (tmp_path / "report.txt").read_text(encoding="utf-8")
    assert "Found 2 errors and 1 warning in 3 files (3 files checked).\n" in report


def test_color(tmp_path, monkeypatch, capsys):
    from pallas_lsp.__main__ import main

    write(tmp_path / "k.py", DMA_BUG)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert main(["check", "--color", "always", "k.py"]) == 1
    assert "\x1b[1mk.py:" in capsys.readouterr().out
    assert main(["check", "k.py"]) == 1          # auto, not a terminal
    assert "\x1b[" not in capsys.readouterr().out
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["check", "k.py"]) == 1          # auto, a terminal
    assert "\x1b[" in capsys.readouterr().out
    monkeypatch.setenv("NO_COLOR", "1")
    assert main(["check", "k.py"]) == 1
    assert "\x1b[" not in capsys.readouterr().out
    monkeypatch.delenv("NO_COLOR")
    assert main(["check", "--color", "never", "k.py"]) == 1
    assert "\x1b[" not in capsys.readouterr().out


def test_any_stdout_encoding_works(tmp_path):
    write(tmp_path / "k.py", DMA_BUG)
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    r = subprocess.run([sys.executable, "-m", "pallas_lsp", "check", "--exit-zero", "k.py"],
                       cwd=tmp_path, env=env, capture_output=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    assert b"Traceback" not in r.stderr
    assert b"(2,) \\u2014 `sems`" in r.stdout      # the dash, escaped


def test_syntax_errors_are_reported(tmp_path):
    write(tmp_path / "ok.py", CLEAN)
    write(tmp_path / "broken.py", "import jax\n\ndef f(:\n    pass\n")
    r = run_cli("check", ".", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout.splitlines() == [
        "broken.py:3:7: E999 SyntaxError: invalid syntax",
        "Found 1 error in 1 file (2 files checked).",
    ]
    r = run_cli("check", "--output-format", "json", "broken.py", cwd=tmp_path)
    (item,) = json.loads(r.stdout)
    assert (item["code"], item["severity"], item["line"], item["rule"]) == ("E999", "error", 3, "syntax-error")
    r = run_cli("check", "--select", "PAL001", "broken.py", cwd=tmp_path)
    assert r.returncode == 1 and "E999" in r.stdout
    r = run_cli("check", "--ignore", "E999", ".", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "All checks passed (2 files checked).\n")
    # --diff: no change, but the file could not be checked
    r = run_cli("check", "--diff", ".", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == "broken.py:3:7: E999 SyntaxError: invalid syntax\nWould fix 0 findings.\n"
    r = run_cli("check", "--diff", "--ignore", "E999", ".", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (0, "Would fix 0 findings.\n")


def test_rule_command():
    r = run_cli("rule", "pal001", cwd=Path.cwd())
    rule = RULES["PAL001"]
    assert r.returncode == 0
    for text in (rule.code, rule.name, f"Severity: {rule.severity}", rule.summary, rule.doc_url):
        assert text in r.stdout
    r = run_cli("rule", "--all", cwd=Path.cwd())
    assert r.returncode == 0
    assert [line for line in r.stdout.splitlines() if line.startswith("# ")] == [
        f"# {rule.name} ({code})" for code, rule in RULES.items()]
    for code, name in (("E902", "io-error"), ("e999", "syntax-error")):
        r = run_cli("rule", code, cwd=Path.cwd())
        assert r.returncode == 0 and r.stdout.startswith(f"# {name} ({code.upper()})")
    r = run_cli("rule", "PAL999", cwd=Path.cwd())
    assert r.returncode == 2
    known = r.stderr.split("(known: ")[1].rstrip(")\n").split(", ")
    assert known == sorted(RULES) and known[:2] == ["E902", "E999"]


# ---------------------------------------------------------------------------------------
# selection and files


def test_select_flags_add_up_and_per_file_ignores(tmp_path):
    write(tmp_path / "dma.py", DMA_BUG)
    write(tmp_path / "sig.py", SIGNAL_BUG)
    write(tmp_path / "tests" / "read.py", READ_WARNING)

    def codes(*args):
        r = run_cli("check", "--output-format", "json", *args, cwd=tmp_path)
        assert r.returncode in (0, 1), r.stderr
        return sorted({(i["path"], i["code"]) for i in json.loads(r.stdout)})

    read = (os.path.join("tests", "read.py"), "PAL003")
    assert codes("--select", "PAL001", "--select", "PAL002") == [("dma.py", "PAL001"), ("sig.py", "PAL002")]
    assert codes("--select", "PAL001", "--extend-select", "PAL003") == [("dma.py", "PAL001"), read]
    assert codes("--ignore", "PAL001", "--ignore", "PAL002") == [read]
    assert codes("--per-file-ignores", "tests/**:PAL003", "--per-file-ignores", "sig.py:PAL") == [
        ("dma.py", "PAL001")]
    write(tmp_path / "pyproject.toml",
          '[tool.pallas-lsp]\nselect = ["PAL001", "PAL003"]\nper-file-ignores = {"tests/**" = ["PAL003"]}\n')
    assert codes() == [("dma.py", "PAL001")]
    assert codes("--extend-select", "PAL002") == [("dma.py", "PAL001"), ("sig.py", "PAL002")]


def test_exclude_flags(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.pallas-lsp]\nexclude = ["gen"]\n')
    for rel in ("a.py", "gen/b.py", "vendor/c.py", "d_pb2.py"):
        write(tmp_path / rel, CLEAN)

    def checked(*args):
        r = run_cli("check", *args, ".", cwd=tmp_path)
        return r.stdout.strip()

    assert checked() == "All checks passed (3 files checked)."
    assert checked("--extend-exclude", "vendor", "--extend-exclude", "*_pb2.py") == \
        "All checks passed (1 file checked)."
    assert checked("--exclude", "vendor/c.py,d_pb2.py") == "All checks passed (2 files checked)."


# ---------------------------------------------------------------------------------------
# fixes


def test_diff_and_show_fixes(tmp_path):
    path = write(tmp_path / "k.py", DMA_BUG)
    r = run_cli("check", "--diff", "k.py", cwd=tmp_path)
    assert r.returncode == 1 and path.read_text() == DMA_BUG
    assert r.stdout.splitlines()[:2] == ["--- a/k.py", "+++ b/k.py"]
    assert "-        pltpu.async_copy(x_hbm.at[slot], buf.at[slot], sems)" in r.stdout
    assert "+        pltpu.async_copy(x_hbm.at[slot], buf.at[slot], sems.at[slot])" in r.stdout
    assert r.stderr == "Would fix 1 finding.\n"
    r = run_cli("check", "--show-fixes", "k.py", cwd=tmp_path)
    assert r.stdout.endswith("Fixes available:\n"
                             f"  k.py:{DMA_BUG_LINE}:{DMA_BUG_COL}: PAL001 Index the semaphore: `sems.at[slot]`\n")
    r = run_cli("check", "--fix", "--show-fixes", "k.py", cwd=tmp_path)
    assert r.returncode == 0
    assert r.stdout.endswith("Fixed 1 finding:\n  k.py: 1 × PAL001 (dma-nonscalar-semaphore)\n")
    r = run_cli("check", "--diff", "k.py", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "")


# The source and destination buffers use different slots: the semaphore's index is a
# choice (`1 - slot`, `slot` or `0`), not a safe fix.
CHOICE_BUG = CLEAN.replace(
    "pltpu.make_async_copy(x_hbm.at[slot], buf.at[slot], sems.at[slot]).start()",
    "pltpu.async_copy(x_hbm.at[slot], buf.at[1 - slot], sems)",
)


def test_a_choice_is_applied_only_with_unsafe_fixes(tmp_path, monkeypatch, capsys):
    from pallas_lsp.__main__ import main

    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / "k.py", CHOICE_BUG)
    assert main(["check", "--fix", "k.py"]) == 1
    out = capsys.readouterr().out
    assert path.read_text() == CHOICE_BUG
    assert "not certain: `sems.at[1 - slot]`, `sems.at[slot]`, `sems.at[0]` or `sems.at[1]`" in out
    assert "(1 more fix available with `--unsafe-fixes`.)" in out and "[*]" not in out
    assert main(["check", "--show-fixes", "k.py"]) == 1
    assert capsys.readouterr().out.endswith("No fixes available.\n")
    assert main(["check", "--output-format", "full", "k.py"]) == 1
    assert "help: Index the semaphore (choice): `sems.at[1 - slot]` (unsafe)" in capsys.readouterr().out
    assert main(["check", "--diff", "k.py"]) == 0
    assert capsys.readouterr().out == ""
    assert main(["check", "--fix", "--unsafe-fixes", "k.py"]) == 0
    out = capsys.readouterr().out
    # The first choice, `sems.at[1 - slot]`, would make the wait that follows hang (PAL303):
    # the first choice that leaves no finding behind is applied.
    assert path.read_text() == CHOICE_BUG.replace("buf.at[1 - slot], sems)", "buf.at[1 - slot], sems.at[slot])")
    assert "Fixed 1 finding." in out and "All checks passed" in out


# ---------------------------------------------------------------------------------------
# serving LSP (the default command)


def _initialize_message() -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    return f"Content-Length: {len(body)}\r\n\r\n{body}".encode()


def _read_response(stream) -> dict:
    """The response with id 1, skipping notifications the server may send first."""
    while True:
        length = None
        while (line := stream.readline()) not in (b"\r\n", b""):
            key, _, value = line.decode().partition(":")
            if key.lower() == "content-length":
                length = int(value)
        assert length is not None, "the server closed the stream"
        message = json.loads(stream.read(length))
        if message.get("id") == 1:
            return message


def test_serves_lsp_over_stdio():
    proc = subprocess.Popen([sys.executable, "-m", "pallas_lsp"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV)
    try:
        proc.stdin.write(_initialize_message())
        proc.stdin.flush()
        assert _read_response(proc.stdout)["result"]["serverInfo"]["name"] == "pallas-lsp"
    finally:
        proc.kill()
        proc.wait()


def test_serves_lsp_over_tcp_with_a_log_file(tmp_path):
    import socket
    import time

    with socket.socket() as probe:  # a free port
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = tmp_path / "server.log"
    proc = subprocess.Popen([sys.executable, "-m", "pallas_lsp", "--tcp", f"127.0.0.1:{port}",
                             "--log-file", str(log), "-v"], env=ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=30)
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, "server did not listen"
                time.sleep(0.1)
        with conn:
            conn.sendall(_initialize_message())
            response = _read_response(conn.makefile("rb"))
        assert response["result"]["serverInfo"]["name"] == "pallas-lsp"
        assert "pallas-lsp" in log.read_text()
    finally:
        proc.kill()
        proc.wait()


def test_folders_that_cannot_be_listed_are_reported(tmp_path, monkeypatch, capsys):
    # (in-process: the tests may run as root, for whom permissions do not stop a listing)
    from pallas_lsp.config import Config
    from pallas_lsp.cli.discover import discover

    write(tmp_path / "ok" / "a.py", CLEAN)
    write(tmp_path / "locked" / "b.py", CLEAN)
    real_scandir = os.scandir

    def scandir(path="."):
        if os.path.basename(os.fspath(path)) == "locked":
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    found = discover([str(tmp_path)], lambda _p: Config())
    assert [p for p, _ in found.files] == [str(tmp_path / "ok" / "a.py")]
    assert found.unlisted == [(str(tmp_path / "locked"), "cannot list folder: Permission denied")]
    # and the run fails, saying why
    from pallas_lsp.__main__ import main

    assert main(["check", "-j", "1", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"{tmp_path / 'locked'}:1:1: E902 cannot list folder: Permission denied" in out
    assert "Found 1 error in 1 file (1 file checked)." in out
    assert main(["check", "-j", "1", "--ignore", "E902", str(tmp_path)]) == 0


# ---------------------------------------------------------------------------------------
# speed


REPO = Path(__file__).resolve().parent.parent


def test_every_file_of_the_repository_is_checked_in_bounded_time(monkeypatch):
    """At most 1 s per 1,000 lines per file (+ 1.5 s of slack: the first files also pay for
    imports and warm-up), each with a fresh workspace and the repository's source folders
    as roots (as `pallas-lsp check tests server` from the repository root gives).  CPU
    time, so that other processes on a loaded machine do not count."""
    import time

    from pallas_lsp import memory
    from pallas_lsp.cli import checker

    roots = (str(REPO), str(REPO / "server"))
    slow = []
    checked = 0
    for folder in ("tests/corpus", "examples", "server"):
        for path in sorted((REPO / folder).rglob("*.py")):
            checker._workspaces.clear()
            task = checker.Task(str(path), None, (), roots=roots)
            # The garbage of the files and tests before is not this file's to collect: the
            # checker's full collection, once the process has grown, would fall on it.
            checked += 1
            if checked % 20 == 1:
                memory.reclaim()
            monkeypatch.setattr(checker, "_GROWTH", memory.GrowthWatch())
            start = time.process_time()
            result = checker.check_file(task)
            elapsed = time.process_time() - start
            lines = path.read_bytes().count(b"\n")
            assert result.error is None, (path, result.error)
            assert not [r for r in result.items if r.finding.code == "E902"], path
            if elapsed > 1.5 + lines / 1000:
                slow.append((str(path.relative_to(REPO)), lines, round(elapsed, 2)))
    assert slow == []


def test_fix_applies_a_safe_contract_fix_and_unsafe_fixes_a_protocol_choice(tmp_path):
    contract = (Path(__file__).parent / "contract" / "pal106_short_semantics_bug.py").read_text()
    path = write(tmp_path / "k.py", contract)
    r = run_cli("check", "--fix", "k.py", cwd=tmp_path)
    assert (r.returncode, "Fixed 1 finding.") == (0, r.stdout.strip().splitlines()[0])
    assert path.read_text() == contract.replace('dimension_semantics=("parallel",)',
                                                'dimension_semantics=("parallel", "arbitrary")')
    protocol = (Path(__file__).parent / "protocol" / "pal302_bias_unwaited_bug.py").read_text()
    path = write(tmp_path / "p.py", protocol)
    assert run_cli("check", "--fix", "p.py", cwd=tmp_path).returncode == 1   # a choice: not applied
    assert path.read_text() == protocol
    assert run_cli("check", "--fix", "--unsafe-fixes", "p.py", cwd=tmp_path).returncode == 0
    assert "    b_copy.start()  # expect: PAL302\n    b_copy.wait()\n" in path.read_text()
