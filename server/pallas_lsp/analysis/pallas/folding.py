"""Logical operations on known values, during a replay: at a concrete grid point a
condition such as `jnp.logical_and(i == 0, j == 0)` has a value, which decides the
`pl.when` it guards.  (Elsewhere the array domain gives its type: a traced bool.)"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from ..interp.domain import NOT_MINE, Domain
from ..interp.frame import CallArgs, Evaluator
from ..values import Const

_LOGICAL: dict[str, Callable[..., bool]] = {
    "logical_and": operator.and_, "logical_or": operator.or_, "logical_xor": operator.xor,
    "logical_not": operator.not_,
}
_FOLDED = {f"{module}.{name}": fn for module in ("jax.numpy", "numpy") for name, fn in _LOGICAL.items()}


class ReplayFolding(Domain):
    """Asked before the others while a kernel is replayed."""

    def call_name(self, ev: Evaluator, qname: str, call: CallArgs) -> Any:
        fn = _FOLDED.get(qname)
        if fn is None or call.kwargs or call.has_star:
            return NOT_MINE
        values = call.values()
        if len(values) != (1 if fn is operator.not_ else 2) \
                or not all(isinstance(v, Const) and type(v.value) in (bool, int) for v in values):
            return NOT_MINE
        return Const(bool(fn(*(bool(v.value) for v in values))))
