"""The values in kernel bodies: the shape and dtype the analysis gives each name, as hover
and inlay hints show them (`ModuleAnalyzer.value_notes`).  What JAX gives the same
names is checked in `tests/oracle/test_value_recorder.py` and `benchmarks/value_accuracy.py`;
the table entry by entry in `tests/arrays/`."""

from __future__ import annotations

from pallas_lsp.analysis.arrays.dtypes import DType
from pallas_lsp.analysis.arrays.notes import generalises, merged
from pallas_lsp.analysis.arrays.shapes import ArrayV
from pallas_lsp.analysis.engine import ModuleAnalyzer

from .helpers import IMPORTS, dedent

HEAD = IMPORTS + "import functools\nimport jax.numpy as jnp\nimport numpy as np\n"


def hints(src: str) -> dict[tuple[int, str], str]:
    """{(line, name): label} of the inlay hints (assignments in kernel bodies) of a module."""
    analyzer = ModuleAnalyzer()
    analyzer.analyze(src)
    return {(n.span.line + 1, n.text): n.label for n in analyzer.value_notes() if n.hinted}


MATMUL = HEAD + """
def matmul_kernel(x_ref, w_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc = jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.float32)
    acc_ref[...] += acc
    k = pl.program_id(2)
    scale = jnp.max(jnp.abs(acc), axis=-1, keepdims=True)
    y = jnp.where(scale > 0, acc / scale, jnp.finfo(jnp.float32).min)
    half = o_ref[...] * 0.5
    promoted = o_ref[...] * np.float32(0.5)
    t = w_ref[...].T
    r = acc.reshape(64, 512)
    out = acc_ref[...].astype(o_ref.dtype)


def matmul(x, w, bm=128, bn=256, bk=512):
    m, kk = x.shape
    _, n = w.shape
    return pl.pallas_call(
        matmul_kernel,
        grid=(m // bm, n // bn, kk // bk),
        in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
                  pl.BlockSpec((bk, bn), lambda i, j, k: (k, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
    )(x, w)


def trace():
    return matmul(jnp.ones((256, 1024), jnp.bfloat16), jnp.ones((1024, 512), jnp.bfloat16))
"""


def test_values_of_a_matmul_kernel_called_by_its_driver():
    got = hints(MATMUL)
    assert got == {
        (13, "acc"): "f32[128, 256]",
        (15, "k"): "i32[]",
        (16, "scale"): "f32[128, 1]",
        (17, "y"): "f32[128, 256]",
        (18, "half"): "bf16[128, 256]",          # a Python float is weak: bf16 stays bf16
        (19, "promoted"): "f32[128, 256]",       # a NumPy scalar is not: it promotes
        (20, "t"): "bf16[256, 512]",
        (21, "r"): "f32[64, 512]",
        (22, "out"): "bf16[128, 256]",
    }


def test_lengths_the_code_does_not_give_keep_their_names():
    src = MATMUL[:MATMUL.index("def trace")]   # no driver: the wrapper runs alone
    got = hints(src)
    assert got[(13, "acc")] == "f32[bm, bn]"
    assert got[(20, "t")] == "?[bn, bk]"       # the input's dtype is not known
    assert got[(22, "out")] == "?[bm, bn]"


def test_loop_carries_indices_and_scalar_prefetch_reads():
    got = hints(HEAD + dedent("""
    def kernel(idx_ref, x_ref, o_ref):
        i = pl.program_id(0)
        row = idx_ref[i]

        def body(j, carry):
            s = carry + x_ref[j].astype(jnp.float32)
            return s

        total = jax.lax.fori_loop(0, 8, body, jnp.zeros((128,), jnp.float32))
        o_ref[...] = jnp.broadcast_to(total[None] + row, (8, 128))

    def run(idx, x):
        return pl.pallas_call(
            kernel,
            grid_spec=pltpu.PrefetchScalarGridSpec(
                num_scalar_prefetch=1, grid=(4,),
                in_specs=[pl.BlockSpec((8, 128), lambda i, idx: (idx[i], 0))],
                out_specs=pl.BlockSpec((8, 128), lambda i, idx: (i, 0))),
            out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
        )(idx, x)

    def trace():
        return run(jnp.arange(4, dtype=jnp.int32), jnp.ones((32, 128), jnp.bfloat16))
    """))
    assert got == {
        (8, "i"): "i32[]",
        (9, "row"): "i32[]",                  # an element of the scalar-prefetch array
        (12, "s"): "f32[128]",
        (15, "total"): "f32[128]",            # a fori_loop's value has its carry's type
    }


SCALE = HEAD + """
x = jnp.ones((8, 128), jnp.float32)


def kernel(x_ref, o_ref):
    two = jnp.asarray(2.0)
    y = x_ref[...] * two
    o_ref[...] = y


out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x)
"""


def test_inlay_hints_are_for_kernel_bodies_and_hover_for_every_value():
    analyzer = ModuleAnalyzer()
    analyzer.analyze(SCALE)
    notes = {(n.span.line + 1, n.text): n for n in analyzer.value_notes()}
    assert not notes[(8, "x")].hinted and notes[(8, "x")].label == "f32[8, 128]"
    assert notes[(12, "two")].hinted and notes[(12, "two")].label == "f32~[]"
    assert "weakly typed" in notes[(12, "two")].describe()
    assert notes[(13, "y")].hinted and notes[(13, "y")].label == "f32[8, 128]"
    assert notes[(13, "x_ref[...]")].describe() == "`x_ref[...]`: `f32[8, 128]`"   # any expression
    assert notes[(13, "x_ref[...] * two")].label == "f32[8, 128]"


def test_a_place_reached_by_several_runs_shows_what_they_agree_on():
    f32 = DType("float32")
    known = ArrayV((128, 512), DType("bfloat16"))
    named = ArrayV(("bm", "bk"), None)
    assert generalises(named, known) and not generalises(known, named)
    assert merged([named, known]) == known
    assert merged([ArrayV((8, 128), f32), ArrayV((16, 128), f32)]) == ArrayV(("?", 128), f32)
    assert merged([ArrayV((8,), f32), ArrayV((8, 1), f32)]) == ArrayV(None, f32)
    # two runs that each know as little as the other (lengths named differently) are joined
    assert merged([ArrayV(("bm", 128), f32), ArrayV(("bn", 128), f32)]) == ArrayV(("?", 128), f32)
