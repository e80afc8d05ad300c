"""Dtypes as JAX sees them with x64 disabled, and JAX's promotion lattice.

A `DType` is numpy's name of the element type plus JAX's *weak* flag (the type of a
value that came from a Python scalar: it adopts the width of a strong operand).  64-bit
names canonicalise to 32-bit ones; complex types are out of scope (`by_name` gives None).

`promote` / `result_type` follow `jax._src.dtypes.lattice_result_type` and `result_type`:
the least upper bound on the standard x32 promotion lattice, where weak Python types are
the nodes `int` and `float`.  In text, a weak dtype is marked with a trailing `~`
(`f32~`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache


@dataclass(eq=False, slots=True)
class DType:
    """An element type: numpy's `name` (`"float32"`, `"bfloat16"`) and JAX's weak flag."""

    name: str
    weak: bool = False

    def __init__(self, name: str, weak: bool = False) -> None:   # native (`records`)
        self.name = name
        self.weak = weak

    def __eq__(self, other: object) -> bool:
        return type(other) is DType and self.name == other.name and self.weak == other.weak

    def __hash__(self) -> int:
        return hash((self.name, self.weak))


class TypePromotionError(ValueError):
    """Two dtypes have no implicit promotion path (JAX raises `TypePromotionError`)."""


_SMALL_FLOATS = (
    "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3",
    "float8_e8m0fnu", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
    "float8_e5m2", "float8_e5m2fnuz",
)
_FLOATS = (*_SMALL_FLOATS, "bfloat16", "float16", "float32")
_SIGNED = ("int1", "int2", "int4", "int8", "int16", "int32")
_UNSIGNED = ("uint1", "uint2", "uint4", "uint8", "uint16", "uint32")
_CANONICAL = {"float64": "float32", "int64": "int32", "uint64": "uint32"}
_SHORT_PREFIX = {"float": "f", "int": "i", "uint": "u", "bool": "bool"}

# Weak Python types as lattice nodes (never a DType name).
_WEAK_INT, _WEAK_FLOAT, _WEAK_COMPLEX = "<int>", "<float>", "<complex>"

# JAX's standard lattice with x64 disabled (u32 -> i32 replaces the 64-bit promotions).
_LATTICE: dict[str, tuple[str, ...]] = {
    "bool": (_WEAK_INT,),
    _WEAK_INT: ("uint8", "uint2", "uint4", "int8", "int2", "int4", "int1", "uint1"),
    **{t: () for t in ("uint1", "uint2", "uint4", "int1", "int2", "int4")},
    "uint8": ("int16", "uint16"),
    "uint16": ("int32", "uint32"),
    "uint32": ("int32", "uint64"),
    "uint64": (_WEAK_FLOAT,),
    "int8": ("int16",),
    "int16": ("int32",),
    "int32": ("int64",),
    "int64": (_WEAK_FLOAT,),
    _WEAK_FLOAT: (*_SMALL_FLOATS, "bfloat16", "float16", _WEAK_COMPLEX),
    **{t: () for t in _SMALL_FLOATS},
    "bfloat16": ("float32",),
    "float16": ("float32",),
    "float32": ("float64", "complex64"),
    "float64": ("complex128",),
    _WEAK_COMPLEX: ("complex64",),
    "complex64": ("complex128",),
    "complex128": (),
}


def _upper_bounds() -> dict[str, frozenset[str]]:
    """Each node's set of upper bounds (itself included): the transitive closure."""
    bounds: dict[str, frozenset[str]] = {}

    def close(node: str) -> frozenset[str]:
        if node not in bounds:
            above = {node}
            for parent in _LATTICE[node]:
                above |= close(parent)
            bounds[node] = frozenset(above)
        return bounds[node]

    for node in _LATTICE:
        close(node)
    return bounds


_UPPER = _upper_bounds()
KNOWN_NAMES = frozenset(("bool", *_SIGNED, *_UNSIGNED, *_FLOATS))

BOOL = DType("bool")
INT32 = DType("int32")
FLOAT32 = DType("float32")


def canonical(name: str) -> DType | None:
    """The x32 DType of numpy's dtype `name`, or None for an unsupported one."""
    name = _CANONICAL.get(name, name)
    return DType(name) if name in KNOWN_NAMES else None


def is_float(dtype: DType) -> bool:
    return dtype.name in _FLOATS


def is_signed(dtype: DType) -> bool:
    return dtype.name in _SIGNED


def is_unsigned(dtype: DType) -> bool:
    return dtype.name in _UNSIGNED


def is_integer(dtype: DType) -> bool:
    return is_signed(dtype) or is_unsigned(dtype)


def is_bool(dtype: DType) -> bool:
    return dtype.name == "bool"


def strong(dtype: DType) -> DType:
    return DType(dtype.name)


def bits(dtype: DType) -> int | None:
    """The width in bits (`bool` is 8 bits, as numpy stores it)."""
    if dtype.name == "bool":
        return 8
    digits = "".join(ch for ch in dtype.name.split("_")[0] if ch.isdigit())
    return int(digits) if digits else None


def short(dtype: DType) -> str:
    """`f32`, `bf16`, `i8`, `u32`, `bool`, `f8e4m3fn`; a weak dtype gets a `~` (`f32~`)."""
    name = dtype.name
    if name == "bfloat16":
        text = "bf16"
    elif name == "bool":
        text = "bool"
    else:
        head, _, tail = name.partition("_")
        kind = head.rstrip("0123456789")
        text = _SHORT_PREFIX.get(kind, kind) + head[len(kind):] + tail
    return text + ("~" if dtype.weak else "")


_BUILTIN_NAMES = {"float": "float32", "int": "int32", "bool": "bool", "bool_": "bool"}


def by_name(text: str) -> DType | None:
    """The strong DType spelled `text`: a numpy name or attribute (`"float32"`,
    `"bool_"`), or a Python builtin used as a dtype (`"float"` is float32)."""
    return canonical(_BUILTIN_NAMES.get(text, text))


def _node(dtype: DType) -> str:
    """The lattice node of a dtype: weak numbers become the Python type's node."""
    if not dtype.weak or dtype.name == "bool":
        return dtype.name
    return _WEAK_FLOAT if is_float(dtype) else _WEAK_INT


_DEFAULT_OF_NODE = {_WEAK_INT: "int32", _WEAK_FLOAT: "float32"}


@lru_cache(maxsize=512)
def _least_upper_bound(nodes: frozenset[str]) -> str:
    common = frozenset.intersection(*(_UPPER[n] for n in nodes))
    least = (common & nodes) or {c for c in common if common <= _UPPER[c]}
    if len(least) != 1:
        raise TypePromotionError(_no_path_message(nodes))
    (bound,) = least
    return bound


def _no_path_message(nodes: frozenset[str]) -> str:
    shown = tuple(sorted(_DEFAULT_OF_NODE.get(n, n) for n in nodes))
    advice = "Try explicitly casting inputs to the desired output type."
    if any(n.startswith("float8") for n in nodes):
        advice = (
            "To avoid unintended promotion, 8-bit floats do not support implicit "
            "promotion. If you'd like your inputs to be promoted to another type, you "
            "can do so explicitly using e.g. x.astype('float32')"
        )
    return f"Input dtypes {shown} have no available implicit dtype promotion path. {advice}"


def result_type(*dtypes: DType) -> DType:
    """JAX's `lattice_result_type` (what `jnp` operations promote their operands to).

    Raises TypePromotionError where JAX does (e.g. float8 with bfloat16)."""
    names = {d.name for d in dtypes}
    if len(dtypes) == 1:
        out, weak = dtypes[0].name, dtypes[0].weak
    elif len(names) == 1 and not all(d.weak for d in dtypes):
        out, weak = dtypes[0].name, False
    elif all(d.weak for d in dtypes):
        out, weak = _least_upper_bound(frozenset(names)), True
    else:
        bound = _least_upper_bound(frozenset(_node(d) for d in dtypes))
        out, weak = _DEFAULT_OF_NODE.get(bound, bound), bound in _DEFAULT_OF_NODE
    result = canonical(out)
    if result is None:
        raise TypePromotionError(f"unsupported dtype {out}")
    return DType(result.name, weak=weak and out != "bool")


def promote(a: DType, b: DType) -> DType:
    """JAX's binary `jnp` promotion with weak types (weak f32 with bf16 is bf16)."""
    return result_type(a, b)


_TO_INEXACT = frozenset(("bool", "uint4", "int4", "uint8", "int8", "uint16", "int16",
                         "uint32", "int32"))


def to_inexact(dtype: DType) -> DType | None:
    """JAX's `to_inexact_dtype` (weak flag kept): bool and ints become float32; None for
    the narrow ints JAX leaves as they are."""
    if is_float(dtype):
        return dtype
    if dtype.name in _TO_INEXACT:
        return DType("float32", weak=dtype.weak)
    return None
