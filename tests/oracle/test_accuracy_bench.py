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


def test_run_verdict():
    ok = {"status": "ok", "leftover": [], "exc_type": None, "message": None}
    assert accuracy._run_verdict(ok) == "clean"
    assert accuracy._run_verdict(None) == "no record"
    assert accuracy._run_verdict({**ok, "status": "timeout"}) == "hangs"
    assert accuracy._run_verdict({**ok, "status": "error", "exc_type": "ValueError",
                                  "message": "bad"}) == "raises ValueError: bad"
    left = "Semaphore 7 has non-zero count for 0 (global core 0) at kernel exit: 1"
    assert accuracy._run_verdict({**ok, "leftover": [left]}) == f"leaves a semaphore signalled: {left}"


LEAKY = '''
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, buf, sems):
    pltpu.make_async_copy(x_hbm, buf, sems.at[0]).start()
    o_ref[...] = jnp.zeros_like(o_ref)


def trace():
    out = pl.pallas_call(
        kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
        interpret=True)(jnp.ones((8, 128), jnp.float32))
    jax.block_until_ready(out)
'''


def test_the_tpu_interpreter_run_sees_a_dma_never_waited(tmp_path):
    """What `run_safe_fixes` relies on: with eager DMAs, the runner reports the
    interpreter's "non-zero count at kernel exit" line of a DMA never waited."""
    import os

    import pytest
    from oracle_lib import jax_available, run_jax

    if not jax_available():
        pytest.skip("JAX is not installed: pip install -e '.[oracle]'")
    leaky = tmp_path / "leaky.py"
    leaky.write_text(LEAKY.replace("interpret=True", accuracy.TPU_EAGER))
    waited = tmp_path / "waited.py"
    waited.write_text(leaky.read_text().replace(
        ".start()\n", ".start()\n    pltpu.make_async_copy(x_hbm, buf, sems.at[0]).wait()\n"))
    recs = run_jax([leaky, waited], jobs=2, module_timeout=60)
    verdicts = [accuracy._run_verdict(recs.get(os.path.realpath(p))) for p in (leaky, waited)]
    assert verdicts[0].startswith("leaves a semaphore signalled: Semaphore ")
    assert verdicts[1] == "clean"


def test_modules_run_with_eager_dmas_unless_they_only_trace():
    assert accuracy._eager("f(interpret=True)") == f"f({accuracy.TPU_EAGER})"
    assert accuracy._eager("g(v, pltpu.InterpretParams())") == (
        'g(v, pltpu.InterpretParams(dma_execution_mode="eager"))')
    only_traced = "f(interpret=True)\njax.make_jaxpr(f)(x)"
    assert accuracy._eager(only_traced) == only_traced
