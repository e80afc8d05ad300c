"""Rule PAL412: a kernel that uses a JAX array made outside any function (a module-level
`BIAS = jnp.ones((1, 64))`). Tracing the kernel turns it into a constant of the kernel's
jaxpr, which `pallas_call` refuses (`... captures constants [f32[1,64]]. You should pass
them as inputs.`), where the `pallas_call` is applied."""

from __future__ import annotations

import ast

from ..arrays.dtypes import DType, short
from ..arrays.findings import add_once, reportable
from ..arrays.shapes import is_static
from ..arrays.values import ArrayValue
from ..interp.frame import Evaluator, Frame
from ..report import ContractFinding, ContractNote
from .values import PallasCall

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
# Reading these of an array makes no constant (`BIAS.shape[1]`).
_STATIC_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "size"})


def check_capture(ev: Evaluator, node: ast.Name, value: ArrayValue, frame: Frame) -> None:
    """PAL412 at the `pallas_call` whose kernel reads `node`, a module-level JAX array."""
    origin, array = value.origin, value.array
    if origin is None or origin.path is not None:
        return
    tree = origin.block.tree
    if tree is None or not tree.body or isinstance(tree.body[0], _DEFINITIONS):
        return   # made in a function (the kernel's own values), or in another file
    record = ev.ctx.grids[-1] if ev.ctx.grids else None
    if array.dtype is None or array.shape is None or not is_static(array.shape) \
            or not isinstance(record, PallasCall) or record.node is None or not reportable(ev, frame):
        return
    if _static_use(frame.stmt, node) or not _applied_at_once(record):
        return
    dims = ",".join(str(d) for d in array.shape)
    constant = f"{short(DType(array.dtype.name))}[{dims}]"
    message = (f"The kernel function in the pallas_call captures constants [{constant}]. You should pass them as "
               f"inputs. — the kernel reads `{node.id}`, an array made at line {origin.block.start + 1} outside any "
               "function: JAX makes it a constant of the kernel. Pass it as an operand of the call (with its "
               "BlockSpec), or make it inside the kernel.")
    use = ContractNote(frame.loc(node), f"`{node.id}` is read in the kernel here")
    add_once(ev, ContractFinding("PAL412", record.frame.loc(record.node), message, (use,)))


def _static_use(stmt: ast.AST | None, name: ast.Name) -> bool:
    """`BIAS.shape` / `len(BIAS)`: what is read is static, no constant is made."""
    for n in ast.walk(stmt) if stmt is not None else ():
        if isinstance(n, ast.Attribute) and n.value is name:
            return n.attr in _STATIC_ATTRIBUTES
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and name in n.args:
            return True
    return False


def _applied_at_once(record: PallasCall) -> bool:
    """`pl.pallas_call(...)(x)`: JAX raises on the line that builds the call only when
    the same statement applies it."""
    stmt = getattr(record.frame, "stmt", None)
    return stmt is not None and any(isinstance(n, ast.Call) and n.func is record.node for n in ast.walk(stmt))
