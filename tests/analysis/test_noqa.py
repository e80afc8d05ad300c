"""Item 7: `# noqa` suppression as applied by the analysis itself."""

from .helpers import found, line_of

SRC = """
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

def kernel(x_hbm, o_ref, sems, flags):
    pltpu.async_copy(x_hbm, o_ref, sems).wait(){c1}
    pl.semaphore_signal(flags){c2}
    pl.semaphore_read(flags){c3}

def run(x):
    return pl.pallas_call(kernel, out_shape=x,
                          scratch_shapes=[pltpu.SemaphoreType.DMA((2,)),{c4}
                                          pltpu.SemaphoreType.REGULAR((3,))])(x)
"""


def src(c1="", c2="", c3="", c4=""):
    return SRC.format(c1=c1, c2=c2, c3=c3, c4=c4)


def codes(s):
    return [(line, code) for line, code, _ in found(s)]


def test_without_noqa_every_finding_is_reported():
    s = src()
    assert codes(s) == [(line_of(s, "o_ref, sems)"), "PAL001"), (line_of(s, "signal(flags)"), "PAL002"),
                        (line_of(s, "read(flags)"), "PAL003")]


def test_code_specific_noqa_suppresses_only_that_code():
    s = src(c1="  # noqa: PAL001", c2="  # noqa: PAL001", c3="  # noqa: PAL003")
    assert codes(s) == [(line_of(s, "signal(flags)"), "PAL002")]


def test_bare_noqa_suppresses_everything_on_its_line():
    s = src(c1="  # noqa", c2="  # NOQA", c3="  # noqa:PAL001,PAL003")
    assert codes(s) == []


def test_noqa_on_the_declaration_does_not_hide_the_use():
    s = src(c4="  # noqa: PAL001")
    assert [c for _, c in codes(s)] == ["PAL001", "PAL002", "PAL003"]


def test_noqa_applies_to_the_line_of_the_semaphore_argument():
    s = """
        import jax
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        def kernel(x_hbm, o_ref, sems):
            pltpu.async_copy(  # noqa: PAL001
                x_hbm,
                o_ref,
                sems,
            ).wait()
            pltpu.async_copy(
                x_hbm, o_ref,
                sems,  # noqa: PAL001
            ).wait()

        def run(x):
            return pl.pallas_call(kernel, out_shape=x,
                                  scratch_shapes=[pltpu.SemaphoreType.DMA((2,))])(x)
    """
    assert found(s) == [(9, "PAL001", (2,))]


def test_noqa_at_a_helper_call_site():
    s = """
        import jax
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        def copy(src, dst, sem):
            pltpu.async_copy(src, dst, sem).wait()

        def kernel(x_hbm, o_ref, sems):
            copy(x_hbm, o_ref, sems)  # noqa: PAL001
            copy(x_hbm, o_ref, sems)

        def run(x):
            return pl.pallas_call(kernel, out_shape=x,
                                  scratch_shapes=[pltpu.SemaphoreType.DMA((2,))])(x)
    """
    assert found(s) == [(10, "PAL001", (2,))]
