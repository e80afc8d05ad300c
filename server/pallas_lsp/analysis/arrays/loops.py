"""Rule PAL407: a `fori_loop` / `while_loop` body that returns its carry with another
shape or dtype than it was given. JAX traces the body once and raises (`lax.scan` /
`lax.while_loop`: `... body function carry input and carry output must have equal
types`); a weakly typed initial carry (`0.0`) takes the body's dtype, not its shape."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

from ..interp.frame import CallArgs, Evaluator
from ..report import ContractFinding
from ..values import Seq
from .args import as_array
from .findings import add_once, reportable
from .shapes import ArrayV, is_static, text
from .values import to_arg


def check_carry(ev: Evaluator, call: CallArgs, init: Any, init_node: ast.AST | None, carried: Any,
                loop: str) -> None:
    """PAL407 at the loop `call` (`loop`: "scan" for a `fori_loop` of static bounds,
    "while_loop" otherwise) when a part of the carry changes type."""
    if call.node is None or not reportable(ev, call.frame):
        return
    for path, before, after in _leaves(init, carried, ""):
        what = _mismatch(before, after)
        if what is None:
            continue
        seg = call.frame.block.segment
        name = f"`{seg(init_node)}`{path}" if init_node is not None else f"the carry{path}"
        message = (f"{loop} body function carry input and carry output must have equal types, but they differ: "
                   f"{name} enters the loop as {text(before)} and the body returns {text(after)}, so the {what} "
                   "do not match.")
        add_once(ev, ContractFinding("PAL407", call.frame.loc(call.node), message))
        return


def _leaves(init: Any, out: Any, path: str) -> Iterator[tuple[str, ArrayV, ArrayV]]:
    """The carry's parts, paired, where both sides are arrays (or Python numbers)."""
    if isinstance(init, Seq) and isinstance(out, Seq) and len(init.items) == len(out.items):
        for i, (a, b) in enumerate(zip(init.items, out.items)):
            yield from _leaves(a, b, f"{path}[{i}]")
        return
    a, b = as_array(to_arg(init)), as_array(to_arg(out))
    if a is not None and b is not None:
        yield path, a, b


def _mismatch(before: ArrayV, after: ArrayV) -> str | None:
    """"shapes" / "dtypes" where JAX certainly rejects the pair (a weak carry is
    converted to the body's dtype first)."""
    if before.shape is None or after.shape is None or not is_static(before.shape) or not is_static(after.shape):
        return None
    if tuple(before.shape) != tuple(after.shape):
        return "shapes"
    if before.dtype is None or after.dtype is None or before.dtype.weak:
        return None
    return "dtypes" if before.dtype.name != after.dtype.name else None
