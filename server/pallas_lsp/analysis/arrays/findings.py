"""PAL403-PAL405: array operations in a kernel body that JAX rejects, reported where the
model is certain (its `Rejected` answers), plus what the TPU lowering rejects and the
model's trace-level table does not decide: a narrow matmul accumulator (PAL404) and a
float iota (PAL409)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from ..interp.frame import Evaluator, Frame
from ..report import ContractFinding
from ..values import Loc
from .dtypes import FLOAT32, INT32, DType, is_float, is_integer, is_unsigned, short
from .repairs import accumulator_fixes, keepdims_fix
from .shapes import ArrayV, Rejected, is_static, text

# The calls and operator that lower to `tpu.matmul` (`pl.dot` accumulates in 32 bits).
_MATMULS = frozenset({"jax.numpy.dot", "jax.numpy.matmul", "jax.lax.dot_general", "operator.matmul"})
_EINSUM = "jax.numpy.einsum"
_NARROW = frozenset({"bfloat16", "int8", "int4", "float8_e4m3fn", "float8_e5m2"})
_DOT_SHAPE = "dot_general requires contracting dimensions"
_BROADCAST = "Incompatible shapes for broadcasting"
# The calls that lower to `tpu.iota` (`jnp.arange(n)` alone; its other forms are constants).
_IOTAS = frozenset({"jax.lax.iota", "jax.lax.broadcasted_iota", "jax.numpy.arange"})


@dataclass(unsafe_hash=True)
class Operand:
    """An operand of the operation as the author wrote it."""

    node: ast.AST | None
    array: ArrayV | None

    def __init__(self, node: ast.AST | None, array: ArrayV | None) -> None:   # native (`records`)
        self.node = node
        self.array = array


@dataclass(unsafe_hash=True)
class Operation:
    """One call / method / operator the array domain answered, where it is in the code."""

    name: str                   # the model's name (`jax.numpy.dot`, `operator.add`, ...)
    at: Loc                     # the call or operator expression
    operands: tuple[Operand, ...]
    keywords: frozenset[str] = frozenset()

    def __init__(self, name: str, at: Loc, operands: tuple[Operand, ...],
                 keywords: frozenset[str] = frozenset()) -> None:   # native (`records`)
        self.name = name
        self.at = at
        self.operands = operands
        self.keywords = keywords


def reportable(ev: Evaluator, frame: Frame) -> bool:
    """Code of the analysed document that JAX certainly traces as a kernel body."""
    ctx = ev.ctx
    if frame.path is not None or ctx.silent or ctx.uncertain > ctx.staged or ctx.uncalled:
        return False
    return any(g is not None for g in ctx.grids)


def check(ev: Evaluator, frame: Frame, op: Operation, result: Any) -> None:
    """Report `op` (in `reportable` code) if JAX rejects it: the model's `Rejected`, or a
    narrow matmul result."""
    if isinstance(result, Rejected):
        code = "PAL403" if result.message.startswith(_DOT_SHAPE) else "PAL405"
        fixes = keepdims_fix(ev, frame, op.at, [o.node for o in op.operands], [o.array for o in op.operands]) \
            if result.message.startswith(_BROADCAST) else ()
        add_once(ev, ContractFinding(code, op.at, f"{result.message} {_described(op)}".rstrip(), (), fixes))
    elif isinstance(result, ArrayV) and (op.name in _MATMULS or op.name == _EINSUM):
        _narrow_matmul(ev, frame, op, result)
    elif isinstance(result, ArrayV) and op.name in _IOTAS:
        _float_iota(ev, op, result)


def add_once(ev: Evaluator, finding: ContractFinding) -> None:
    """Once per node: loops and grid replays run a body more than once."""
    ev.ctx.reports += 1
    if not any(f.code == finding.code and f.at.node is finding.at.node for f in ev.ctx.rule_findings):
        ev.ctx.rule_findings.append(finding)


def _described(op: Operation) -> str:
    """`— `q` is f32[128, 64], `k` is f32[256, 64].` for the operands known by their text."""
    parts = [f"`{op.at.block.segment(o.node)}` is {text(o.array)}" for o in op.operands
             if o.node is not None and o.array is not None and o.array.shape is not None]
    return f"— {', '.join(parts)}." if parts else ""


def _narrow_matmul(ev: Evaluator, frame: Frame, op: Operation, result: ArrayV) -> None:
    """bf16 / int8 / fp8 results of a 2-D or batched 3-D matmul: Mosaic wants a 32-bit
    accumulator."""
    dtype = result.dtype
    arrays = _matmul_operands(op)
    if dtype is None or dtype.weak or dtype.name not in _NARROW or arrays is None:
        return
    if any(a is None or a.shape is None or not 2 <= len(a.shape) <= 3 or a.dtype is None or is_unsigned(a.dtype)
           for a in arrays):
        return
    wide = INT32 if is_integer(dtype) else FLOAT32
    message = (f"'tpu.matmul' op Expected matmul acc to be 32-bit: this product is {short(dtype)} "
               f"{_described(op)} Accumulate in {wide.name} (`preferred_element_type=jnp.{wide.name}`) and cast "
               "the result where a narrow value is wanted.")
    add_once(ev, ContractFinding("PAL404", op.at, message, (),
                                 accumulator_fixes(ev, frame, op.at, op.keywords, dtype, wide)))


def _float_iota(ev: Evaluator, op: Operation, result: ArrayV) -> None:
    """PAL409: a float iota; Mosaic's `tpu.iota` makes integers only."""
    if result.dtype is None or not is_float(result.dtype) or result.shape is None or not is_static(result.shape):
        return
    if op.name == "jax.numpy.arange" and (len(op.operands) != 1 or not op.keywords <= {"dtype"}):
        return
    dims = tuple(result.shape) if len(result.shape) != 1 else (1, *result.shape)
    vector = "x".join(map(str, dims)) + "x" + short(DType(result.dtype.name))
    message = (f"'tpu.iota' op result #0 must be vector of integer or index values, but got 'vector<{vector}>' — "
               f"this iota is {text(result)}: make it int32 and convert it (`.astype(jnp.float32)`).")
    add_once(ev, ContractFinding("PAL409", op.at, message))


def _matmul_operands(op: Operation) -> list[ArrayV | None] | None:
    """The two matrices of a matmul; of an `einsum`, only where it contracts a label of
    both (`"hqd,hkd->hqk"`): elementwise and outer products lower otherwise."""
    if op.name in _MATMULS:
        return [o.array for o in op.operands[:2]] if len(op.operands) >= 2 else None
    if op.name != _EINSUM or len(op.operands) != 3 or not isinstance(op.operands[0].node, ast.Constant):
        return None
    spec = op.operands[0].node.value
    if not isinstance(spec, str) or spec.count("->") != 1 or spec.count(",") != 1 or "." in spec:
        return None
    inputs, output = spec.replace(" ", "").split("->")
    a, b = inputs.split(",")
    return [o.array for o in op.operands[1:]] if set(a) & set(b) - set(output) else None
