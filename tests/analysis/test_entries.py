"""Which top-level functions are analysed on their own (entries) and which only from
their callers: a function outside the creator closure (it makes no semaphore type, and
names nothing that may) is skipped, without losing a finding."""

import os

import pytest

from pallas_lsp.analysis.engine import ModuleAnalyzer, analyze_source
from pallas_lsp.analysis.workspace import Workspace

from .helpers import dedent

HEADER = dedent('''
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu
''')

KERNEL = dedent('''


    def kernel(x_hbm, o_ref, buf, sems):
        pltpu.make_async_copy(x_hbm, buf.at[0], sems).start()
''')


def wrapper(scratch):
    return dedent(f'''


        def run(x):
            return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                                  scratch_shapes={scratch})(x)
    ''')


def codes(text, path=None, workspace=None):
    return [(f.code, f.span.line + 1) for f in analyze_source(text, path, workspace)]


def dma_line(text):
    return text.split("\n").index("    pltpu.make_async_copy(x_hbm, buf.at[0], sems).start()") + 1


def test_a_pallas_call_without_semaphores_is_analysed_for_its_contract_only():
    text = HEADER + KERNEL + wrapper("[pltpu.VMEM((2, 8, 128), jnp.float32), pltpu.VMEM((8,), jnp.float32)]")
    analyzer = ModuleAnalyzer()
    assert analyzer.analyze(text) == []
    # the four imports and `run` (its pallas_call's contract) ran; `kernel` cannot be
    # given a semaphore, so it is not analysed on its own
    assert analyzer.stats == {"blocks": 6, "entries_run": 5, "moved": 0, "spliced": 0, "calls_remembered": 0}


def test_the_contract_of_a_pallas_call_without_semaphores_is_checked():
    text = HEADER + KERNEL + wrapper("[pltpu.VMEM((2, 8, 128), jnp.float32)]")
    kernel_line = text.split("\n").index("def kernel(x_hbm, o_ref, buf, sems):") + 1
    assert codes(text) == [("PAL101", kernel_line)]


def test_scratch_from_a_constant_built_from_another_constant():
    text = HEADER + dedent('''

        SEMS = [pltpu.SemaphoreType.DMA((2,))]
        SCRATCH = [pltpu.VMEM((2, 8, 128), jnp.float32)] + SEMS
    ''') + KERNEL + wrapper("SCRATCH")
    assert codes(text) == [("PAL001", dma_line(text))]


def test_scratch_from_a_helper_calling_a_helper():
    text = HEADER + dedent('''


        def sems():
            return [pltpu.SemaphoreType.DMA((2,))]


        def scratch():
            return [pltpu.VMEM((2, 8, 128), jnp.float32)] + sems()
    ''') + KERNEL + wrapper("scratch()")
    assert codes(text) == [("PAL001", dma_line(text))]


def test_scratch_imported_inside_the_function(tmp_path):
    pkg = tmp_path / "mykernels"
    os.makedirs(pkg)
    (pkg / "__init__.py").write_text("")
    (pkg / "specs.py").write_text(HEADER + "\nSCRATCH = [pltpu.VMEM((2, 8, 128), jnp.float32), "
                                  "pltpu.SemaphoreType.DMA((2,))]\n")
    text = HEADER + KERNEL + dedent('''


        def run(x):
            from .specs import SCRATCH
            return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                                  scratch_shapes=SCRATCH)(x)
    ''')
    path = str(pkg / "copy_kernel.py")
    (pkg / "copy_kernel.py").write_text(text)
    assert codes(text, path, Workspace([str(tmp_path)])) == [("PAL001", dma_line(text))]


# A name that only a star import provides (every `pallas_call` is then analysed) is tested
# in test_workspace.py::test_import_forms_of_workspace_modules[star import].


SCOPED_KERNEL = dedent('''


    def kernel(x_hbm, o_ref, buf):
        def body(sems):
            pltpu.make_async_copy(x_hbm, buf.at[0], sems).start()
        pl.run_scoped(body, pltpu.SemaphoreType.DMA((2,)))
''')


def test_a_kernel_its_pallas_call_runs_is_not_run_again_on_its_own():
    """The kernel makes semaphores (an entry of its own), but the `pallas_call` after it
    runs it with its refs: no second run with unknown ones; when no entry runs it any
    more, it is run on its own again, and its finding stays."""
    text = HEADER + SCOPED_KERNEL + wrapper("[pltpu.VMEM((2, 8, 128), jnp.float32)]")
    dma = text.split("\n").index("        pltpu.make_async_copy(x_hbm, buf.at[0], sems).start()") + 1
    analyzer = ModuleAnalyzer()
    assert [(f.code, f.span.line + 1) for f in analyzer.analyze(text)] == [("PAL001", dma)]
    assert analyzer.stats == {"blocks": 6, "entries_run": 5, "moved": 0, "spliced": 0, "calls_remembered": 0}    # imports, `run`; not `kernel`
    unrun = text.replace("pl.pallas_call(kernel,", "pl.pallas_call(lambda *refs: None,")
    assert [(f.code, f.span.line + 1) for f in analyzer.analyze(unrun)] == [("PAL001", dma)]
    assert analyzer.stats == {"blocks": 6, "entries_run": 2, "moved": 0, "spliced": 1, "calls_remembered": 0}    # `run`, then `kernel` on its own
    assert [(f.code, f.span.line + 1) for f in analyze_source(unrun)] == [("PAL001", dma)]


def test_a_function_handed_to_jit_is_analysed_by_its_own_entry():
    """`jax.jit(step)` in another block does not run `step` again with unknown arguments:
    its own entry does, and certainly; when `step` leaves the closure, the block that
    hands it on runs it again, and every text gives what a fresh analysis gives."""
    step = dedent('''


        def step(x_hbm, buf):
            def body(sems):
                pltpu.make_async_copy(x_hbm, buf.at[0], sems).start()
            pl.run_scoped(body, pltpu.SemaphoreType.DMA((2,)))


        fast_step = jax.jit(step)
    ''')
    text = HEADER + step
    dma = text.split("\n").index("        pltpu.make_async_copy(x_hbm, buf.at[0], sems).start()") + 1
    analyzer = ModuleAnalyzer()
    for version in (text, text.replace("pltpu.SemaphoreType.DMA((2,))", "pltpu.VMEM((2,), jnp.float32)"), text):
        got = [(f.code, f.span.line + 1) for f in analyzer.analyze(version)]
        assert got == [(f.code, f.span.line + 1) for f in analyze_source(version)]
        assert got == ([("PAL001", dma)] if version is text else [])


def test_a_kernel_run_only_where_its_call_may_not_run_is_also_run_on_its_own():
    """A `pallas_call` under a condition the code does not decide runs its kernel under
    that doubt (its protocol is only warned about): the kernel's own entry runs it too."""
    text = HEADER + SCOPED_KERNEL + dedent('''


        def run(x, flag):
            if flag:
                return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                                      scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32)])(x)
            return x
    ''')
    analyzer = ModuleAnalyzer()
    analyzer.analyze(text)
    assert analyzer.stats == {"blocks": 6, "entries_run": 6, "moved": 0, "spliced": 0, "calls_remembered": 0}    # imports, `run` and `kernel`


SHARDED_HEADER = HEADER.replace("import jax\n", "import jax\nfrom jax.sharding import PartitionSpec as P\n")


def sharded(apply):
    """A wrapper that hands a per-device function to `jax.shard_map` (`apply`: how the
    mapped function is called, or kept)."""
    return dedent(f'''


        def run(x, mesh):
            def per_device(part):
                return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                                      scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32)])(part)
            mapped = jax.shard_map(per_device, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
            {apply}
    ''')


@pytest.mark.parametrize("apply, certain", [
    ("return jax.shard_map(per_device, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)", True),
    ("return jax.jit(mapped)(x)", False),          # kept first: handed on, it may be called
    ("return mapped", False),
    ("return jax.vmap(mapped)(x)", False),
])
def test_a_function_shard_map_calls_at_once_surely_runs(apply, certain):
    """JAX traces the function given to `shard_map` once each time the mapped function is
    called: called at once, its `pallas_call` surely runs the kernel, which is then not
    also run on its own; kept, returned or handed on, it may or may not run (as before),
    and the kernel's own entry runs too.  The finding is the same either way."""
    text = SHARDED_HEADER + SCOPED_KERNEL + sharded(apply)
    dma = text.split("\n").index("        pltpu.make_async_copy(x_hbm, buf.at[0], sems).start()") + 1
    analyzer = ModuleAnalyzer()
    assert [(f.code, f.span.line + 1) for f in analyzer.analyze(text)] == [("PAL001", dma)]
    # the five imports and `run`; the kernel's own entry only where the call may not run
    assert analyzer.stats["entries_run"] == (6 if certain else 7)
    assert [(f.code, f.span.line + 1) for f in analyze_source(text)] == [("PAL001", dma)]


def test_shard_map_edits_give_what_a_fresh_analysis_gives():
    """Editing the wrapper between calling the mapped function at once and keeping it: the
    kernel's own entry runs again when no entry surely runs the kernel any more."""
    head = SHARDED_HEADER
    analyzer = ModuleAnalyzer()
    for apply in ["return jax.shard_map(per_device, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)",
                  "return jax.jit(mapped)(x)", "return jax.shard_map(per_device, mesh=mesh)(x)", "return mapped"]:
        text = head + SCOPED_KERNEL.replace("buf.at[0], sems", "buf.at[0], sems.at[0]") + sharded(apply)
        for version in (text, head + SCOPED_KERNEL + sharded(apply)):
            got = [(f.code, f.span.line, f.severity) for f in analyzer.analyze(version)]
            assert got == [(f.code, f.span.line, f.severity) for f in analyze_source(version)]


def test_of_two_entries_at_one_place_the_one_that_knows_the_declaration_is_kept():
    """The kernel's own entry knows `sems` only by its use (`(?, ?)`), the `pallas_call`'s
    run knows its declaration (`(2, n - 1)`): that one is shown, whichever ran first."""
    text = HEADER + dedent('''


        def kernel(x_hbm, o_ref, buf, sems):
            kind = pltpu.SemaphoreType.REGULAR   # names a semaphore type: an entry of its own
            pltpu.make_async_copy(x_hbm, buf, sems.at[0, 0]).start()
            pltpu.make_async_copy(x_hbm, buf, sems).wait()


        def run(x, n, flag):
            if flag:
                return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                                      scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32),
                                                      pltpu.SemaphoreType.DMA((2, n - 1))])(x)
            return x
    ''')
    found = [(f.code, f.shape) for f in analyze_source(text)]
    assert ("PAL003", (2, "n - 1")) in found and not any("?" in f[1] for f in found)
