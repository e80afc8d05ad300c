"""Input cases for every entry of the model's table, as small per-group generators."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pallas_lsp.analysis.arrays.args import OPAQUE, Arg, DTypeArg, Py, Seq
from pallas_lsp.analysis.arrays.dtypes import DType
from pallas_lsp.analysis.arrays.shapes import ArrayV

Case = tuple[list[Arg], dict[str, Arg]]
Generator = Callable[[], Iterator[Case]]


def arr(shape: tuple[int, ...], dtype: str = "float32", weak: bool = False) -> ArrayV:
    return ArrayV(shape, DType(dtype, weak))


def dt(name: str) -> DTypeArg:
    return DTypeArg(DType(name))


DTYPES = ["float32", "bfloat16", "int32", "int8", "uint8", "bool"]
OPERANDS = [arr((2, 3), d) for d in DTYPES] + [
    arr((2, 3), "float32", True), arr((2, 3), "int32", True), arr((2, 3), "float16"),
    arr((2, 3), "float8_e4m3fn"),
]
SCALARS: list[Arg] = [Py(2.0), Py(3), Py(True), arr(()), arr((), "int32", True)]
SHAPES = [(), (3,), (2, 3), (2, 1, 4), (1,)]
BINARY_SHAPES = [
    ((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1), (1, 5)), ((), (2, 3)), ((2, 3), (4,)),
    ((1, 3), (2, 1, 3)), ((2, 3), (3, 2)), ((16, 256), (16,)),
]


def unary() -> Iterator[Case]:
    for shape in SHAPES:
        yield [arr(shape)], {}
    for x in [*OPERANDS, *SCALARS]:
        yield [x], {}


def binary() -> Iterator[Case]:
    for a, b in BINARY_SHAPES:
        yield [arr(a), arr(b)], {}
    for x in OPERANDS:
        for y in [*OPERANDS, *SCALARS]:
            yield [x, y], {}
    for y in SCALARS:
        yield [y, OPERANDS[1]], {}


def binary_operator() -> Iterator[Case]:
    """Python operators share the jnp rules: a smaller grid, both operand orders."""
    for a, b in BINARY_SHAPES[:5]:
        yield [arr(a), arr(b)], {}
    for x in OPERANDS[::2]:
        for y in [*OPERANDS[1::2], *SCALARS]:
            yield [x, y], {}
            yield [y, x], {}


def where() -> Iterator[Case]:
    c = arr((2, 3), "bool")
    for x in OPERANDS[:7]:
        for y in [OPERANDS[1], OPERANDS[6], Py(0.0), Py(0)]:
            yield [c, x, y], {}
    yield [arr((3,), "bool"), arr((2, 1)), arr(())], {}
    yield [arr((4,), "bool"), arr((2, 3)), Py(1.0)], {}
    yield [arr((2, 3), "int32"), arr((2, 3)), Py(1.0)], {}


def clip() -> Iterator[Case]:
    for x in OPERANDS[:7]:
        yield [x], {"min": Py(0.0)}
        yield [x, Py(0), Py(6)], {}
        yield [x], {"max": arr((3,), "bfloat16")}
    yield [arr((2, 3))], {"min": arr((4,))}


def gelu() -> Iterator[Case]:
    yield from unary()
    yield [arr((2, 3), "bfloat16")], {"approximate": Py(False)}


def round_() -> Iterator[Case]:
    yield from unary()
    yield [arr((2, 3))], {"decimals": Py(2)}


def _each(*cases: Case) -> Generator:
    return lambda: iter(cases)


GROUPS: dict[Generator, list[str]] = {}


def register(generator: Generator, *names: str) -> None:
    GROUPS.setdefault(generator, []).extend(names)


def cases_for(name: str) -> list[Case]:
    found: list[Case] = []
    for generator, names in GROUPS.items():
        if name in names:
            found.extend(generator())
    return found


_BINARY_NAMES = (
    "add subtract multiply divide true_divide floor_divide remainder mod power maximum "
    "minimum less less_equal greater greater_equal equal not_equal logical_and logical_or "
    "logical_xor bitwise_and bitwise_or bitwise_xor left_shift right_shift"
).split()
_OPERATOR_NAMES = (
    "add sub mul truediv floordiv mod pow lt le gt ge eq ne and_ or_ xor lshift rshift"
).split()
_UNARY_NAMES = (
    "jax.numpy.exp jax.numpy.exp2 jax.numpy.log jax.numpy.log1p jax.numpy.sqrt "
    "jax.numpy.tanh jax.numpy.sin jax.numpy.cos jax.numpy.reciprocal jax.numpy.abs "
    "jax.numpy.absolute jax.numpy.negative jax.numpy.square jax.numpy.floor "
    "jax.numpy.ceil jax.numpy.sign jax.numpy.logical_not jax.numpy.isnan "
    "jax.numpy.isfinite jax.numpy.invert jax.numpy.bitwise_not jax.lax.rsqrt jax.lax.erf "
    "jax.nn.sigmoid jax.nn.silu jax.nn.relu operator.neg operator.invert"
).split()

register(binary, *(f"jax.numpy.{n}" for n in _BINARY_NAMES))
register(binary_operator, *(f"operator.{n}" for n in _OPERATOR_NAMES))
register(binary, *(f"jax.lax.{n}" for n in ("add", "sub", "mul", "div", "rem", "max", "min")))
register(unary, *_UNARY_NAMES)
register(where, "jax.numpy.where")
register(_each(([arr((2, 3), "bool"), arr((2, 3)), arr((2, 3))], {}),
               ([arr((), "bool"), arr((2, 3), "bfloat16"), arr((2, 3), "bfloat16")], {}),
               ([arr((), "bool"), arr((2, 3)), arr((3,))], {}),
               ([arr((2, 3), "bool"), arr((2, 3), "float32", True), arr((2, 3), "float32",
                                                                          True)], {}),
               ([arr((2, 3), "bool"), arr((2, 3), "float32", True), arr((2, 3))], {}),
               ([arr((2, 3), "bool"), arr((2, 3)), arr((2, 3), "bfloat16")], {}),
               ([arr((3,), "bool"), arr((2, 3)), arr((2, 3))], {})), "jax.lax.select")
register(clip, "jax.numpy.clip")
register(gelu, "jax.nn.gelu")
register(round_, "jax.numpy.round")


DOT_DTYPES = [arr((2, 3), d) for d in ("float32", "bfloat16", "int8", "int32", "bool")] + [
    arr((2, 3), "float32", True), arr((2, 3), "int32", True), arr((2, 3), "float8_e4m3fn"),
]
PREFERRED: list[dict[str, Arg]] = [
    {}, {"preferred_element_type": dt("float32")}, {"preferred_element_type": dt("int8")},
    {"preferred_element_type": dt("bfloat16")},
]


def _transposed(x: ArrayV) -> ArrayV:
    assert x.shape is not None
    return ArrayV(tuple(reversed(x.shape)), x.dtype)


def numpy_dot() -> Iterator[Case]:
    shapes = [((2, 3), (3, 4)), ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)),
              ((2, 3), (4, 5)), ((5, 2, 3), (4, 3, 6)), ((5, 2, 3), (5, 3, 6)),
              ((2, 3), (5, 3, 6)), ((), (2, 3)), ((1, 2, 3), (3, 2)), ((16, 128), (256, 8))]
    for a, b in shapes:
        yield [arr(a), arr(b)], {}
    for x in DOT_DTYPES:
        for y in DOT_DTYPES:
            for kwargs in PREFERRED[:2]:
                yield [x, _transposed(y)], kwargs
        yield [x, _transposed(x)], PREFERRED[2]
        yield [x, _transposed(x)], PREFERRED[3]
    yield [arr((2, 3), "bfloat16"), Py(2.0)], {}


def dot_general() -> Iterator[Case]:
    numbers = [(((1,), (0,)), ((), ())), (((1,), (1,)), ((), ())),
               (((2,), (1,)), ((0,), (0,))), (((1,), (0,)), ((), ()))]
    shapes = [((2, 3), (3, 4)), ((2, 3), (4, 3)), ((5, 2, 3), (5, 3, 4)), ((2, 3), (4, 5)),
              ((5, 2, 3), (6, 3, 4))]
    for (a, b), number in zip(shapes, numbers + [numbers[2]]):
        yield [arr(a), arr(b), Py(number)], {}
    for x in DOT_DTYPES:
        for y in DOT_DTYPES:
            for kwargs in PREFERRED[:3]:
                yield [x, _transposed(y), Py(numbers[0])], kwargs


def lax_dot() -> Iterator[Case]:
    for a, b in [((2, 3), (3, 4)), ((3,), (3,)), ((2, 3), (3,)), ((2, 3), (4, 5))]:
        yield [arr(a), arr(b)], {}
    for x in DOT_DTYPES:
        for kwargs in PREFERRED:
            yield [x, _transposed(x)], kwargs
    yield [arr((2, 3), "bfloat16"), arr((3, 4), "bfloat16", True)], {}


def pallas_dot() -> Iterator[Case]:
    for x in DOT_DTYPES:
        for y in DOT_DTYPES[:4]:
            yield [x, _transposed(y)], {}
    for ta in (False, True):
        for tb in (False, True):
            for a, b in [((8, 16), (16, 32)), ((16, 8), (32, 16)), ((8, 16), (32, 16))]:
                yield [arr(a, "bfloat16"), arr(b, "bfloat16")], {
                    "trans_a": Py(ta), "trans_b": Py(tb)}
    yield [arr((2, 8, 16)), arr((16, 8))], {}


def einsum() -> Iterator[Case]:
    specs = [("ij,jk->ik", (2, 3), (3, 4)), ("bqd,bkd->bqk", (2, 8, 16), (2, 4, 16)),
             ("ij,jk", (2, 3), (3, 4)), ("ij,kj->ik", (2, 3), (4, 5)),
             ("bhd,bhd->bh", (2, 8, 4), (2, 2, 4)), ("qh,kh->qk", (16, 128), (8, 64)),
             ("bqd,bkd->bqk", (2, 8, 16), (4, 8, 16)), ("ij,jk->ik", (2, 3, 4), (3, 4)),
             ("ij,jk->ik", (2, 3), (4, 3, 4)), ("ij,jk->ik", (2, 1), (3, 4)), ("ij,jk->ik", (2, 3), (1, 4))]
    for spec, a, b in specs:
        yield [Py(spec), arr(a), arr(b)], {}
    for x in DOT_DTYPES[:5]:
        for y in DOT_DTYPES:
            for kwargs in PREFERRED[:3]:
                yield [Py("ij,kj->ik"), x, y], kwargs


def matmul_operator() -> Iterator[Case]:
    for args, kwargs in numpy_dot():
        if not kwargs:
            yield args, kwargs


register(numpy_dot, "jax.numpy.dot", "jax.numpy.matmul")
register(matmul_operator, "operator.matmul")
register(dot_general, "jax.lax.dot_general")
register(lax_dot, "jax.lax.dot")
register(pallas_dot, "pl.dot")
register(einsum, "jax.numpy.einsum")


REDUCE_DTYPES = [arr((2, 3), d) for d in DTYPES] + [
    arr((2, 3), "int32", True), arr((2, 3), "float32", True), arr((2, 3), "int16"),
    arr((), "float32", True), arr((2, 3), "uint32"),
]
AXES: list[Arg] = [Py(None), Py(0), Py(-1), Py(1), Py((0, 1)), Py((0, 2)), Py(2), Py(-3),
                   Py((1, 1))]


def reduction() -> Iterator[Case]:
    for x in REDUCE_DTYPES:
        yield [x], {}
        yield [x], {"axis": Py(-1), "keepdims": Py(True)}
    for shape in [(2, 3, 4), (5,), (1, 8)]:
        for axis in AXES:
            yield [arr(shape)], {"axis": axis}
            yield [arr(shape), axis], {"keepdims": Py(True)}


def with_dtype() -> Iterator[Case]:
    yield from reduction()
    yield [arr((2, 3), "int8")], {"dtype": dt("float32")}
    yield [arr((2, 3), "bfloat16"), Py(1), dt("float32")], {}


def normalise() -> Iterator[Case]:
    for x in REDUCE_DTYPES:
        yield [x], {}
    for axis in AXES[1:]:
        yield [arr((2, 3, 4), "bfloat16")], {"axis": axis}


def logsumexp() -> Iterator[Case]:
    yield from reduction()
    yield [arr((2, 3), "bfloat16")], {"axis": Py(-1), "return_sign": Py(True)}


_REDUCED = ("sum", "prod", "mean", "max", "min", "any", "all", "argmax", "argmin", "cumsum")
for _name in _REDUCED:
    register(with_dtype if _name in ("sum", "prod", "mean", "cumsum") else reduction,
             f"jax.numpy.{_name}", f"Array.{_name}")
register(normalise, "jax.nn.softmax", "jax.nn.log_softmax")
register(logsumexp, "jax.nn.logsumexp", "jax.scipy.special.logsumexp")


X = arr((2, 3, 4))
SLICE = ("slice", None, None, None)


def reshape() -> Iterator[Case]:
    for target in [(6, 4), (-1,), (2, -1), (4, 4), (3, -1, 2), (-1, 5), (24,)]:
        yield [X, Py(target)], {}
    yield [arr((16, 256)), Py((16, 8, 64))], {}
    yield [arr((2, 3), "bfloat16", True), Py((3, 2))], {}


def array_reshape() -> Iterator[Case]:
    yield from reshape()
    yield [X, Py(6), Py(-1)], {}
    yield [X, Py(24)], {}


register(reshape, "jax.numpy.reshape")
register(array_reshape, "Array.reshape")
register(_each(([X], {}), ([X, Py((2, 0, 1))], {}), ([X, Py((0, 0, 1))], {}),
               ([X, Py((1, 0))], {}), ([arr((2, 3), "int8", True)], {})),
         "jax.numpy.transpose")
register(_each(([X], {}), ([X, Py(2), Py(0), Py(1)], {}), ([X, Py((2, 0, 1))], {}),
               ([X, Py(0), Py(0), Py(1)], {})), "Array.transpose")
register(_each(([X], {}), ([arr(())], {}), ([arr((3,), "bfloat16", True)], {})), "Array.T")
register(_each(([X, Py(0), Py(-1)], {}), ([X, Py(0), Py(3)], {}), ([X, Py(1), Py(1)], {})),
         "jax.numpy.swapaxes", "Array.swapaxes")
register(_each(([X, Py(8)], {}), ([arr((), "int32"), Py((2, 4))], {}), ([arr((), "int32", True), Py(128)], {})),
         "pl.multiple_of")
register(_each(([X], {}), ([X], {"approx": Py(True)}), ([arr((8, 128), "bfloat16")], {"full_range": Py(False)}),
               ([arr((), "float32", True)], {})), "pl.reciprocal")
register(_each(([X, Py(0), Py(-1)], {}), ([X, Py((0, 1)), Py((2, 0))], {}),
               ([X, Py(3), Py(0)], {}), ([X, Py((0, 1)), Py(0)], {})), "jax.numpy.moveaxis")
register(_each(([X, Py(0)], {}), ([X, Py(-1)], {}), ([X, Py((0, 2))], {}),
               ([X, Py(5)], {}), ([X, Py((1, 1))], {}), ([arr((2, 3)), Py(3)], {})),
         "jax.numpy.expand_dims")
_SQUEEZE = _each(([arr((1, 3, 1))], {}), ([arr((1, 3, 1)), Py(0)], {}),
                 ([arr((1, 3, 1)), Py((0, -1))], {}), ([arr((2, 3)), Py(0)], {}),
                 ([arr((2, 3)), Py(2)], {}))
register(_SQUEEZE, "jax.numpy.squeeze", "Array.squeeze")
register(_each(([arr((3,)), Py((2, 3))], {}), ([arr((2, 1)), Py((4, 2, 5))], {}),
               ([arr((2, 3)), Py((3, 3))], {}), ([arr((2, 3)), Py((3,))], {})),
         "jax.numpy.broadcast_to")
register(_each(([arr((3,)), Py((2, 3)), Py((1,))], {}), ([arr((1, 3)), Py((2, 4, 3)),
                Py((0, 2))], {}), ([arr((3,)), Py((2, 4)), Py((1,))], {})),
         "jax.lax.broadcast_in_dim")
register(_each(([arr((2, 3)), Py(2)], {}), ([arr((2, 3)), Py((2, 1, 3))], {}),
               ([arr((3,), "int8"), Py((4, 1))], {})), "jax.numpy.tile")
register(_each(([arr((2, 3)), Py(2)], {}), ([arr((2, 3)), Py(3), Py(1)], {}),
               ([arr((2, 3)), Py(2)], {"axis": Py(-2)}), ([arr((2, 3)), Py(2), Py(2)], {})),
         "jax.numpy.repeat")


def joining() -> Iterator[Case]:
    pairs = [((2, 3), (2, 3)), ((2, 3), (4, 3)), ((2, 3), (1, 2, 3)), ((2, 3), (2, 4))]
    for a, b in pairs:
        for axis in (0, 1, -1, 2):
            yield [Seq((arr(a), arr(b, "bfloat16")))], {"axis": Py(axis)}
    yield [Seq((arr((2, 3), "int8"), arr((2, 3), "uint8"), arr((1, 3))))], {}
    yield [Seq((arr((2, 3), "float32", True), arr((2, 3), "bfloat16")))], {}


register(joining, "jax.numpy.concatenate", "jax.numpy.stack")
register(_each(([X], {}), ([X, Py(1)], {}), ([X, Py((0, 2))], {}), ([X, Py(3)], {})),
         "jax.numpy.flip")
register(_each(([X, Py(1)], {}), ([X, Py(1), Py(2)], {}), ([X, Py(-1), Py((0, 1))], {}),
               ([X, Py(1), Py(5)], {})), "jax.numpy.roll")
register(_each(([X, Py(1), Py(2)], {}), ([X, Py(1), Py(-1)], {}), ([X, Py(-1), Py(1)], {}),
               ([arr((8, 128), "float32", True), Py(3), Py(0)], {}),
               ([X, arr((), "int32"), Py(1)], {}), ([X, Py(1), Py(3)], {})), "pltpu.roll")


def pallas_bitcast() -> Iterator[Case]:
    for source in ("float32", "bfloat16", "int8", "int32"):
        for target in ("float32", "bfloat16", "int8", "uint32"):
            for shape in [(16, 128), (2, 8, 128), (3, 128), (128,)]:
                yield [arr(shape, source), dt(target)], {}


register(pallas_bitcast, "pltpu.bitcast")


def casts() -> Iterator[Case]:
    for x in OPERANDS[:7]:
        for target in ("float32", "bfloat16", "int8", "bool"):
            yield [x, dt(target)], {}


register(casts, "Array.astype", "jax.numpy.astype", "jax.lax.convert_element_type")


def bitcast_convert() -> Iterator[Case]:
    for source in ("float32", "bfloat16", "int8"):
        for target in ("float32", "bfloat16", "int8", "uint32"):
            for shape in [(2, 4), (2, 2), (3,)]:
                yield [arr(shape, source), dt(target)], {}


register(bitcast_convert, "jax.lax.bitcast_convert_type")


def getitem() -> Iterator[Case]:
    indexes: list[Arg] = [
        Py(0), Py(None), Py((None, SLICE)), Py((SLICE, None)), Py(Ellipsis),
        Py((Ellipsis, 1)), Py((0, ("slice", 1, 3, None))), Py(("slice", None, None, -1)),
        Py((0, 0, 0, 0)), Py((Ellipsis, None, ("slice", 0, 8, 2))), Py(5),
        Seq((OPAQUE, Py(SLICE))), Seq((Py(SLICE), arr((), "int32"))), Py((1, Ellipsis, 2)),
    ]
    for index in indexes:
        yield [X, index], {}
    yield [arr((8,), "bfloat16", True), Py(0)], {}


register(getitem, "Array.__getitem__")
register(_each(([X], {}), ([arr(())], {}), ([arr((2, 3), "bfloat16", True)], {}),
               ([arr((0, 3), "int8")], {})), "Array.shape", "Array.dtype", "Array.ndim",
         "Array.size")

SHAPE_ARGS: list[Arg] = [Py((8, 128)), Py(4), Py(())]


def filled() -> Iterator[Case]:
    for shape in SHAPE_ARGS:
        yield [shape], {}
        yield [shape, dt("bfloat16")], {}
        yield [shape], {"dtype": dt("int32")}


def full() -> Iterator[Case]:
    for fill in [Py(1.0), Py(0), Py(True), arr(()), arr((), "bfloat16"), arr((128,)),
                 arr((3,)), arr((), "int32", True)]:
        yield [Py((8, 128)), fill], {}
        yield [Py((8, 128)), fill, dt("bfloat16")], {}


def like() -> Iterator[Case]:
    for x in OPERANDS[:7]:
        yield [x], {}
    yield [arr((2, 3))], {"dtype": dt("int8")}
    yield [arr((2, 3))], {"shape": Py((4,))}


def full_like() -> Iterator[Case]:
    for x in OPERANDS[:7]:
        yield [x, Py(1.0)], {}
        yield [x, Py(0), dt("bfloat16")], {}


register(filled, "jax.numpy.zeros", "jax.numpy.ones", "jax.numpy.empty")
register(full, "jax.numpy.full")
register(like, "jax.numpy.zeros_like", "jax.numpy.ones_like", "jax.numpy.empty_like")
register(full_like, "jax.numpy.full_like")
register(_each(([dt("int32"), Py(8)], {}), ([dt("float32"), Py(128)], {}),
               ([dt("bfloat16"), Py(4)], {})), "jax.lax.iota")
register(_each(([dt("int32"), Py((8, 128)), Py(0)], {}), ([dt("float32"), Py((8, 128)),
                Py(1)], {}), ([dt("int32"), Py((8,)), Py(0)], {})),
         "jax.lax.broadcasted_iota")
register(_each(([Py(8)], {}), ([Py(2), Py(10)], {}), ([Py(0), Py(10), Py(3)], {}),
               ([Py(1.0), Py(4)], {}), ([Py(10), Py(0), Py(-2)], {}),
               ([Py(8)], {"dtype": dt("bfloat16")}), ([Py(0.5), Py(2.0), Py(0.25)], {})),
         "jax.numpy.arange")


def array_of() -> Iterator[Case]:
    lists = [Py((1, 2, 3)), Py((1.0, 2)), Py((True, False)), Py(((1, 2), (3, 4), (5, 6))), Py((0,)),
             Py(((1, 2), (3,))), Py(())]
    for value in [Py(2.0), Py(3), Py(True), *OPERANDS[:7], arr(()), *lists]:
        yield [value], {}
        yield [value], {"dtype": dt("bfloat16")}
    yield [Py((1, 2))], {"dtype": dt("int32")}


register(array_of, "jax.numpy.array", "jax.numpy.asarray")


def constructor() -> Iterator[Case]:
    for value in [Py(1.0), Py(0), Py(True), arr((2, 3)), arr((), "int32", True)]:
        yield [value], {}


_CONSTRUCTED = ("float32 bfloat16 float16 int8 int16 int32 uint8 uint16 uint32 float64 int64 uint64 bool_ "
                "float8_e4m3fn float8_e5m2 int4 uint4").split()
register(constructor, *(f"jax.numpy.{n}" for n in _CONSTRUCTED))
register(_each(*(([dt(n)], {}) for n in ("float32", "bfloat16", "float16",
                                          "float8_e4m3fn"))),
         *(f"jax.numpy.finfo.{f}" for f in ("min", "max", "eps", "tiny", "bits")))
register(_each(*(([dt(n)], {}) for n in ("int32", "int8", "uint8", "uint32", "int16"))),
         "jax.numpy.iinfo.min", "jax.numpy.iinfo.max", "jax.numpy.iinfo.bits")
