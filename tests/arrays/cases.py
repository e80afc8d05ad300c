"""Input cases for every entry of the model's table, as small per-group generators."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pallas_lsp.analysis.arrays.args import Arg, DTypeArg, Py
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
register(unary, *_UNARY_NAMES)
register(where, "jax.numpy.where")
register(clip, "jax.numpy.clip")
register(gelu, "jax.nn.gelu")
register(round_, "jax.numpy.round")
