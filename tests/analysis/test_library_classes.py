"""Issue 12: classes whose semaphore fields come from JAX.  A subclass of
`pltpu.BufferedRef` (published pipelines override `copy_in` / `wait_in` / `copy_out`)
sees `self.sem_recvs` / `self.sem_sends`, which JAX's `BufferedRef.create` declares as
`SemaphoreType.DMA((buffer_count,))`: one semaphore per buffer.  The registry models
them (`LibraryClass`); the last test reads the installed JAX source to check that model.

The broken twin is what JAX rejects (`tests/corpus/custom_buffered_ref.py` with the
index stripped: `Cannot signal on a non-()-shaped semaphore: (2,)`)."""

import ast
import importlib.util
from pathlib import Path

import pytest
from pallas_lsp.analysis.pallas.registry import library_fields

from .helpers import analyze, found, line_of

SUBCLASS = """
import dataclasses
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class {name}({base}):
    def copy_in(self, src_ref, grid_indices):
        slot = grid_indices[0] % self.buffer_count
        pltpu.make_async_copy(src_ref, self.window_ref.at[slot], {recv}).start()  # the copy in

    def wait_out(self, dst_ref, grid_indices):
        slot = grid_indices[0] % self.buffer_count
        pltpu.make_async_copy(self.window_ref.at[slot], dst_ref, {send}).wait()  # the wait out
"""

BYPASS = """
class _Bypass(pltpu.BufferedRef):
    def __post_init__(self):
        pass
"""


def _subclass(recv="self.sem_recvs.at[slot]", send="self.sem_sends.at[slot]", base="pltpu.BufferedRef",
              name="StagedRef") -> str:
    src = SUBCLASS.format(name=name, base=base, recv=recv, send=send)
    return src if base == "pltpu.BufferedRef" else src.replace("\n\n@jax", BYPASS + "\n\n@jax", 1)


def test_a_buffered_ref_subclass_sees_one_semaphore_per_buffer():
    src = _subclass(recv="self.sem_recvs")
    assert found(src) == [(line_of(src, "# the copy in"), "PAL001", ("buffer_count",))]
    f = next(f for f in analyze(src) if f.code == "PAL001")
    assert "`self.sem_recvs` is a DMA semaphore array of shape (buffer_count,) (a field JAX gives every " \
           "`pltpu.BufferedRef`)" in f.message


def test_a_buffered_ref_subclass_sees_one_semaphore_per_buffer_correct():
    assert found(_subclass()) == []


def test_a_wait_on_the_whole_array_is_a_warning():
    """JAX does not check a wait's semaphore when tracing (PAL003)."""
    src = _subclass(send="self.sem_sends")
    assert found(src) == [(line_of(src, "# the wait out"), "PAL003", ("buffer_count",))]


def test_through_a_subclass_of_a_subclass():
    src = _subclass(recv="self.sem_recvs", base="_Bypass")
    assert found(src) == [(line_of(src, "# the copy in"), "PAL001", ("buffer_count",))]
    assert found(_subclass(base="_Bypass")) == []


def test_a_class_that_is_not_a_buffered_ref_gets_no_fields():
    assert found(_subclass(recv="self.sem_recvs", base="object")) == []


def _installed_pipeline() -> Path | None:
    spec = importlib.util.find_spec("jax")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "_src" / "pallas" / "mosaic" / "pipeline.py"
    return path if path.exists() else None


def test_the_model_matches_the_installed_jax_source():
    """`BufferedRef.create` builds each field as `None` or `SemaphoreType.<KIND>((n,))`:
    the registry's kind and rank must be those."""
    path = _installed_pipeline()
    if path is None:
        pytest.skip("JAX is not installed: pip install -e '.[oracle]'")
    tree = ast.parse(path.read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "BufferedRef")
    create = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "create")
    built = {}
    for node in ast.walk(create):
        for kw in getattr(node, "keywords", ()):
            if kw.arg in {f.name for f in library_fields("pltpu.BufferedRef")}:
                for sub in ast.walk(kw.value):
                    if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) \
                            and ast.unparse(sub.func.value).endswith("SemaphoreType"):
                        shape = sub.args[0]
                        built[kw.arg] = (sub.func.attr, len(shape.elts) if isinstance(shape, ast.Tuple) else None)
    model = {f.name: (f.kind, len(f.dims)) for f in library_fields("pltpu.BufferedRef")}
    assert built == model


OWN_SOURCE = """
import dataclasses
from jax._src.pallas.mosaic import primitives as tpu_primitives


@dataclasses.dataclass(frozen=True)
class BufferedRef:
    def copy_in(self, src_ref, slot):
        tpu_primitives.make_async_copy(src_ref, self.window_ref.at[slot], {recv}).start()  # JAX's copy in
"""


def test_the_library_class_itself_when_its_source_is_analysed(tmp_path):
    """Checking JAX's own `pipeline.py` (as the published-kernel benchmark does): its
    `BufferedRef` is the registry's `pltpu.BufferedRef`, so its methods see the fields."""
    folder = tmp_path / "jax" / "_src" / "pallas" / "mosaic"
    folder.mkdir(parents=True)
    for d in (tmp_path / "jax", tmp_path / "jax" / "_src", tmp_path / "jax" / "_src" / "pallas", folder):
        (d / "__init__.py").write_text("")
    path = str(folder / "pipeline.py")
    src = OWN_SOURCE.format(recv="self.sem_recvs")
    assert found(src, path) == [(line_of(src, "# JAX's copy in"), "PAL001", ("buffer_count",))]
    assert found(OWN_SOURCE.format(recv="self.sem_recvs.at[slot]"), path) == []
    assert found(src, str(tmp_path / "mine.py")) == []   # another module's class of that name: no fields
