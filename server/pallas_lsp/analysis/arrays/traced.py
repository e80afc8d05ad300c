"""Rule PAL411: Python control flow on a traced value in a kernel body (`if x > 0:`,
`while`, `assert`, `and` / `or` / `not`, `a if c else b`). Python asks the value's
truth once, while JAX traces the kernel, and a traced value has none: JAX raises
(`TracerBoolConversionError`, or NumPy's words for more than one element)."""

from __future__ import annotations

import ast

from ..interp.frame import Evaluator, Frame
from ..report import ContractFinding
from .findings import add_once
from .shapes import ArrayV, is_static, text


def traced_condition(ev: Evaluator, frame: Frame, array: ArrayV, node: ast.expr) -> None:
    """PAL411 at `node`, a condition whose value is the traced `array`."""
    if array.shape is None or not is_static(array.shape) or array.dtype is None:
        return
    size = 1
    for d in array.shape:
        size *= int(d)
    if size > 1:
        words = "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()"
    else:
        dims = ",".join(str(d) for d in array.shape)
        words = f"Attempted boolean conversion of traced array with shape {array.dtype.name}[{dims}]."
    message = (f"{words} — `{frame.block.segment(node)}` is {text(array)}, a value JAX traces: Python asks its truth "
               "once, while tracing, and it has none yet. Choose on the value in the kernel: `jnp.where`, "
               "`lax.cond` / `lax.select`, or `pl.when` for a block of code.")
    add_once(ev, ContractFinding("PAL411", frame.loc(node), message))
