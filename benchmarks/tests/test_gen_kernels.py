"""The kernel generator: exact sizes, determinism, and mistakes that JAX agrees with."""

import ast
import json
import re
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCH))

import gen_kernels


@pytest.mark.parametrize("n", [20, 300, 3000])
def test_exact_line_count_and_parses(n):
    text, _ = gen_kernels.generate(n, seed=3)
    assert text.count("\n") == n
    ast.parse(text)


def test_deterministic_per_seed():
    assert gen_kernels.generate(3000, 1) == gen_kernels.generate(3000, 1)
    assert gen_kernels.generate(3000, 1)[0] != gen_kernels.generate(3000, 2)[0]


def test_rejects_non_positive_size():
    with pytest.raises(ValueError, match="positive"):
        gen_kernels.generate(0)


def test_mistakes_point_at_whole_semaphores():
    text, mistakes = gen_kernels.generate(3000, 0)
    lines = text.split("\n")
    assert "@@" not in text
    assert {m["code"] for m in mistakes} == {"PAL001", "PAL002", "PAL003"}
    for m in mistakes:
        line = lines[m["line"] - 1]
        assert line.strip() == m["text"]
        # the semaphore argument on that line is a bare name, not a `.at[...]` view
        assert re.search(r"\b(sem|sems|flags)\b(?!\.at)", line), line


def test_write_kernel_file_meta(tmp_path):
    meta = gen_kernels.write_kernel_file(tmp_path / "k.py", 1000, seed=0)
    saved = json.loads((tmp_path / "k.py.meta.json").read_text())
    assert saved == meta
    assert meta["lines"] == 1000 == (tmp_path / "k.py").read_text().count("\n")
    assert meta["deliberate_mistakes"]


WRAPPER = re.compile(r"(double_buffer|copy_compute|gather_rows|row_sum|handshake|scoped_copy)_(\d+)")


def test_jax_agrees_with_the_deliberate_mistakes(tmp_path):
    """Trace every semaphore kernel with JAX: PAL001/PAL002 mistakes must raise
    JAX's own non-()-shaped error, PAL003 (no JAX check) and clean kernels must not."""
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    import importlib.util
    import warnings

    path = tmp_path / "kernels.py"
    meta = gen_kernels.write_kernel_file(path, 3000, seed=0)
    spec = importlib.util.spec_from_file_location("bench_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    bad = {m["kernel_index"]: m["code"] for m in meta["deliberate_mistakes"]}
    checked = 0
    for name in dir(mod):
        m = WRAPPER.fullmatch(name)
        if not m:
            continue
        outcomes = set()
        for cols in (128, 256, 512):  # one of them matches the kernel's block width
            x = jax.ShapeDtypeStruct((512, cols), jnp.float32)
            args = (jax.ShapeDtypeStruct((64,), jnp.int32), x) if m.group(1) == "gather_rows" else (x,)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    jax.jit(getattr(mod, name)).trace(*args)
                outcomes.add("ok")
            except Exception as e:  # noqa: BLE001 - any other error is a generator bug
                first = str(e).splitlines()[0]
                outcomes.add("sem" if "non-()-shaped semaphore" in first else first)
        code = bad.get(int(m.group(2)))
        if code in ("PAL001", "PAL002"):
            assert "sem" in outcomes, (name, code, outcomes)
        else:
            assert "ok" in outcomes and "sem" not in outcomes, (name, code, outcomes)
        checked += 1
    assert checked > 50
