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
from . import creation as cr
from . import indexing as ix
from . import reductions as rd
from . import structural as st
from .args import NONE, Arg, Bound, Params, Py, bind
from .dtypes import FLOAT32, INT32, DType
from .rules import DTypeRule, ShapeRule, ValueRule, is_promotion_error
from .shapes import ArrayV, Rejected

Result = Arg | Rejected | None


@dataclass(unsafe_hash=True)
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

# lax's binary operations: the operands' dtype, where lax accepts them
_LAX_BINARY = ("add", "sub", "mul", "div", "rem", "max", "min")

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
    *(_spec(f"jax.lax.{n}", _XY, ew.lax_binary(ew.same), needs_array=True) for n in _LAX_BINARY),
    OpSpec("jax.lax.select", Params(("pred", "on_true", "on_false")), ew.select_shape,
           ew.select_dtype),
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

_A = Params(("a",))
_SAME_DTYPE = rd.reduce_dtype(rd.same_dtype)


def _p(*names: str, **defaults: Arg) -> Params:
    """Parameters in order, with the given defaults."""
    return Params(names, defaults=defaults)


_STRUCTURAL: list[OpSpec] = [
    OpSpec("jax.numpy.reshape", _p("a", "shape"), st.reshape_shape, _SAME_DTYPE),
    OpSpec("Array.reshape", Params(("a",), varargs="shape"), st.reshape_shape, _SAME_DTYPE),
    OpSpec("jax.numpy.transpose", _p("a", "axes", axes=NONE), st.transpose_shape,
           _SAME_DTYPE),
    OpSpec("Array.transpose", Params(("a",), varargs="axes"), st.transpose_shape,
           _SAME_DTYPE),
    OpSpec("Array.T", _A, st.reversed_shape, _SAME_DTYPE),
    OpSpec("jax.numpy.swapaxes", _p("a", "axis1", "axis2"), st.swapaxes_shape, _SAME_DTYPE),
    OpSpec("Array.swapaxes", _p("a", "axis1", "axis2"), st.swapaxes_shape, _SAME_DTYPE),
    OpSpec("jax.numpy.moveaxis", _p("a", "source", "destination"), st.moveaxis_shape,
           _SAME_DTYPE),
    OpSpec("jax.numpy.expand_dims", _p("a", "axis"), st.expand_dims_shape, _SAME_DTYPE),
    OpSpec("jax.numpy.squeeze", _p("a", "axis", axis=NONE), st.squeeze_shape, _SAME_DTYPE),
    OpSpec("Array.squeeze", _p("a", "axis", axis=NONE), st.squeeze_shape, _SAME_DTYPE),
    OpSpec("jax.numpy.broadcast_to", _p("a", "shape"), st.broadcast_to_shape, _SAME_DTYPE),
    OpSpec("jax.lax.broadcast_in_dim", _p("operand", "shape", "broadcast_dimensions"),
           st.broadcast_in_dim_shape, rd.reduce_dtype(rd.same_dtype, name="operand")),
    OpSpec("jax.numpy.tile", _p("A", "reps"), st.tile_shape,
           rd.reduce_dtype(rd.same_dtype, name="A")),
    OpSpec("jax.numpy.repeat", _p("a", "repeats", "axis", axis=NONE), st.repeat_shape,
           _SAME_DTYPE),
    OpSpec("jax.numpy.concatenate", _p("arrays", "axis", axis=Py(0)), st.concatenate_shape,
           st.joined_dtype),
    OpSpec("jax.numpy.stack", _p("arrays", "axis", axis=Py(0)), st.stack_shape,
           st.joined_dtype),
    OpSpec("jax.numpy.flip", _p("a", "axis", axis=NONE), rd.same_shape_checked_axis,
           _SAME_DTYPE),
    OpSpec("jax.numpy.roll", _p("a", "shift", "axis", axis=NONE),
           rd.same_shape_checked_axis, _SAME_DTYPE),
    OpSpec("pltpu.roll", Params(("x", "shift", "axis"), keyword=("stride", "stride_axis"),
                                defaults={"stride": NONE, "stride_axis": NONE}),
           st.pallas_roll_shape, rd.reduce_dtype(rd.same_dtype, name="x")),
    OpSpec("pltpu.bitcast", _p("x", "ty"), st.pallas_bitcast_shape, st.target_dtype("ty")),
    OpSpec("Array.astype", _p("a", "dtype"), rd.same_shape, st.target_dtype("dtype")),
    OpSpec("jax.numpy.astype", _p("a", "dtype"), rd.same_shape, st.target_dtype("dtype")),
    OpSpec("jax.lax.convert_element_type", _p("operand", "new_dtype"),
           rd.same_shape_of("operand"), st.target_dtype("new_dtype")),
    OpSpec("jax.lax.bitcast_convert_type", _p("operand", "new_dtype"),
           st.bitcast_convert_shape, st.target_dtype("new_dtype")),
    OpSpec("Array.__getitem__", _p("a", "index"), ix.getitem_shape, ix.getitem_dtype),
]

# Pallas's hints on values: the value itself (their abstract evaluation returns its aval)
_PALLAS_VALUES: list[OpSpec] = [
    OpSpec("pl.multiple_of", _p("x", "values"), rd.same_shape_of("x"), rd.same_dtype_of("x")),
    OpSpec("pl.reciprocal", Params(("x",), keyword=("approx", "full_range"),
                                   defaults={"approx": Py(False), "full_range": Py(True)}),
           rd.same_shape_of("x"), rd.same_dtype_of("x")),
]

_PROPERTIES: list[OpSpec] = [
    OpSpec(f"Array.{name}", _A, None, None, value_rule=rule)
    for name, rule in (("shape", ix.shape_value), ("dtype", ix.dtype_value),
                       ("ndim", ix.ndim_value), ("size", ix.size_value))
]

_FILLED = _p("shape", "dtype", dtype=NONE)
_LIKE = _p("a", "dtype", "shape", dtype=NONE, shape=NONE)
_DTYPE_NAMES = ("float32", "bfloat16", "float16", "int8", "int16", "int32", "uint8",
                "uint16", "uint32", "float64", "int64", "uint64", "bool_", "float8_e4m3fn", "float8_e5m2", "int4",
                "uint4")
_CREATION: list[OpSpec] = [
    *(OpSpec(f"jax.numpy.{name}", _FILLED, cr.shape_argument, cr.explicit_or(FLOAT32))
      for name in ("zeros", "ones", "empty")),
    OpSpec("jax.numpy.full", _p("shape", "fill_value", "dtype", dtype=NONE),
           cr.full_shape, cr.explicit_or(None)),
    *(OpSpec(f"jax.numpy.{name}", _LIKE, cr.like_shape, cr.like_dtype)
      for name in ("zeros_like", "ones_like", "empty_like")),
    OpSpec("jax.numpy.full_like", _p("a", "fill_value", "dtype", "shape", dtype=NONE,
                                     shape=NONE), cr.like_shape, cr.like_dtype),
    OpSpec("jax.lax.iota", _p("dtype", "size"), cr.iota_shape, cr.scalar_of_argument),
    OpSpec("jax.lax.broadcasted_iota", _p("dtype", "shape", "dimension"),
           cr.broadcasted_iota_shape, cr.scalar_of_argument),
    OpSpec("jax.numpy.arange", _p("start", "stop", "step", "dtype", stop=NONE, step=NONE,
                                  dtype=NONE), cr.arange_shape, cr.arange_dtype),
    OpSpec("jax.numpy.array", _p("a", "dtype", dtype=NONE), cr.array_shape,
           cr.array_dtype),
    OpSpec("jax.numpy.asarray", _p("a", "dtype", dtype=NONE), cr.array_shape,
           cr.array_dtype),
    *(OpSpec(f"jax.numpy.{name}", _A, cr.array_shape, cr.constructor(name))
      for name in _DTYPE_NAMES),
    *(OpSpec(f"jax.numpy.finfo.{field}", _p("dtype"), cr.scalar_shape, cr.float_info_dtype)
      for field in ("min", "max", "eps", "tiny")),
    *(OpSpec(f"jax.numpy.iinfo.{field}", _p("dtype"), None, None,
             value_rule=cr.int_limit(field)) for field in ("min", "max")),
    *(OpSpec(f"jax.numpy.{info}.bits", _p("dtype"), None, None, value_rule=cr.info_bits)
      for info in ("finfo", "iinfo")),
]

OPS: Mapping[str, OpSpec] = {
    spec.name: spec
    for spec in [*_ELEMENTWISE, *_CONTRACTIONS, *_REDUCTION_SPECS, *_STRUCTURAL,
                 *_PROPERTIES, *_CREATION, *_PALLAS_VALUES]
}


def operations_table() -> str:
    """The Markdown table of every modelled operation (`docs/api.md` holds it)."""
    groups: dict[str, list[str]] = {}
    for name in sorted(OPS):
        module, _, short = name.rpartition(".")
        if module.endswith(("finfo", "iinfo")):
            module, _, kind = module.rpartition(".")
            short = f"{kind}(...).{short}"
        groups.setdefault(module, []).append(short)
    rows = [f"| `{module}` | {', '.join(f'`{n}`' for n in names)} |" for module, names in sorted(groups.items())]
    return "| module | operations |\n|---|---|\n" + "\n".join(rows) + "\n"
