"""The array domain: jnp / lax operations, array methods, operators and indexing on
array values, answered by the model's table (`table.apply`) as the generic interpreter
asks (`interp.domain`).  Array values come from ref reads (the Pallas domain) and from
the constructors (`jnp.zeros`, `lax.broadcasted_iota`, ...)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from ..caches import CACHES
from ..interp.domain import NOT_MINE, Domain
from ..interp.frame import Arg as CallArg
from ..interp.frame import CallArgs, Context, Evaluator, Frame
from ..values import UNKNOWN, Const, Loc
from . import refs
from .args import Arg, DTypeArg, Py
from .args import Seq as ArgSeq
from .findings import Operand, Operation, check, reportable
from .shapes import ArrayV
from .table import OPS, apply
from .traced import traced_condition
from .values import PY_FLOAT, ArrayMethod, ArrayRef, ArrayValue, PyFloat, TypeInfo, dtype_of_name, from_result, index_arg, to_arg

_BINARY = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
           ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul", ast.BitAnd: "and_", ast.BitOr: "or_",
           ast.BitXor: "xor", ast.LShift: "lshift", ast.RShift: "rshift"}
_UNARY = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert"}
_COMPARE = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
_PROPERTIES = frozenset({"shape", "dtype", "ndim", "size", "T"})
_INFOS = ("finfo", "iinfo")


@dataclass(unsafe_hash=True, slots=True)
class NamedValue:
    """An array value named somewhere in the analysed document (what hover shows)."""

    block: Any
    node: ast.AST
    array: ArrayV
    in_kernel: bool       # named while a kernel body (or code it calls) runs

    def __init__(self, block: Any, node: ast.AST, array: ArrayV, in_kernel: bool) -> None:   # native (`records`)
        self.block = block
        self.node = node
        self.array = array
        self.in_kernel = in_kernel


class ArrayDomain(Domain):
    """Stateless: what it learns of an entry goes to the entry's `Context`."""

    def call_name(self, ev: Evaluator, qname: str, call: CallArgs) -> Any:
        if qname == "float":
            first = call.value(0)
            scalar = isinstance(first, ArrayValue) and first.array.shape == () or isinstance(first, PyFloat)
            return PY_FLOAT if scalar and len(call.args) == 1 else NOT_MINE
        if qname in OPS:
            return _applied(ev, qname, [], call, _loc(call))
        if not qname.startswith(("jax.numpy.", "numpy.")):
            return NOT_MINE
        kind = qname.rsplit(".", 1)[-1]
        if kind in _INFOS:
            dtype = _dtype_argument(call)
            return TypeInfo(kind, dtype) if dtype is not None else NOT_MINE
        if qname.startswith("numpy.") and f"jax.{qname}" in OPS and dtype_of_name(qname) is not None:
            # `np.float32(0.5)`: strong, as jnp's, and concrete
            return _applied(ev, f"jax.{qname}", [], call, _loc(call), concrete=True)
        return NOT_MINE

    def call_value(self, ev: Evaluator, callee: Any, call: CallArgs) -> Any:
        if isinstance(callee, ArrayMethod):
            answer = _applied(ev, f"Array.{callee.name}", [callee.array], call, None)
            return UNKNOWN if answer is NOT_MINE else answer
        return NOT_MINE

    def attribute(self, ev: Evaluator, obj: Any, attr: str) -> Any:
        if isinstance(obj, ArrayValue):
            name = f"Array.{attr}"
            if attr in _PROPERTIES:
                return from_result(_model(name, [obj.array], {}), None)
            return ArrayMethod(obj.array, attr) if name in OPS else UNKNOWN
        if isinstance(obj, TypeInfo):
            field = _model(f"jax.numpy.{obj.kind}.{attr}", [DTypeArg(obj.dtype)], {})
            return from_result(field, None, concrete=True)   # a NumPy scalar
        return NOT_MINE

    def subscript(self, ev: Evaluator, base: Any, node: ast.Subscript, frame: Frame) -> Any:
        if not isinstance(base, ArrayValue):
            return NOT_MINE
        index = _index(ev, node.slice, frame)
        return from_result(_model("Array.__getitem__", [base.array, index], {}), None)

    def binop(self, ev: Evaluator, left: Any, op: ast.operator, right: Any,
              node: ast.AST | None = None, frame: Frame | None = None) -> Any:
        name = _BINARY.get(type(op))
        return _operator(ev, name, (left, right), node, frame) if name is not None else NOT_MINE

    def unary(self, ev: Evaluator, op: ast.unaryop, operand: Any) -> Any:
        name = _UNARY.get(type(op))
        return _operator(ev, name, (operand,), None, None) if name is not None else NOT_MINE

    def compare(self, ev: Evaluator, op: ast.cmpop, left: Any, right: Any,
                node: ast.AST | None = None, frame: Frame | None = None) -> Any:
        name = _COMPARE.get(type(op))
        return _operator(ev, name, (left, right), node, frame) if name is not None else NOT_MINE

    def truth_asked(self, ev: Evaluator, value: Any, node: ast.expr, frame: Frame) -> None:
        if type(value) is ArrayValue and not value.concrete and reportable(ev, frame):
            traced_condition(ev, frame, value.array, node)

    def record_size(self, ctx: Context) -> Any:
        """The findings the body rules made (`add_once` counts those it did not repeat)."""
        return len(ctx.rule_findings), ctx.reports

    def note(self, ev: Evaluator, node: ast.AST, value: Any, frame: Frame) -> None:
        if type(value) is ArrayValue:
            grids = ev.ctx.grids   # some pallas_call's grid in force: a kernel (or code it calls) runs
            in_kernel = grids.count(None) < len(grids)
            ev.ctx.views.append(NamedValue(frame.block, node, value.array, in_kernel))


def _model(name: str, args: list[Arg], kwargs: dict[str, Arg]) -> Any:
    """The model's answer (`table.apply`), memoised: kernels repeat their operations."""
    key = (name, tuple(args), tuple(kwargs.items()))
    try:
        hit = CACHES.array_ops.get(key, _MISSING)
    except TypeError:   # an unhashable static value
        return apply(name, args, kwargs)
    return hit if hit is not _MISSING else CACHES.array_ops.put(key, apply(name, args, kwargs))


_MISSING = object()


def _loc(call: CallArgs) -> Loc | None:
    return call.frame.loc(call.node) if call.node is not None else None


def _operator(ev: Evaluator, name: str, operands: tuple, node: ast.AST | None, frame: Frame | None) -> Any:
    """A Python operator where an operand is an array value (else not this domain's)."""
    if node is not None and frame is not None and any(isinstance(v, ArrayRef) for v in operands) \
            and reportable(ev, frame):
        refs.check_operator(ev, frame, name, operands, node)
    if not any(isinstance(v, ArrayValue) for v in operands):
        return _float_arithmetic(name, operands)
    args = [to_arg(v) for v in operands]
    result = _model(f"operator.{name}", args, {})
    if node is not None and frame is not None and reportable(ev, frame):
        described = tuple(Operand(n, a if isinstance(a, ArrayV) else None) for n, a in zip(_sides(node), args))
        check(ev, frame, Operation(f"operator.{name}", frame.loc(node), described), result)
    concrete = all(v.concrete for v in operands if isinstance(v, ArrayValue))   # NumPy's arithmetic
    return NOT_MINE if result is None else from_result(result, None, concrete)


def _float_arithmetic(name: str, operands: tuple) -> Any:
    """Python arithmetic on a Python float of unknown value: a Python float."""
    numbers = all(isinstance(v, PyFloat) or isinstance(v, Const) and type(v.value) in (int, float)
                  for v in operands)
    return PY_FLOAT if numbers and name in _FLOAT_ARITHMETIC and any(isinstance(v, PyFloat) for v in operands) \
        else NOT_MINE


_FLOAT_ARITHMETIC = frozenset({"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "neg", "pos"})


def _sides(node: ast.AST) -> tuple[ast.AST | None, ast.AST | None]:
    """An operator's two operand expressions."""
    if isinstance(node, ast.BinOp):
        return node.left, node.right
    if isinstance(node, ast.AugAssign):
        return node.target, node.value
    if isinstance(node, ast.Compare) and len(node.comparators) == 1:
        return node.left, node.comparators[0]
    return None, None


def _applied(ev: Evaluator, name: str, front: list[Arg], call: CallArgs, origin: Loc | None,
             concrete: bool = False) -> Any:
    """The value of calling the table's `name` where the model knows it; otherwise the
    call is left to the other domains (`lax.rem(i, n)` of an unknown `n` is the Pallas
    domain's number)."""
    if call.has_star or "**" in call.kwargs:
        return NOT_MINE
    args = [*front, *(to_arg(a.value, a.node) for a in call.args if isinstance(a, CallArg))]
    kwargs = {k: to_arg(a.value, a.node) for k, a in call.kwargs.items()}
    result = _model(name, args, kwargs)
    if call.node is not None and reportable(ev, call.frame):
        check(ev, call.frame, _operation(name, front, call.node, call, args), result)
        if result is None:   # a ref given for an array?
            refs.check_call(ev, name, call)
    return NOT_MINE if result is None else from_result(result, origin, concrete)


def _operation(name: str, front: list[Arg], node: ast.AST, call: CallArgs, args: list[Arg]) -> Operation:
    """The call as the rules see it: its operands' source text (a method's receiver first)."""
    receiver = node.func.value if front and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        else None
    nodes = [receiver] * len(front) + [a.node for a in call.args if isinstance(a, CallArg)]
    operands = tuple(Operand(n, a if isinstance(a, ArrayV) else None) for n, a in zip(nodes, args))
    return Operation(name, call.frame.loc(node), operands, frozenset(call.kwargs))


def _dtype_argument(call: CallArgs) -> Any:
    first = call.value(0, "dtype")
    if isinstance(first, ArrayValue):
        return first.array.dtype
    arg = to_arg(first)
    return arg.dtype if isinstance(arg, DTypeArg) else None


def _index(ev: Evaluator, node: ast.expr, frame: Frame) -> Arg:
    """An array value's index: a `Py` when static, else a model `Seq` of its items."""
    elts = node.elts if isinstance(node, ast.Tuple) else [node]
    items = [_slice_item(ev, e, frame) if isinstance(e, ast.Slice) else index_arg(ev.eval(e, frame))
             for e in elts]
    if not isinstance(node, ast.Tuple):
        return items[0]
    if all(isinstance(i, Py) for i in items):
        return Py(tuple(i.value for i in items if isinstance(i, Py)))
    return ArgSeq(tuple(items))


def _slice_item(ev: Evaluator, node: ast.Slice, frame: Frame) -> Arg:
    bounds = []
    for part in (node.lower, node.upper, node.step):
        v = ev.eval(part, frame) if part is not None else Const(None)
        bounds.append(v.value if isinstance(v, Const) and (v.value is None or type(v.value) is int) else "?")
    return Py(("slice", *bounds))

