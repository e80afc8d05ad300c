"""The array model's dtypes against JAX's promotion, and its shapes and texts."""

from __future__ import annotations

import itertools

import pytest

from pallas_lsp.analysis.arrays.dtypes import (
    DType, TypePromotionError, bits, by_name, promote, short,
)
from pallas_lsp.analysis.arrays.shapes import ArrayV, Rejected, broadcast, join_arrays, text

NAMES = ["bool", "int4", "int8", "int16", "int32", "uint4", "uint8", "uint16", "uint32",
         "bfloat16", "float16", "float32", "float8_e4m3fn", "float8_e5m2"]
WEAK = [DType("int32", True), DType("float32", True)]
ALL = [DType(n) for n in NAMES] + WEAK


def _jax_lattice(a: DType, b: DType) -> DType:
    import jax
    import jax.numpy as jnp
    from jax._src import dtypes as jax_dtypes

    structs = [jax.ShapeDtypeStruct((), jnp.dtype(d.name), weak_type=d.weak) for d in (a, b)]
    found = []

    def traced(x: object, y: object) -> object:  # tracers carry the weak flag
        found.append(jax_dtypes.lattice_result_type(x, y))
        return x

    jax.eval_shape(traced, *structs)
    dtype, weak = found[0]
    return DType(str(dtype), bool(weak))


def _model(a: DType, b: DType) -> DType | str:
    try:
        return promote(a, b)
    except TypePromotionError:
        return "error"


def test_promote_matches_jax_lattice() -> None:
    """Every pair, weak ones included, against what `jnp` operations promote to."""
    pytest.importorskip("jax", reason="promotion is checked against jax")
    wrong = []
    for a, b in itertools.product(ALL, ALL):
        try:
            expected: DType | str = _jax_lattice(a, b)
        except Exception:
            expected = "error"
        if _model(a, b) != expected:
            wrong.append((a, b, _model(a, b), expected))
    assert not wrong


def test_promote_strong_matches_promote_types() -> None:
    jnp = pytest.importorskip("jax.numpy", reason="promotion is checked against jax")
    wrong = []
    for a, b in itertools.product(NAMES, NAMES):
        try:
            expected: DType | str = DType(str(jnp.promote_types(a, b)))
        except Exception:
            expected = "error"
        if _model(DType(a), DType(b)) != expected:
            wrong.append((a, b, _model(DType(a), DType(b)), expected))
    assert not wrong


def test_promotion_examples() -> None:
    f32w, i32w = DType("float32", True), DType("int32", True)
    assert promote(f32w, DType("bfloat16")) == DType("bfloat16")
    assert promote(i32w, DType("bfloat16")) == DType("bfloat16")
    assert promote(f32w, DType("int32")) == DType("float32", True)
    assert promote(DType("bfloat16"), DType("float16")) == DType("float32")
    assert promote(DType("int8"), DType("uint8")) == DType("int16")
    assert promote(DType("bool"), DType("int32")) == DType("int32")


def test_short_names_and_bits() -> None:
    assert [short(DType(n)) for n in ("float32", "bfloat16", "int8", "uint32", "bool",
                                      "float8_e4m3fn")] == [
        "f32", "bf16", "i8", "u32", "bool", "f8e4m3fn"]
    assert short(DType("float32", True)) == "f32~"
    assert bits(DType("bfloat16")) == 16 and bits(DType("int4")) == 4
    assert bits(DType("bool")) == 8


def test_by_name() -> None:
    assert by_name("float") == DType("float32")
    assert by_name("int") == DType("int32")
    assert by_name("bool_") == DType("bool") == by_name("bool")
    assert by_name("float64") == DType("float32")
    assert by_name("complex64") is None


def test_text() -> None:
    f32 = DType("float32")
    assert text(ArrayV(("bm", 128), f32)) == "f32[bm, 128]"
    assert text(ArrayV((), DType("bfloat16"))) == "bf16[]"
    assert text(ArrayV((8,), DType("int32", True))) == "i32~[8]"
    assert text(ArrayV((8, 128), None)) == "?[8, 128]"
    assert text(ArrayV(None, f32)) == "f32[...]"


def test_join() -> None:
    f32, bf16 = DType("float32"), DType("bfloat16")
    assert join_arrays(ArrayV((8, 128), f32), ArrayV((8, 128), f32)) == ArrayV((8, 128), f32)
    assert join_arrays(ArrayV((8, 128), f32), ArrayV((16, 128), bf16)) == ArrayV(
        ("?", 128), None)
    assert join_arrays(ArrayV((8,), f32), ArrayV((8, 1), f32)) == ArrayV(None, f32)


def test_broadcast_with_named_dims() -> None:
    assert broadcast(("bm", 128), (128,)) == ("bm", 128)
    assert broadcast(("bm", 1), (1, 128)) == ("bm", 128)
    assert broadcast(("bm",), ("bm",)) == ("bm",)
    assert broadcast(("bm",), ("bn",)) == ("?",)
    assert broadcast(("bm", 128), (256,)) is None  # certain failure, but not in JAX's words
    assert broadcast((16, 256), (16,)) == Rejected(
        "Incompatible shapes for broadcasting: shapes=[(16, 256), (16,)]")
    assert broadcast(None, (3,)) is None


def test_named_dims_through_operations() -> None:
    from pallas_lsp.analysis.arrays.args import Dims, DTypeArg, Py
    from pallas_lsp.analysis.arrays.table import apply

    bf16, f32 = DType("bfloat16"), DType("float32")
    x, w = ArrayV(("bm", 128), bf16), ArrayV((128, 256), bf16)
    acc = apply("jax.numpy.dot", [x, w], {"preferred_element_type": DTypeArg(f32)})
    assert acc == ArrayV(("bm", 256), f32)
    assert apply("operator.add", [acc, Py(1.0)], {}) == ArrayV(("bm", 256), f32)
    assert apply("jax.numpy.sum", [acc], {"axis": Py(-1)}) == ArrayV(("bm",), f32)
    assert apply("jax.numpy.reshape", [acc, Dims(("bm", 2, 128))], {}) == ArrayV(
        ("bm", 2, 128), f32)
    assert apply("Array.reshape", [acc, Py(-1)], {}) == ArrayV(("?",), f32)
    assert apply("Array.shape", [acc], {}) == Dims(("bm", 256))
    assert apply("jax.numpy.zeros", [Dims(("bm", 128))], {}) == ArrayV(("bm", 128), f32)
    assert apply("jax.numpy.zeros", [Py((-1, 128))], {}) == ArrayV(None, f32)  # JAX raises
    assert apply("operator.add", [Py(1), Py(2)], {}) is None
    assert apply("jax.numpy.dot", [x, ArrayV((256, 8), bf16)], {}) == Rejected(
        "dot_general requires contracting dimensions to have the same shape, "
        "got (128,) and (256,).")
    assert apply("jax.numpy.sum", [x], {"where": Py(True)}) is None  # not modelled
    assert apply("jax.numpy.nonexistent", [x], {}) is None


def test_memoised_answers_keep_python_types_apart() -> None:
    """`1`, `1.0` and `True` are equal in Python but promote differently: the model's
    memoised answer for one must not be given for another (an earlier analysis of a
    module with `jnp.where(c, 1.0, 0.0)` once made `jnp.where(c, 1, 0)` float32)."""
    from pallas_lsp.analysis.arrays.args import Py
    from pallas_lsp.analysis.arrays.domain import _model
    from pallas_lsp.analysis.caches import CACHES

    assert Py(1) != Py(1.0) and Py(1) != Py(True) and Py((1, 2)) != Py((1.0, 2))
    assert Py((1, None)) == Py((1, None)) and hash(Py((1, None))) == hash(Py((1, None)))
    CACHES.array_ops.clear()
    cond = ArrayV((8, 128), by_name("bool"))
    expected = [((1.0, 0.0), DType("float32", True)), ((1, 0), DType("int32", True)), ((True, False), by_name("bool"))]
    for (a, b), dtype in expected:
        result = _model("jax.numpy.where", [cond, Py(a), Py(b)], {})
        assert isinstance(result, ArrayV) and result.dtype == dtype and result.shape == (8, 128), (a, b, result)
