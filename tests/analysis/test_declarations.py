"""Item 2: every semaphore declaration form and the shape it gives (as JAX 0.10.2 does)."""

import pytest

from .helpers import analyze, found, line_of, text_at

DMA_TEMPLATE = """
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NSLOTS = 2
SCALAR = ()
PAIR = (2,)

def kernel(x_hbm, o_ref, buf, sem):
    cp = pltpu.make_async_copy(x_hbm, buf, sem)
    cp.start()
    cp.wait()

def run(x, nbuf, shape, flag):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), {decl}],
    )(x)
"""

SIGNAL_TEMPLATE = DMA_TEMPLATE.replace(
    "    cp = pltpu.make_async_copy(x_hbm, buf, sem)\n    cp.start()\n    cp.wait()\n",
    "    pl.semaphore_signal(sem, 1)\n",
)

DMA_CASES = [
    ("pltpu.SemaphoreType.DMA", None),
    ("pltpu.SemaphoreType.DMA(())", None),
    ("pltpu.SemaphoreType.DMA(shape=())", None),
    ("pltpu.SemaphoreType.DMA(SCALAR)", None),
    ("pltpu.SemaphoreType.DMA((2,))", (2,)),
    ("pltpu.SemaphoreType.DMA(2)", (2,)),
    ("pltpu.SemaphoreType.DMA(2,)", (2,)),
    ("pltpu.SemaphoreType.DMA([2])", (2,)),
    ("pltpu.SemaphoreType.DMA(shape=(2, 3))", (2, 3)),
    ("pltpu.SemaphoreType.DMA((1,))", (1,)),
    ("pltpu.SemaphoreType.DMA((1, 1))", (1, 1)),
    ("pltpu.SemaphoreType.DMA((0,))", (0,)),
    ("pltpu.SemaphoreType.DMA((NSLOTS,))", (2,)),
    ("pltpu.SemaphoreType.DMA(NSLOTS)", (2,)),
    ("pltpu.SemaphoreType.DMA((NSLOTS, 2 * NSLOTS))", (2, 4)),
    ("pltpu.SemaphoreType.DMA(PAIR)", (2,)),
    ("pltpu.SemaphoreType.DMA((nbuf,))", ("nbuf",)),
    ("pltpu.SemaphoreType.DMA((NSLOTS, nbuf))", (2, "nbuf")),
    ("pltpu.SEMAPHORE((2,), pltpu.SemaphoreType.DMA.dtype)", (2,)),
    ("pltpu.SEMAPHORE((), pltpu.SemaphoreType.DMA.dtype)", None),
    ("pltpu.MemorySpace.SEMAPHORE((3,), pltpu.SemaphoreType.DMA.dtype)", (3,)),
    # Unknown rank: silent (JAX's verdict depends on runtime values).
    ("pltpu.SemaphoreType.DMA(shape)", None),
    ("pltpu.SemaphoreType.DMA(x.shape[:1])", None),
    ("pltpu.SemaphoreType.DMA(tuple(shape))", None),
]

SIGNAL_CASES = [
    ("pltpu.SemaphoreType.REGULAR", None),
    ("pltpu.SemaphoreType.REGULAR(())", None),
    ("pltpu.SemaphoreType.REGULAR((4,))", (4,)),
    ("pltpu.SemaphoreType.REGULAR(shape=[4, 2])", (4, 2)),
    ("pltpu.SemaphoreType.BARRIER", None),
    ("pltpu.SemaphoreType.BARRIER((2,))", (2,)),
    ("pltpu.SEMAPHORE((2,), pltpu.SemaphoreType.REGULAR.dtype)", (2,)),
]


@pytest.mark.parametrize("decl,shape", DMA_CASES, ids=[c[0] for c in DMA_CASES])
def test_dma_declaration_shape(decl, shape):
    src = "\n" + DMA_TEMPLATE.format(decl=decl)
    expected = [] if shape is None else [(line_of(src, "(x_hbm, buf, sem)"), "PAL001", shape)]
    assert found(src) == expected


@pytest.mark.parametrize("decl,shape", SIGNAL_CASES, ids=[c[0] for c in SIGNAL_CASES])
def test_signal_declaration_shape(decl, shape):
    src = "\n" + SIGNAL_TEMPLATE.format(decl=decl)
    expected = [] if shape is None else [(line_of(src, "semaphore_signal(sem"), "PAL002", shape)]
    assert found(src) == expected


def test_unknown_length_known_rank_message_names_the_length():
    src = "\n" + DMA_TEMPLATE.format(decl="pltpu.SemaphoreType.DMA((nbuf,))")
    (f,) = analyze(src)
    assert f.message.startswith("Cannot signal on a non-()-shaped semaphore: (nbuf,)")


def test_message_related_and_fix_for_a_scratch_declaration():
    src = "\n" + DMA_TEMPLATE.format(decl="pltpu.SemaphoreType.DMA((2,))")
    (f,) = analyze(src)
    decl_line = line_of(src, "SemaphoreType.DMA((2,))")
    assert f.code == "PAL001" and f.severity == "error"
    assert text_at(src, f.span) == "sem"
    assert f.message == (
        "Cannot signal on a non-()-shaped semaphore: (2,) — `sem` is a DMA semaphore array "
        f"of shape (2,) (declared at line {decl_line}); pass one semaphore; which index is right is not "
        "certain: `sem.at[0]` or `sem.at[1]`."
    )
    (rel,) = f.related
    assert rel.path is None
    assert rel.span.line + 1 == decl_line
    assert text_at(src, rel.span) == "pltpu.SemaphoreType.DMA((2,))"
    fix = f.fix
    assert fix.sem_text == "sem" and fix.index == ("0",) and not fix.safe
    assert fix.alternatives == (("1",),)
    assert fix.guard_line + 1 == line_of(src, "(x_hbm, buf, sem)")
    assert fix.guard_indent == "    " and fix.guard_target == "sem"
    assert fix.scalar_decl is None


def test_two_dimensional_declaration_suggests_two_indices():
    src = "\n" + DMA_TEMPLATE.format(decl="pltpu.SemaphoreType.DMA((2, 3))")
    (f,) = analyze(src)
    assert (f.fix.index, f.fix.safe) == (("0", "0"), False)
    assert f.message.endswith("not certain: `sem.at[0, 0]`.")


def test_shape_one_declaration_offers_a_scalar_declaration():
    src = "\n" + DMA_TEMPLATE.format(decl="pltpu.SemaphoreType.DMA((1,))")
    (f,) = analyze(src)
    assert f.shape == (1,)
    assert text_at(src, f.fix.scalar_decl) == "pltpu.SemaphoreType.DMA((1,))"
    assert f.fix.scalar_decl_text == "pltpu.SemaphoreType.DMA"


def test_barrier_semaphore_from_get_barrier_semaphore_is_scalar():
    src = """
        import jax
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        def kernel(x_ref, o_ref):
            barrier = pltpu.get_barrier_semaphore()
            pl.semaphore_signal(barrier, 1, device_id=(0,))
            pl.semaphore_wait(barrier, 1)
            o_ref[...] = x_ref[...]

        def run(x):
            return pl.pallas_call(kernel, out_shape=x)(x)
    """
    assert found(src) == []


def test_declaration_held_in_a_module_constant():
    src = """
        import jax
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        SEMS = pltpu.SemaphoreType.DMA((4,))
        ONE = pltpu.SemaphoreType.DMA

        def kernel(x_hbm, o_ref, a, b):
            pltpu.async_copy(x_hbm, o_ref, a).wait()
            pltpu.async_copy(x_hbm, o_ref, b).wait()

        def run(x):
            return pl.pallas_call(kernel, out_shape=x, scratch_shapes=[SEMS, ONE])(x)
    """
    assert found(src) == [(9, "PAL001", (4,))]
