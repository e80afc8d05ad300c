"""The table of modelled operations, keyed by canonical name, and `apply`.

Canonical names are what the interpreter resolves a call to: `jax.numpy.dot`,
`jax.lax.dot_general`, `jax.nn.sigmoid`, `pltpu.roll`, `pl.dot`; array methods and
properties are `Array.<name>` with the array first; Python operators are
`operator.<name>` (modelled only when an operand is an `ArrayV`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from . import elementwise as ew
from . import linalg as la
from . import reductions as rd
from .args import NONE, Arg, Bound, Params, Py, bind
from .dtypes import INT32, DType
from .rules import DTypeRule, ShapeRule, ValueRule, is_promotion_error
from .shapes import ArrayV, Rejected

Result = Arg | Rejected | None


@dataclass(frozen=True)
class OpSpec:
    """One modelled function: its parameters and the rules giving its result.

    `value_rule`, when set, gives a non-array result (a property such as `.shape`) and
    the other two rules are unused.  `needs_array`: only modelled when an argument is
    an `ArrayV` (Python operators on two Python values are not array operations)."""

    name: str
    params: Params
    shape_rule: ShapeRule | None
    dtype_rule: DTypeRule | None
    value_rule: ValueRule | None = None
    needs_array: bool = False


def apply(name: str, args: Sequence[Arg], kwargs: Mapping[str, Arg]) -> Result:
    """The result of calling the operation `name`: an `ArrayV` (parts may be unknown),
    a non-array value for properties, `Rejected` when JAX certainly raises, or None
    when the model does not know (unknown name or keyword, arguments not understood)."""
    spec = OPS.get(name)
    if spec is None:
        return None
    bound = bind(spec.params, args, kwargs)
    if bound is None:
        return None
    if spec.needs_array and not any(
        isinstance(a, ArrayV) for a in (*args, *kwargs.values())
    ):
        return None
    return evaluate(spec, bound)


def evaluate(spec: OpSpec, bound: Bound) -> Result:
    if spec.value_rule is not None:
        return spec.value_rule(bound)
    if spec.shape_rule is None or spec.dtype_rule is None:
        return None
    dtype = spec.dtype_rule(bound)
    if isinstance(dtype, Rejected) and is_promotion_error(dtype):
        return dtype
    shape = spec.shape_rule(bound)
    if isinstance(shape, Rejected):
        return shape
    if isinstance(dtype, Rejected):
        # JAX checks shapes first: with a shape not decided, the error is not certain.
        return None if shape is None else dtype
    if shape is None and dtype is None:
        return None
    return ArrayV(shape, dtype)


# ---- parameter lists ------------------------------------------------------------------

_X = Params(("x",), positional_only=1)
_XY = Params(("x", "y"), positional_only=2)


def _spec(name: str, params: Params, rules: tuple[ShapeRule, DTypeRule],
          needs_array: bool = False) -> OpSpec:
    return OpSpec(name, params, rules[0], rules[1], needs_array=needs_array)


# name: (dtype family, the lax primitive named in an equal-rank broadcasting error)
_BINARY: dict[str, tuple[ew.DTypeMap, str | None]] = {
    "add": (ew.same, "add"), "subtract": (ew.subtract_dtype, "sub"),
    "multiply": (ew.same, "mul"), "divide": (ew.inexact, "div"),
    "true_divide": (ew.inexact, "div"), "floor_divide": (ew.bool_as_int, None),
    "remainder": (ew.bool_as_int, "rem"), "mod": (ew.bool_as_int, "rem"),
    "maximum": (ew.same, "max"), "minimum": (ew.same, "min"),
    "less": (ew.compare_dtype, "lt"), "less_equal": (ew.compare_dtype, "le"),
    "greater": (ew.compare_dtype, "gt"), "greater_equal": (ew.compare_dtype, "ge"),
    "equal": (ew.compare_dtype, "eq"), "not_equal": (ew.compare_dtype, "ne"),
    "logical_and": (ew.LOGICAL, "and"), "logical_or": (ew.LOGICAL, "or"),
    "logical_xor": (ew.LOGICAL, "xor"), "bitwise_and": (ew.bitwise("and"), "and"),
    "bitwise_or": (ew.bitwise("or"), "or"), "bitwise_xor": (ew.bitwise("xor"), "xor"),
    "left_shift": (ew.shift("shift_left"), "shift_left"),
    "right_shift": (ew.shift("shift_right_arithmetic"), None),
}

_OPERATORS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "floordiv": "floor_divide", "mod": "remainder", "lt": "less", "le": "less_equal",
    "gt": "greater", "ge": "greater_equal", "eq": "equal", "ne": "not_equal",
    "and_": "bitwise_and", "or_": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "left_shift", "rshift": "right_shift",
}

_UNARY = {
    "jax.numpy.exp": ew.inexact, "jax.numpy.exp2": ew.inexact, "jax.numpy.log": ew.inexact,
    "jax.numpy.log1p": ew.inexact, "jax.numpy.sqrt": ew.inexact,
    "jax.numpy.tanh": ew.inexact, "jax.numpy.sin": ew.inexact, "jax.numpy.cos": ew.inexact,
    "jax.numpy.reciprocal": ew.inexact, "jax.numpy.abs": ew.same,
    "jax.numpy.absolute": ew.same, "jax.numpy.negative": ew.no_bool("neg"),
    "jax.numpy.square": ew.bool_to(INT32), "jax.numpy.floor": ew.same,
    "jax.numpy.ceil": ew.same, "jax.numpy.sign": ew.no_bool("sign"),
    "jax.numpy.logical_not": ew.LOGICAL, "jax.numpy.isnan": ew.isnan_dtype,
    "jax.numpy.isfinite": ew.isfinite_dtype, "jax.numpy.invert": ew.invert_dtype,
    "jax.numpy.bitwise_not": ew.invert_dtype, "jax.lax.rsqrt": ew.float_only("rsqrt"),
    "jax.lax.erf": ew.float_only("erf", "floating"), "jax.nn.sigmoid": ew.float_only("logistic"),
    "jax.nn.silu": ew.float_only("logistic"),
    "jax.nn.relu": ew.bool_to(DType("int32", weak=True)),
    "operator.neg": ew.no_bool("neg"), "operator.invert": ew.invert_dtype,
}

_ELEMENTWISE: list[OpSpec] = [
    *(_spec(f"jax.numpy.{n}", _XY, ew.binary(*_BINARY[n])) for n in _BINARY),
    *(_spec(f"operator.{o}", _XY, ew.binary(*_BINARY[n]), needs_array=True)
      for o, n in _OPERATORS.items()),
    _spec("jax.numpy.power", _XY, (ew.broadcast_operands("x", "y"), ew.power_dtype)),
    _spec("operator.pow", _XY, (ew.broadcast_operands("x", "y"), ew.power_dtype),
          needs_array=True),
    *(_spec(n, _X, ew.unary(f), needs_array=n.startswith("operator."))
      for n, f in _UNARY.items()),
    _spec("jax.nn.gelu", Params(("x", "approximate"), defaults={"approximate": Py(True)}),
          ew.unary(ew.inexact_strong)),
    _spec("jax.numpy.round", Params(("x", "decimals"), defaults={"decimals": Py(0)}),
          ew.unary(ew.round_dtype)),
    _spec("jax.numpy.where", Params(("condition", "x", "y"), positional_only=3),
          (ew.broadcast_operands("condition", "x", "y"),
           ew.promote_operands(ew.same, "x", "y"))),
    _spec("jax.numpy.clip",
          Params(("x", "min", "max"), defaults={"min": NONE, "max": NONE},
                 positional_only=1),
          (ew.broadcast_operands("min", "x", "max"),
           ew.promote_operands(ew.same, "min", "x", "max"))),
]

_DOT_KEYWORDS = {"precision": NONE, "preferred_element_type": NONE}
_NUMPY_DOT = Params(("a", "b"), keyword=("precision", "preferred_element_type"),
                    defaults=_DOT_KEYWORDS, positional_only=2)

_XY_AB = Params(("a", "b"), positional_only=2)
_CONTRACTIONS: list[OpSpec] = [
    OpSpec("jax.numpy.dot", _NUMPY_DOT, la.numpy_dot_shape, la.numpy_dot_dtype),
    OpSpec("jax.numpy.matmul", _NUMPY_DOT, la.matmul_shape, la.numpy_dot_dtype),
    OpSpec("operator.matmul", _XY_AB, la.matmul_shape, la.numpy_dot_dtype,
           needs_array=True),
    OpSpec("jax.lax.dot_general",
           Params(("lhs", "rhs", "dimension_numbers", "precision",
                   "preferred_element_type"), defaults=_DOT_KEYWORDS),
           la.dot_general_shape, la.lax_dot_general_dtype),
    OpSpec("jax.lax.dot",
           Params(("lhs", "rhs", "precision", "preferred_element_type"),
                  defaults=_DOT_KEYWORDS),
           la.lax_dot_shape, la.lax_dot_general_dtype),
    OpSpec("pl.dot",
           Params(("a", "b", "trans_a", "trans_b", "allow_tf32", "precision"),
                  defaults={"trans_a": Py(False), "trans_b": Py(False),
                            "allow_tf32": NONE, "precision": NONE}),
           la.pallas_dot_shape, la.pallas_dot_dtype),
    OpSpec("jax.numpy.einsum",
           Params(("subscripts", "a", "b"), keyword=("precision", "preferred_element_type"),
                  defaults=_DOT_KEYWORDS, positional_only=3),
           la.einsum_shape, la.einsum_dtype),
]

def _reduction_params(*names: str, keepdims: Arg = Py(False)) -> Params:
    return Params(("a", *names), keyword=("where",),
                  defaults={**{n: NONE for n in (*names, "where")}, "keepdims": keepdims})


_SUM = _reduction_params("axis", "dtype", "out", "keepdims", "initial")
_MAX = _reduction_params("axis", "out", "keepdims", "initial")
_ANY = _reduction_params("axis", "out", "keepdims")
_REDUCTIONS: dict[str, tuple[Params, ShapeRule, DTypeRule]] = {
    "sum": (_SUM, rd.reduce_shape(), rd.reduce_dtype(rd.sum_family, explicit=True)),
    "prod": (_SUM, rd.reduce_shape(), rd.reduce_dtype(rd.sum_family, explicit=True)),
    "mean": (_reduction_params("axis", "dtype", "out", "keepdims"),
             rd.reduce_shape(indexes_shape=True),
             rd.reduce_dtype(rd.inexact_family, explicit=True)),
    "max": (_MAX, rd.reduce_shape(), rd.reduce_dtype(rd.strong)),
    "min": (_MAX, rd.reduce_shape(), rd.reduce_dtype(rd.strong)),
    "any": (_ANY, rd.reduce_shape(), rd.TO_BOOL),
    "all": (_ANY, rd.reduce_shape(), rd.TO_BOOL),
    "argmax": (_reduction_params("axis", "out", "keepdims", keepdims=NONE),
               rd.reduce_shape(single_axis=True, indexes_shape=True), rd.TO_INT32),
    "argmin": (_reduction_params("axis", "out", "keepdims", keepdims=NONE),
               rd.reduce_shape(single_axis=True, indexes_shape=True), rd.TO_INT32),
    "cumsum": (_reduction_params("axis", "dtype", "out"), rd.cumulative_shape,
               rd.reduce_dtype(rd.cumsum_family, explicit=True)),
}

_NORMALISE = Params(("a", "axis", "where"), defaults={"axis": Py(-1), "where": NONE})
_REDUCTION_SPECS: list[OpSpec] = [
    *(OpSpec(f"{owner}.{n}", *entry) for n, entry in _REDUCTIONS.items()
      for owner in ("jax.numpy", "Array")),
    OpSpec("jax.nn.softmax", _NORMALISE, rd.same_shape_checked_axis, rd.softmax_dtype),
    OpSpec("jax.nn.log_softmax", _NORMALISE, rd.same_shape_checked_axis, rd.softmax_dtype),
    *(OpSpec(name,
             Params(("a", "axis", "b", "keepdims", "return_sign", "where"),
                    defaults={"axis": NONE, "b": NONE, "keepdims": Py(False),
                              "return_sign": Py(False), "where": NONE}),
             rd.reduce_shape(), rd.reduce_dtype(rd.inexact_family))
      for name in ("jax.nn.logsumexp", "jax.scipy.special.logsumexp")),
]

OPS: Mapping[str, OpSpec] = {
    spec.name: spec for spec in [*_ELEMENTWISE, *_CONTRACTIONS, *_REDUCTION_SPECS]
}
