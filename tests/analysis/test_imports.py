"""Item 1: Pallas names are recognised under every import style, and only Pallas names."""

import pytest
from pallas_lsp.analysis.engine import analyze_source
from pallas_lsp.analysis.workspace import Workspace

from .helpers import dedent, found, line_of

# {imports}: the import lines; {copy}: how make_async_copy is spelled; {dma}: how
# SemaphoreType.DMA is spelled; {call}: how pallas_call is spelled.
TEMPLATE = """
{imports}
import jax.numpy as jnp

def kernel(x_hbm, o_ref, buf, sems):
    cp = {copy}(x_hbm, buf, {sem})
    cp.start()
    cp.wait()

def run(x):
    return {call}(
        kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), {dma}((2,))],
    )(x)
"""

STYLES = {
    "from-import-as": (
        ["import jax", "from jax.experimental import pallas as pl",
         "from jax.experimental.pallas import tpu as pltpu"],
        "pltpu.make_async_copy", "pltpu.SemaphoreType.DMA", "pl.pallas_call"),
    "import-dotted-as": (
        ["import jax", "import jax.experimental.pallas as pl", "import jax.experimental.pallas.tpu as pltpu"],
        "pltpu.make_async_copy", "pltpu.SemaphoreType.DMA", "pl.pallas_call"),
    "from-tpu-import-names": (
        ["import jax", "from jax.experimental.pallas import pallas_call",
         "from jax.experimental.pallas import tpu as pltpu",
         "from jax.experimental.pallas.tpu import make_async_copy, SemaphoreType"],
        "make_async_copy", "SemaphoreType.DMA", "pallas_call"),
    "tpu-as-tpu": (
        ["import jax", "from jax.experimental import pallas as pl",
         "from jax.experimental.pallas import tpu as tpu", "pltpu = tpu"],
        "tpu.make_async_copy", "tpu.SemaphoreType.DMA", "pl.pallas_call"),
    "from-pallas-import-tpu": (
        ["import jax", "from jax.experimental import pallas", "from jax.experimental.pallas import tpu",
         "pltpu = tpu"],
        "tpu.make_async_copy", "tpu.SemaphoreType.DMA", "pallas.pallas_call"),
    "rebound-alias": (
        ["import jax", "from jax.experimental import pallas as pl",
         "from jax.experimental.pallas import tpu as pltpu", "copy = pltpu.make_async_copy",
         "DMA = pltpu.SemaphoreType.DMA"],
        "copy", "DMA", "pl.pallas_call"),
    "fully-dotted": (
        ["import jax", "import jax.experimental.pallas", "import jax.experimental.pallas.tpu",
         "pltpu = jax.experimental.pallas.tpu"],
        "jax.experimental.pallas.tpu.make_async_copy",
        "jax.experimental.pallas.tpu.SemaphoreType.DMA", "jax.experimental.pallas.pallas_call"),
    "private-module": (
        ["import jax", "from jax.experimental import pallas as pl",
         "from jax.experimental.pallas import tpu as pltpu",
         "from jax._src.pallas.mosaic.primitives import make_async_copy as mac"],
        "mac", "pltpu.SemaphoreType.DMA", "pl.pallas_call"),
}


def snippet(style, sem):
    imports, copy, dma, call = STYLES[style]
    return "\n" + TEMPLATE.format(imports="\n".join(imports), copy=copy, dma=dma, call=call, sem=sem)


@pytest.mark.parametrize("style", sorted(STYLES))
def test_import_style_whole_array_is_flagged(style):
    src = snippet(style, "sems")
    assert found(src) == [(line_of(src, "(x_hbm, buf, sems)"), "PAL001", (2,))]


@pytest.mark.parametrize("style", sorted(STYLES))
def test_import_style_indexed_is_clean(style):
    assert found(snippet(style, "sems.at[0]")) == []


def test_import_inside_the_kernel_function():
    src = """
        import jax

        def kernel(x_hbm, o_ref, buf, sems):
            from jax.experimental.pallas import tpu as pltpu
            pltpu.async_copy(x_hbm, buf, sems).wait()

        def run(x):
            from jax.experimental import pallas as pl
            from jax.experimental.pallas import tpu as pltpu
            return pl.pallas_call(kernel, out_shape=x,
                                  scratch_shapes=[pltpu.VMEM(x.shape, x.dtype),
                                                  pltpu.SemaphoreType.DMA((3,))])(x)
    """
    assert found(src) == [(5, "PAL001", (3,))]


def test_local_variable_named_pltpu_is_not_pallas():
    src = """
        import jax
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        class FakeCopy:
            def __init__(self, sem):
                self.sem = sem

            def start(self):
                return self.sem

        class Recorder:
            def make_async_copy(self, src, dst, sem):
                return FakeCopy(sem)

        def kernel(x_hbm, o_ref, buf, sems):
            pltpu = Recorder()
            pltpu.make_async_copy(x_hbm, buf, sems).start()

        def run(x):
            return pl.pallas_call(kernel, out_shape=x,
                                  scratch_shapes=[pltpu.VMEM(x.shape, x.dtype),
                                                  pltpu.SemaphoreType.DMA((2,))])(x)
    """
    assert found(src) == []


def test_parameter_named_pltpu_is_not_pallas():
    src = """
        import jax
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        def kernel(x_hbm, o_ref, buf, sems, pltpu=None):
            pltpu.async_copy(x_hbm, buf, sems)

        def run(x, fake):
            return pl.pallas_call(kernel, out_shape=x,
                                  scratch_shapes=[pltpu.VMEM(x.shape, x.dtype),
                                                  pltpu.SemaphoreType.DMA((2,))])(x)
    """
    assert found(src) == []


def test_user_function_named_make_async_copy_is_not_pallas():
    src = """
        import jax
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        class Pending:
            \"\"\"Our own bookkeeping, not a DMA.\"\"\"
            def __init__(self, src, dst, sems):
                self.items = [src, dst, sems]

            def start(self):
                return len(self.items)

        def make_async_copy(src, dst, sems):
            return Pending(src, dst, sems)

        def kernel(x_hbm, o_ref, buf, sems):
            make_async_copy(x_hbm, buf, sems).start()
            o_ref[...] = buf[...]

        def run(x):
            return pl.pallas_call(kernel, out_shape=x,
                                  scratch_shapes=[pltpu.VMEM(x.shape, x.dtype),
                                                  pltpu.SemaphoreType.DMA((2,))])(x)
    """
    assert found(src) == []


def test_user_module_named_make_async_copy_import_is_not_pallas():
    src = """
        import jax
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu
        from mylib.dma import make_async_copy

        def kernel(x_hbm, o_ref, buf, sems):
            make_async_copy(x_hbm, buf, sems).start()

        def run(x):
            return pl.pallas_call(kernel, out_shape=x,
                                  scratch_shapes=[pltpu.VMEM(x.shape, x.dtype),
                                                  pltpu.SemaphoreType.DMA((2,))])(x)
    """
    assert found(src) == []


def test_shadowing_after_import_wins():
    """A later module-level `def make_async_copy` replaces the imported Pallas one."""
    src = """
        import jax
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu
        from jax.experimental.pallas.tpu import make_async_copy

        class Noop:
            def start(self):
                return None

        def make_async_copy(src, dst, sem):
            return Noop()

        def kernel(x_hbm, o_ref, buf, sems):
            make_async_copy(x_hbm, buf, sems).start()

        def run(x):
            return pl.pallas_call(kernel, out_shape=x,
                                  scratch_shapes=[pltpu.VMEM(x.shape, x.dtype),
                                                  pltpu.SemaphoreType.DMA((2,))])(x)
    """
    assert found(src) == []


def test_snippet_template_is_valid_python():
    import ast
    for style in STYLES:
        ast.parse(dedent(snippet(style, "sems")))


def test_optional_import_in_try_except():
    """Libraries that also run without TPU support guard the import; the kernel can only
    run when the import succeeded, so the `try` path is what JAX sees."""
    src = """
        import jax
        try:
            from jax.experimental import pallas as pl
            from jax.experimental.pallas import tpu as pltpu
        except ImportError:
            pl = pltpu = None

        def kernel(x_hbm, o_ref, sems):
            pltpu.async_copy(x_hbm, o_ref, sems).wait()

        def run(x):
            return pl.pallas_call(kernel, out_shape=x,
                                  scratch_shapes=[pltpu.SemaphoreType.DMA((2,))])(x)
    """
    assert found(src) == [(9, "PAL001", (2,))]


def test_module_level_partial_rebinding_the_kernel_name():
    src = """
        import functools
        import jax
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        def kernel(x_hbm, o_ref, sems, *, nslots):
            pltpu.async_copy(x_hbm, o_ref, sems).wait()

        kernel = functools.partial(kernel, nslots=2)

        def run(x):
            return pl.pallas_call(kernel, out_shape=x,
                                  scratch_shapes=[pltpu.SemaphoreType.DMA((2,))])(x)
    """
    assert found(src) == [(7, "PAL001", (2,))]


CORE_MAP_HELPER = """
from jax._src import api, tree_util
from jax._src.pallas import core as pl_core


def kernel(body, *, out_type, scratch_types, mesh):
    # A drop-in `pl.kernel` written with JAX's internal names (published SparseCore
    # kernels do this): `api.jit`, `tree_util.tree_map`, `pl_core.core_map`.
    @api.jit
    def run(*operands):
        arg_refs = tree_util.tree_map(lambda x: x, operands)
        out_refs = tree_util.tree_map(lambda x: x, (out_type,))

        @pl_core.core_map(mesh, scratch_shapes=scratch_types)
        def _(*scratch_refs, **scratch_kwrefs):
            return body(*arg_refs, *out_refs, *scratch_refs, **scratch_kwrefs)

    return run
"""

SPARSE_KERNEL = """
from jax.experimental.pallas import tpu as pltpu

from . import core_map_helper


def main_kernel(x_hbm, o_hbm, *, sem_ref):
    recv_sem = {recv}
    pltpu.make_async_copy(x_hbm, o_hbm, recv_sem).start()  # the copy


def run(x, mesh):
    return core_map_helper.kernel(main_kernel, out_type=x, mesh=mesh,
                                  scratch_types=dict(sem_ref=pltpu.SemaphoreType.DMA((2,))))(x)
"""


def test_jax_internal_names_of_jit_and_tree_map_are_the_public_ones(tmp_path):
    """`jax._src.api.jit` is `jax.jit` and `jax._src.tree_util.tree_map` is
    `jax.tree_util.tree_map`: mapped over the operands it keeps their number, so the
    wrapper's `body(*arg_refs, *out_refs, *scratch_refs, **scratch_kwrefs)` binds, and
    the kernel gets the scratch it declares."""
    pkg = tmp_path / "sc"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "core_map_helper.py").write_text(dedent(CORE_MAP_HELPER))
    ws = Workspace([str(tmp_path)])
    path = str(pkg / "kernel.py")
    for recv, want in (("sem_ref", [("PAL001", (2,))]), ("sem_ref.at[0]", [])):
        src = dedent(SPARSE_KERNEL.format(recv=recv))
        findings = analyze_source(src, path, ws)
        assert [(f.code, tuple(f.shape)) for f in findings] == want
        assert all(f.span.line + 1 == line_of(src, "# the copy") for f in findings)
