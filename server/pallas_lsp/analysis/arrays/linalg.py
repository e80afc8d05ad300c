"""Contractions: `lax.dot_general` and the functions built on it (`jnp.dot`, `matmul`,
`einsum`, `pl.dot`).

The result dtype follows `lax._dot_general_dtype_rule`: the operand whose type ranks
higher (complex, max exponent, mantissa bits, bit width, signedness) wins, then
`preferred_element_type` may widen it (an integer result may not narrow).
"""

from __future__ import annotations

from dataclasses import dataclass

from .args import NONE, Bound, Py, as_bool, as_dtype, as_ints, is_none
from .dtypes import DType, is_bool, is_float, is_integer, is_unsigned
from .dtypes import bits
from .rules import DTypeResult, ShapeResult, operand, promoted
from .shapes import ArrayV, Dim, Rejected, Shape, broadcast, is_static

# (max exponent, mantissa bits) of the floats JAX ranks in dot_general.
_FLOAT_RANGE = {
    "float32": (128, 23), "bfloat16": (128, 7), "float16": (16, 10),
    "float8_e4m3fn": (9, 3), "float8_e5m2": (16, 2),
}


def _rank(dtype: DType) -> tuple[int, int, int, bool] | None:
    if is_float(dtype):
        if dtype.name not in _FLOAT_RANGE:
            return None
        exponent, mantissa = _FLOAT_RANGE[dtype.name]
        return exponent, mantissa, bits(dtype) or 0, True
    if is_bool(dtype):
        return -1, -1, 1, True
    width = bits(dtype)
    return None if width is None else (-1, -1, width, not is_unsigned(dtype))


def lax_dot_dtype(lhs: DType, rhs: DType, preferred: DType | None) -> DTypeResult:
    """`lax.dot_general`'s result dtype (weak flags are the caller's business)."""
    left, right = _rank(lhs), _rank(rhs)
    if left is None or right is None or (left == right and lhs.name != rhs.name):
        return None
    result = DType(lhs.name if left >= right else rhs.name)
    if preferred is None or preferred.name == result.name:
        return result
    narrower = (bits(preferred) or 0) < (bits(result) or 0)
    if not is_float(result) and narrower:
        return Rejected(
            "`preferred_element_type` must not be narrower than the original type, got "
            f"preferred_element_type of {preferred.name} for result type of {result.name}."
        )
    return preferred


def _preferred(bound: Bound) -> tuple[bool, DType | None]:
    """The `preferred_element_type` argument: (understood, the dtype or None)."""
    arg = bound.values.get("preferred_element_type", NONE)
    if is_none(arg):
        return True, None
    dtype = as_dtype(arg)
    return dtype is not None, dtype


def numpy_dot_dtype(bound: Bound) -> DTypeResult:
    """`jnp.dot` / `matmul` / `einsum` of two operands: the promoted dtype (weak results
    at the default width) unless `preferred_element_type` says otherwise."""
    a, b = operand(bound, "a"), operand(bound, "b")
    understood, preferred = _preferred(bound)
    if a is None or b is None or not understood:
        return None
    if a.dtype is None or b.dtype is None:
        return _preferred_only(preferred)
    weak = False
    if preferred is None:
        result = promoted(a.dtype, b.dtype)
        if not isinstance(result, DType):
            return result
        weak = result.weak
        preferred = _default_if_weak(result)
    checked = lax_dot_dtype(a.dtype, b.dtype, preferred)
    if not isinstance(checked, DType):
        return checked
    return DType(preferred.name, weak=weak)


def _preferred_only(preferred: DType | None) -> DType | None:
    """An operand's dtype is not known: a 32-bit `preferred_element_type` is the result
    whatever it is (the rule's only other answer is an error for a wider integer
    result, and no operand is wider than 32 bits)."""
    return preferred if preferred is not None and bits(preferred) == 32 else None


def _default_if_weak(dtype: DType) -> DType:
    if not dtype.weak:
        return dtype
    if is_float(dtype):
        return DType("float32")
    return DType("uint32" if is_unsigned(dtype) else "int32")


def lax_dot_general_dtype(bound: Bound) -> DTypeResult:
    lhs, rhs = operand(bound, "lhs"), operand(bound, "rhs")
    understood, preferred = _preferred(bound)
    if lhs is None or rhs is None or not understood:
        return None
    if lhs.dtype is None or rhs.dtype is None:
        return _preferred_only(preferred)
    result = lax_dot_dtype(lhs.dtype, rhs.dtype, preferred)
    if isinstance(result, DType):
        return DType(result.name, weak=lhs.dtype.weak and rhs.dtype.weak)
    return result


def pallas_dot_dtype(bound: Bound) -> DTypeResult:
    """`pl.dot` accumulates integers in int32 and everything else in float32."""
    a, b = operand(bound, "a"), operand(bound, "b")
    if a is None or b is None or a.dtype is None or b.dtype is None:
        return None
    if not all(d.name in ("float32", "bfloat16", "float16") or is_integer(d)
               for d in (a.dtype, b.dtype)):
        return None
    result = promoted(a.dtype, b.dtype)
    if not isinstance(result, DType):
        return result
    return DType("int32") if is_integer(result) or is_bool(result) else DType("float32")


# ---- shapes ---------------------------------------------------------------------------

@dataclass(unsafe_hash=True)
class Contraction:
    """`dot_general` dimension numbers."""

    lhs_contract: tuple[int, ...]
    rhs_contract: tuple[int, ...]
    lhs_batch: tuple[int, ...] = ()
    rhs_batch: tuple[int, ...] = ()


def contract(lhs: Shape, rhs: Shape, dims: Contraction) -> ShapeResult:
    """`lax.dot_general`'s output shape: batch, lhs free, rhs free dims."""
    for side, shape, picked in (("lhs", lhs, dims.lhs_contract + dims.lhs_batch),
                                ("rhs", rhs, dims.rhs_contract + dims.rhs_batch)):
        if any(not 0 <= d < len(shape) for d in picked) or len(set(picked)) != len(picked):
            return None
    if len(dims.lhs_batch) != len(dims.rhs_batch):
        return None
    for kind, left, right in (
        ("lhs batch dimensions and rhs batch dimensions", dims.lhs_batch, dims.rhs_batch),
        ("contracting dimensions", dims.lhs_contract, dims.rhs_contract),
    ):
        left_dims = tuple(lhs[d] for d in left)
        right_dims = tuple(rhs[d] for d in right)
        if _certainly_differ(left_dims, right_dims):
            return Rejected(f"dot_general requires {kind} to have the same shape, "
                            f"got {left_dims} and {right_dims}.")
    batch = tuple(lhs[d] for d in dims.lhs_batch)
    lhs_free = tuple(d for i, d in enumerate(lhs) if i not in dims.lhs_contract + dims.lhs_batch)
    rhs_free = tuple(d for i, d in enumerate(rhs) if i not in dims.rhs_contract + dims.rhs_batch)
    return batch + lhs_free + rhs_free


def _certainly_differ(left: tuple[Dim, ...], right: tuple[Dim, ...]) -> bool:
    return is_static(left) and is_static(right) and left != right and len(left) == len(right)


def _shapes(bound: Bound, *names: str) -> list[Shape] | None:
    arrays = [operand(bound, n) for n in names]
    shapes = [a.shape for a in arrays if a is not None and a.shape is not None]
    return shapes if len(shapes) == len(names) else None


def numpy_dot_shape(bound: Bound) -> ShapeResult:
    shapes = _shapes(bound, "a", "b")
    if shapes is None:
        return None
    a, b = shapes
    if not a or not b:
        return broadcast(a, b, primitive="mul")
    b_axis = 0 if len(b) == 1 else len(b) - 2
    return contract(a, b, Contraction((len(a) - 1,), (b_axis,)))


def matmul_shape(bound: Bound) -> ShapeResult:
    shapes = _shapes(bound, "a", "b")
    if shapes is None:
        return None
    a, b = shapes
    for index, shape in enumerate((a, b)):
        if not shape:
            return Rejected(f"matmul input operand {index} must have ndim at least 1, "
                            "but it has ndim 0")
    a2 = (1, *a) if len(a) == 1 else a
    b2 = (*b, 1) if len(b) == 1 else b
    batch = broadcast(a2[:-2], b2[:-2])
    if not isinstance(batch, tuple):
        return None
    core = contract(a2[-2:], b2[-2:], Contraction((1,), (0,)))
    if not isinstance(core, tuple):
        return core
    rows = core[:1] if len(a) > 1 else ()
    cols = core[1:] if len(b) > 1 else ()
    return batch + rows + cols


def dot_general_shape(bound: Bound) -> ShapeResult:
    shapes = _shapes(bound, "lhs", "rhs")
    numbers = bound["dimension_numbers"]
    if shapes is None or not isinstance(numbers, Py):
        return None
    dims = _dimension_numbers(numbers.value)
    return None if dims is None else contract(shapes[0], shapes[1], dims)


def _dimension_numbers(value: object) -> Contraction | None:
    """`((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))` of int tuples."""
    if not (isinstance(value, tuple) and len(value) == 2
            and all(isinstance(v, tuple) and len(v) == 2 for v in value)):
        return None
    parts = [as_ints(Py(p)) for pair in value for p in pair]
    if any(p is None for p in parts):
        return None
    lc, rc, lb, rb = (p or () for p in parts)
    return Contraction(lc, rc, lb, rb)


def lax_dot_shape(bound: Bound) -> ShapeResult:
    shapes = _shapes(bound, "lhs", "rhs")
    if shapes is None or not shapes[0] or not shapes[1]:
        return None
    lhs, rhs = shapes
    if len(lhs) > 2 or len(rhs) > 2:
        return None
    result = contract(lhs, rhs, Contraction((len(lhs) - 1,), (0,)))
    return None if isinstance(result, Rejected) else result  # lax.dot words it its own way


def pallas_dot_shape(bound: Bound) -> ShapeResult:
    shapes = _shapes(bound, "a", "b")
    trans_a, trans_b = as_bool(bound["trans_a"]), as_bool(bound["trans_b"])
    if shapes is None or trans_a is None or trans_b is None:
        return None
    if len(shapes[0]) != 2 or len(shapes[1]) != 2:
        return Rejected("`a` and `b` must be 2D arrays.")
    dims = Contraction((0 if trans_a else 1,), (1 if trans_b else 0,))
    return contract(shapes[0], shapes[1], dims)


# ---- einsum ---------------------------------------------------------------------------

def _einsum_labels(bound: Bound) -> tuple[list[str], str, list[ArrayV]] | None:
    spec = bound["subscripts"]
    arrays = [operand(bound, n) for n in ("a", "b")]
    if not isinstance(spec, Py) or not isinstance(spec.value, str) or "." in spec.value:
        return None
    text = spec.value.replace(" ", "")
    inputs, arrow, output = text.partition("->")
    terms = inputs.split(",")
    if len(terms) != 2 or any(a is None for a in arrays):
        return None
    if not arrow:
        joined = "".join(terms)
        output = "".join(sorted(c for c in set(joined) if joined.count(c) == 1))
    return terms, output, [a for a in arrays if a is not None]


def einsum_shape(bound: Bound) -> ShapeResult:
    parsed = _einsum_labels(bound)
    if parsed is None:
        return None
    terms, output, arrays = parsed
    sizes: dict[str, Dim] = {}
    for i, (term, array) in enumerate(zip(terms, arrays)):
        if array.shape is None:
            return None
        if len(term) != len(array.shape):
            return Rejected(f"Einstein sum subscript '{term}' does not contain the correct number of indices "
                            f"for operand {i}.")
        for label, dim in zip(term, array.shape):
            before = sizes.setdefault(label, dim)
            if before == dim:
                continue
            if type(before) is int and type(dim) is int and 1 not in (before, dim):
                return Rejected(f"Size of label '{label}' for operand {i} ({before}) does not match previous "
                                f"terms ({dim}).")
            return None   # a named length, or a label of size 1 (opt_einsum broadcasts it)
    if any(label not in sizes for label in output):
        return None
    return tuple(sizes[label] for label in output)


def einsum_dtype(bound: Bound) -> DTypeResult:
    return None if _einsum_labels(bound) is None else numpy_dot_dtype(bound)
