"""The accuracy bench's own machinery (no JAX): where mutants are written, and how a
mutant JAX accepts is explained."""

import importlib.util
from pathlib import Path

from oracle_lib import CORPUS, REPO, Mutant, mutants

_spec = importlib.util.spec_from_file_location("accuracy", REPO / "benchmarks" / "accuracy.py")
accuracy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(accuracy)


def test_a_package_mutant_is_written_with_its_package(tmp_path):
    path = CORPUS / "pkg" / "pipelined_sum.py"
    m = mutants(path, indirect=True)[0]
    target, files = accuracy.write_mutant(m, tmp_path)
    assert target == tmp_path / "pkg" / "pipelined_sum.py"
    assert target.read_text() == m.source != path.read_text()
    assert {f.name for f in files} == {p.name for p in (CORPUS / "pkg").glob("*.py")}
    assert (tmp_path / "pkg" / "common.py").read_text() == (CORPUS / "pkg" / "common.py").read_text()


def test_a_single_module_mutant_is_written_alone(tmp_path):
    m = mutants(CORPUS / "dict_scratch.py")[0]
    target, files = accuracy.write_mutant(m, tmp_path)
    assert files == [target] == [tmp_path / "dict_scratch.py"]


def _mutant(source, call="make_async_copy", line=3):
    return Mutant(Path("k.py"), line, 0, call, "sem", "s.at[0]", "s", source)


def test_why_jax_accepts():
    waited = "def k(a, b, s):\n    x = 1\n    pltpu.make_async_copy(a, b, s).wait()\n"
    started = "def k(a, b, s):\n    x = 1\n    pltpu.make_async_copy(a, b, s).start()\n"
    assert "only waited" in accuracy.why_jax_accepts(_mutant(waited), None)
    assert "check this one" in accuracy.why_jax_accepts(_mutant(started), None)
    assert "only waited" in accuracy.why_jax_accepts(_mutant(started), "warning")
    assert "semaphore_read" in accuracy.why_jax_accepts(_mutant(started, "semaphore_read"), None)
    assert "core" in accuracy.why_jax_accepts(_mutant(started, "core_barrier"), "error")
