"""Issue 3: names from other modules of the workspace (helpers, scratch builders,
re-exported Pallas aliases), invalidation after a file changes, unknown modules."""

import os

import pytest
from pallas_lsp.analysis.engine import ModuleAnalyzer, analyze_source
from pallas_lsp.analysis.workspace import Workspace

from .helpers import dedent

COMMON = dedent('''
    import jax.numpy as jnp
    from jax.experimental.pallas import tpu as pltpu

    NSLOTS = 2


    def start_copy(src, dst, sem):
        copy = pltpu.make_async_copy(src, dst, sem)
        copy.start()
        return copy


    def slot_sem(sems, slot):
        return sems.at[slot]


    def pipeline_scratch():
        return [pltpu.VMEM((NSLOTS, 8, 128), jnp.float32), pltpu.SemaphoreType.DMA((NSLOTS,))]
''')

COMPAT = dedent('''
    from jax.experimental.pallas import tpu as pltpu
    from jax.experimental import pallas as pl

    SEMS = pltpu.SemaphoreType.DMA((4,))
''')

KERNEL = dedent('''
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu

    from .common import pipeline_scratch, slot_sem, start_copy


    def kernel(x_hbm, o_ref, buf, sems):
        slot = pl.program_id(0) % 2
        start_copy(x_hbm, buf.at[slot], slot_sem(sems, slot)).wait()
        start_copy(x_hbm, buf.at[slot], sems).wait()


    def run(x):
        return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                              grid=(4,), scratch_shapes=pipeline_scratch())(x)
''')


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return str(path)


def make_package(root):
    pkg = root / "mykernels"
    write(pkg / "__init__.py", "")
    write(pkg / "common.py", COMMON)
    return write(pkg / "copy_kernel.py", KERNEL), pkg


def test_helper_and_scratch_builder_from_another_module(tmp_path):
    path, pkg = make_package(tmp_path)
    fs = analyze_source(KERNEL, path, Workspace([str(tmp_path)]))
    assert [(f.span.line + 1, f.code, f.shape) for f in fs] == [(12, "PAL001", (2,))]
    (f,) = fs
    common = os.path.abspath(pkg / "common.py")
    assert [(r.message, r.span.line + 1, os.path.abspath(r.path)) for r in f.related] == [
        ("the semaphore array is declared here", 18, common),
        ("`start_copy` uses the semaphore here", 8, common),
    ]
    assert "(declared at common.py:18)" in f.message
    assert "passed to `start_copy`, which starts a DMA with it at common.py:8" in f.message


def test_without_a_workspace_other_modules_are_unknown_and_silent(tmp_path):
    make_package(tmp_path)
    assert analyze_source(KERNEL, None, None) == []


def test_missing_module_is_silent(tmp_path):
    path = write(tmp_path / "solo.py", KERNEL.replace("from .common", "from .nowhere"))
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    assert analyze_source(text, path, Workspace([str(tmp_path)])) == []


def test_absolute_import_of_a_compat_module_reexporting_pltpu(tmp_path):
    write(tmp_path / "mylib" / "__init__.py", "")
    write(tmp_path / "mylib" / "compat.py", COMPAT)
    text = dedent('''
        import jax
        from mylib.compat import pl, pltpu, SEMS


        def kernel(x_hbm, o_ref, sems, one):
            pltpu.async_copy(x_hbm, o_ref, one).wait()
            pltpu.async_copy(x_hbm, o_ref, sems).wait()


        def run(x):
            return pl.pallas_call(kernel, out_shape=x,
                                  scratch_shapes=[SEMS, pltpu.SemaphoreType.DMA])(x)
    ''')
    path = write(tmp_path / "app.py", text)
    fs = analyze_source(text, path, Workspace([str(tmp_path)]))
    assert [(f.span.line + 1, f.code, f.shape) for f in fs] == [(7, "PAL001", (4,))]


def test_changed_module_is_picked_up_after_invalidate(tmp_path):
    path, pkg = make_package(tmp_path)
    ws = Workspace([str(tmp_path)])
    analyzer = ModuleAnalyzer(path, ws, package="mykernels")
    assert [f.code for f in analyzer.analyze(KERNEL)] == ["PAL001"]
    # The scratch builder now declares one semaphore: the whole `sems` is fine.
    write(pkg / "common.py", COMMON.replace("pltpu.SemaphoreType.DMA((NSLOTS,))", "pltpu.SemaphoreType.DMA"))
    ws.invalidate(str(pkg / "common.py"))
    assert analyzer.analyze(KERNEL) == analyze_source(KERNEL, path, Workspace([str(tmp_path)])) == []


def test_bad_interpreter_setting_does_not_break_analysis(tmp_path):
    path, _ = make_package(tmp_path)
    ws = Workspace([str(tmp_path)], interpreter=str(tmp_path / "no" / "python"))
    text = KERNEL.replace("from .common import", "from not_installed_anywhere import")
    assert analyze_source(text, path, ws) == []
    assert [f.code for f in analyze_source(KERNEL, path, ws)] == ["PAL001"]


def test_circular_imports_terminate(tmp_path):
    write(tmp_path / "cyc" / "__init__.py", "")
    write(tmp_path / "cyc" / "a.py", "from .b import helper\nX = helper\n")
    write(tmp_path / "cyc" / "b.py", "from .a import X as helper\n")
    text = KERNEL.replace("from .common import pipeline_scratch, slot_sem, start_copy",
                          "from .a import X as start_copy\nfrom .b import helper as slot_sem\n"
                          "pipeline_scratch = start_copy")
    path = write(tmp_path / "cyc" / "k.py", text)
    assert analyze_source(text, path, Workspace([str(tmp_path)])) == []


def test_installed_library_resolves_through_the_interpreter_setting(tmp_path):
    """A helper from a library installed in the project's environment (found through
    the `interpreter` setting, via jedi) is followed like a workspace module."""
    import sys
    import venv

    env = tmp_path / "env"
    venv.create(env, with_pip=False)
    site = env / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    write(site / "fakelib" / "__init__.py", "")
    write(site / "fakelib" / "dma.py", COMMON)
    text = KERNEL.replace("from .common import", "from fakelib.dma import")
    path = write(tmp_path / "project" / "app.py", text)
    python = env / "bin" / "python"
    assert analyze_source(text, path, Workspace([str(tmp_path / "project")])) == []
    fs = analyze_source(text, path, Workspace([str(tmp_path / "project")], interpreter=str(python)))
    assert [(f.span.line + 1, f.code, f.shape) for f in fs] == [(12, "PAL001", (2,))]


IMPORT_FORMS = {
    "from . import module": (
        "from . import common\nstart_copy = common.start_copy\nslot_sem = common.slot_sem\n"
        "pipeline_scratch = common.pipeline_scratch"),
    "import package.module as alias": (
        "import mykernels.common as c\n"
        "start_copy, slot_sem, pipeline_scratch = c.start_copy, c.slot_sem, c.pipeline_scratch"),
    "import package.module": (
        "import mykernels.common\nstart_copy = mykernels.common.start_copy\n"
        "slot_sem = mykernels.common.slot_sem\npipeline_scratch = mykernels.common.pipeline_scratch"),
    "star import": "from mykernels.common import *",
    "re-export from __init__": "from mykernels import pipeline_scratch, slot_sem, start_copy",
}


@pytest.mark.parametrize("form", sorted(IMPORT_FORMS))
def test_import_forms_of_workspace_modules(tmp_path, form):
    path, pkg = make_package(tmp_path)
    write(pkg / "__init__.py", "from .common import pipeline_scratch, slot_sem, start_copy\n")
    text = KERNEL.replace("from .common import pipeline_scratch, slot_sem, start_copy", IMPORT_FORMS[form])
    fs = analyze_source(text, path, Workspace([str(tmp_path)]))
    line = text.split("\n").index("    start_copy(x_hbm, buf.at[slot], sems).wait()") + 1
    assert [(f.span.line + 1, f.code, f.shape) for f in fs] == [(line, "PAL001", (2,))]


def test_set_text_is_read_instead_of_the_file(tmp_path):
    """An editor's unsaved text of another module (the benchmark's mutants, too)."""
    path, pkg = make_package(tmp_path)
    ws = Workspace([str(tmp_path)])
    ws.set_text(str(pkg / "common.py"), COMMON.replace("pltpu.SemaphoreType.DMA((NSLOTS,))", "pltpu.SemaphoreType.DMA"))
    assert analyze_source(KERNEL, path, ws) == []
    ws.set_text(str(pkg / "common.py"), None)
    assert [f.code for f in analyze_source(KERNEL, path, ws)] == ["PAL001"]


# A frozen object holding the semaphores, handed to a helper of another module: the
# semaphores inside remember the call site (a copy of an immutable object is the same
# object to the code), so the caller's document shows the finding.
REFS_CLASSES = {
    "frozen dataclass": "@dataclasses.dataclass(frozen=True)\nclass Refs:\n    buf: Any\n    sems: Any\n",
    "registered": "@jax.tree_util.register_dataclass\n@dataclasses.dataclass(frozen=True)\n"
                  "class Refs:\n    buf: Any\n    sems: Any\n",
    "named tuple": "class Refs(NamedTuple):\n    buf: Any\n    sems: Any\n",
}

REFS_HELPERS = dedent('''
    import dataclasses
    from typing import Any, NamedTuple

    import jax
    from jax.experimental.pallas import tpu as pltpu

    {refs}

    class Processor:
        def __init__(self, src, refs):
            self.src = src
            self.refs = refs

        def process(self, slot):
            pltpu.make_async_copy(self.src, self.refs.buf.at[slot], self.{sem}).start()


    def copy_in(src, refs, slot):
        pltpu.make_async_copy(src, refs.buf.at[slot], {sem}).start()
''')

REFS_KERNEL = dedent('''
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu

    from . import helpers


    def kernel(x_hbm, o_ref, buf, sems):
        refs = helpers.Refs(buf=buf, sems=sems)
        helpers.copy_in(x_hbm, refs, 0)
        helpers.Processor(x_hbm, refs).process(1)


    def run(x):
        return pl.pallas_call(
            kernel,
            out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
            in_specs=[pl.BlockSpec(memory_space=pltpu.ANY)],
            scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
        )(x)
''')


@pytest.mark.parametrize("refs", REFS_CLASSES)
@pytest.mark.parametrize(("sem", "broken"), [("refs.sems", True), ("refs.sems.at[slot]", False)])
def test_frozen_object_holding_semaphores_reports_in_the_caller(tmp_path, refs, sem, broken):
    pkg = tmp_path / "mykernels"
    write(pkg / "__init__.py", "")
    text = REFS_HELPERS.format(refs=REFS_CLASSES[refs], sem=sem)
    helpers = write(pkg / "helpers.py", text)
    path = write(pkg / "kernel.py", REFS_KERNEL)
    fs = analyze_source(REFS_KERNEL, path, Workspace([str(tmp_path)]))
    dmas = [i + 1 for i, line in enumerate(text.split("\n")) if "make_async_copy" in line]   # process, copy_in
    assert [(f.span.line + 1, f.code, f.shape, f.related[-1].span.line + 1) for f in fs] == (
        [(11, "PAL001", (2,), dmas[1]), (12, "PAL001", (2,), dmas[0])] if broken else [])
    assert all(os.path.abspath(f.related[-1].path) == os.path.abspath(helpers) for f in fs)


# A kernel of another module handed to `pallas_call` here (directly, through
# `functools.partial`, or chosen by a branch): its findings report at the kernel
# argument, with the places inside the kernel's module as related locations.
FOREIGN_KERNELS = dedent('''
    from jax.experimental.pallas import tpu as pltpu


    def start(src, dst, sem):
        pltpu.make_async_copy(src, dst, sem).start()


    def copy_kernel(x_hbm, o_ref, buf, sems, *, slot=0):
        start(x_hbm, buf.at[slot], {sem})


    def other_kernel(x_hbm, o_ref, buf, sems):
        pltpu.make_async_copy(x_hbm, buf.at[0], sems.at[0]).start()
''')

FOREIGN_CALLER = dedent('''
    import functools

    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu

    from .kernels import copy_kernel, other_kernel


    def run(x, flag):
        kernel = {kernel}
        return pl.pallas_call(
            kernel,
            out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
            in_specs=[pl.BlockSpec(memory_space=pltpu.ANY)],
            scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
        )(x)
''')


@pytest.mark.parametrize("kernel", ["copy_kernel", "functools.partial(copy_kernel, slot=1)",
                                    "copy_kernel if flag else other_kernel"])
@pytest.mark.parametrize(("sem", "broken"), [("sems", True), ("sems.at[slot]", False)])
def test_kernel_of_another_module_reports_at_the_kernel_argument(tmp_path, kernel, sem, broken):
    pkg = tmp_path / "mykernels"
    write(pkg / "__init__.py", "")
    kernels = write(pkg / "kernels.py", FOREIGN_KERNELS.format(sem=sem))
    text = FOREIGN_CALLER.format(kernel=kernel)
    fs = analyze_source(text, write(pkg / "caller.py", text), Workspace([str(tmp_path)]))
    assert [(f.span.line + 1, f.code, f.shape) for f in fs] == ([(14, "PAL001", (2,))] if broken else [])
    assert [[(r.span.line + 1, r.path and os.path.abspath(r.path)) for r in f.related] for f in fs] == (
        [[(17, None), (5, os.path.abspath(kernels)), (9, os.path.abspath(kernels))]] if broken else [])
    assert all("passed to `copy_kernel" in f.message for f in fs)


# Two modules away: `pl.kernel(body=[...], mesh=[...])` here runs a kernel of another
# module that hands its semaphores, in a frozen object, to a class of a third module.
HOP_MANAGER = dedent('''
    import dataclasses
    from typing import Any

    from jax.experimental.pallas import tpu as pltpu


    @dataclasses.dataclass(frozen=True)
    class Manager:
        sems: Any

        def send(self, src, dst, slot):
            pltpu.make_async_copy(src, dst, {sem}).start()
''')

HOP_KERNELS = dedent('''
    from .manager import Manager


    def scs_kernel(x_ref, o_ref, *, n, sems, **unused):
        Manager(sems).send(x_ref, o_ref, 1)


    def tec_kernel(x_ref, o_ref, *, n, **unused):
        pass
''')

HOP_WRAPPER = dedent('''
    import functools

    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu

    from .kernels import scs_kernel, tec_kernel


    def run(x, mesh_a, mesh_b):
        return pl.kernel(
            body=[functools.partial(scs_kernel, n=2), functools.partial(tec_kernel, n=2)],
            mesh=[mesh_a, mesh_b],
            out_type=jax.ShapeDtypeStruct((8, 128), jnp.float32),
            scratch_types=dict(sems=pltpu.SemaphoreType.DMA((2,)) @ mesh_a),
        )(x)
''')


@pytest.mark.parametrize(("sem", "broken"), [("self.sems", True), ("self.sems.at[slot]", False)])
def test_list_of_kernel_bodies_of_another_module_two_imports_away(tmp_path, sem, broken):
    pkg = tmp_path / "mykernels"
    write(pkg / "__init__.py", "")
    manager = write(pkg / "manager.py", HOP_MANAGER.format(sem=sem))
    write(pkg / "kernels.py", HOP_KERNELS)
    fs = analyze_source(HOP_WRAPPER, write(pkg / "wrapper.py", HOP_WRAPPER), Workspace([str(tmp_path)]))
    body = HOP_WRAPPER.split("\n")[12].index("scs_kernel, n=2")
    assert [(f.span.line + 1, f.span.col, f.code, f.shape) for f in fs] == (
        [(13, body, "PAL001", (2,))] if broken else [])
    assert all(any(r.path and os.path.abspath(r.path) == os.path.abspath(manager) and r.span.line + 1 == 12
                   for r in f.related) for f in fs)
