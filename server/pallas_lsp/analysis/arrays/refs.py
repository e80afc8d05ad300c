"""Rule PAL410: a ref used where an array goes, without reading it (`jnp.dot(x_ref, w)`
for `jnp.dot(x_ref[...], w)`). JAX raises when it traces the kernel, in words that
depend on where the ref went (checked with JAX 0.10.2): a `jnp` function checks its
array arguments (`check_arraylike`), an operator finds no method on the ref; Pallas's
store says it itself (`pallas.stores`)."""

from __future__ import annotations

import ast
from typing import Any

from ..interp.frame import Arg as CallArg
from ..interp.frame import CallArgs, Evaluator, Frame
from ..report import ContractFinding
from ..values import Seq, is_number
from .findings import add_once
from .values import ArrayRef, ArrayValue

# The `jnp` functions that check their array arguments, with the name JAX's message gives.
_ARRAYLIKE = {name: name for name in (
    "add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "maximum", "minimum", "less",
    "less_equal", "greater", "greater_equal", "equal", "not_equal", "power", "exp", "exp2", "log", "log1p", "sqrt",
    "tanh", "sin", "cos", "reciprocal", "absolute", "negative", "square", "floor", "ceil", "sign", "isnan",
    "isfinite", "round", "where", "clip", "dot", "matmul", "einsum", "sum", "prod", "mean", "max", "min", "any",
    "all", "argmax", "argmin", "cumsum", "reshape", "transpose", "swapaxes", "moveaxis", "expand_dims", "squeeze",
    "broadcast_to", "tile", "repeat", "concatenate", "stack", "flip", "roll", "astype")}
_ARRAYLIKE.update(divide="true_divide", mod="remainder", abs="absolute")
# The functions whose array arguments come in one sequence (`jnp.concatenate([a, b])`).
_SEQUENCE = frozenset({"concatenate", "stack"})
_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**",
            "matmul": "@"}
_REFLECTED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}   # `v < x_ref` asks `x_ref > v`


def check_call(ev: Evaluator, name: str, call: CallArgs) -> None:
    """PAL410 at the first ref among a `jnp` function's array arguments."""
    short = name.rpartition(".")[2]
    jax_name = _ARRAYLIKE.get(short) if name.startswith("jax.numpy.") else None
    if jax_name is None or call.node is None:
        return
    values = [a.value for a in call.args if isinstance(a, CallArg)]
    nodes = [a.node for a in call.args if isinstance(a, CallArg)]
    if short == "einsum":
        values, nodes = values[1:], nodes[1:]
    elif short in _SEQUENCE and values and isinstance(values[0], Seq):
        node = nodes[0]
        values = list(values[0].items)
        nodes = list(node.elts) if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) == len(values) \
            else [None] * len(values)
    for position, (value, node) in enumerate(zip(values, nodes)):
        if isinstance(value, ArrayRef):
            kind = "TransformedRef" if value.view else "DynamicJaxprTracer"
            words = f"{jax_name} requires ndarray or scalar arguments, got <class '...{kind}'> at position {position}."
            _report(ev, call.frame, call.node, words, value, node)
            return


def check_operator(ev: Evaluator, frame: Frame, name: str, operands: tuple, node: ast.AST) -> None:
    """PAL410 at an operator with a ref operand: the ref has no method for it."""
    left, right = operands
    sides = _sides(node)
    if sides is None or name not in _SYMBOLS and name not in _REFLECTED:
        return
    if any(isinstance(v, ArrayRef) and v.view for v in operands):
        return   # a view's operators fail in words that name the other operand's Python type
    augmented = isinstance(node, ast.AugAssign)
    if augmented and not (isinstance(left, ArrayValue) and isinstance(right, ArrayRef)):
        return
    if isinstance(left, ArrayRef):
        words, ref, ref_node = f"'AbstractRef' object has no attribute '_{name}'", left, sides[0]
    elif not isinstance(right, ArrayRef):
        return
    elif name in _REFLECTED:
        words, ref, ref_node = f"'AbstractRef' object has no attribute '_{_REFLECTED[name]}'", right, sides[1]
    elif isinstance(left, ArrayValue):   # neither side has the operator: Python says so
        symbol = _SYMBOLS[name] + ("=" if augmented else "")
        words, ref, ref_node = (f"unsupported operand type(s) for {symbol}: 'DynamicJaxprTracer' and "
                                "'DynamicJaxprTracer'"), right, sides[1]
    elif is_number(left):
        words, ref, ref_node = f"'AbstractRef' object has no attribute '_r{name}'", right, sides[1]
    else:
        return
    _report(ev, frame, node, words, ref, ref_node)


def _sides(node: ast.AST) -> tuple[ast.AST, ast.AST] | None:
    if isinstance(node, ast.BinOp):
        return node.left, node.right
    if isinstance(node, ast.AugAssign):
        return node.target, node.value
    if isinstance(node, ast.Compare) and len(node.comparators) == 1:
        return node.left, node.comparators[0]
    return None


def stored_ref(ev: Evaluator, frame: Frame, at: ast.AST, ref: ArrayRef, node: ast.AST | None) -> None:
    """PAL410 at a store of a ref (`o_ref[...] = x_ref`)."""
    _report(ev, frame, at, "Cannot store a Ref into another Ref. Did you forget to load from it using `[...]`?",
            ref, node)


def _report(ev: Evaluator, frame: Frame, at: ast.AST, words: str, ref: Any, node: ast.AST | None) -> None:
    text = frame.block.segment(node) if node is not None else "the ref"
    message = f"{words} — `{text}` is {ref.described()}, not an array: read it first (`{text}[...]`)."
    add_once(ev, ContractFinding("PAL410", frame.loc(at), message))
