"""`jax.shard_map(f, mesh=..., in_specs=..., out_specs=...)(*operands)`: JAX traces `f`
once each time the mapped function is called, with each operand's part on one device (of
a shape the mesh decides: unknown here)."""

from __future__ import annotations

import ast
from typing import Any

from ..interp.calls import leans_on_own_entry
from ..interp.frame import Arg, ArgOrStar, CallArgs, Evaluator
from ..values import UNKNOWN, Bound, Func, Partial
from .model import Invoker
from .values import ShardMapped


def shard_map(ev: Evaluator, spec: Invoker, call: CallArgs) -> Any:
    """The mapped function, where the code calls it at once (`shard_map(f, ...)(x)`): that
    call surely runs `f`.  Otherwise (kept, returned, decorated, a top-level function
    whose own entry runs it) `f` is code handed on, run as one that may be called."""
    func = call.value(0, "f")
    if isinstance(func, (Func, Partial, Bound)) and not leans_on_own_entry(ev.ctx, func) \
            and _called_at_once(call):
        return ShardMapped(func)
    ev.callbacks_unknown_call(call.args, call.kwargs, call.frame)
    return UNKNOWN


def apply_shard_map(ev: Evaluator, value: ShardMapped, call: CallArgs) -> Any:
    """Trace the mapped function once, with operands of unknown (per-device) shape."""
    args: list[ArgOrStar] = [Arg(UNKNOWN) if isinstance(a, Arg) else a for a in call.args]
    kwargs = {name: Arg(UNKNOWN) for name in call.kwargs}
    ev.call(value.func, args, kwargs, call.node, call.frame, helper=False)
    return UNKNOWN


def _called_at_once(call: CallArgs) -> bool:
    """Whether the `shard_map(...)` call is itself the callee of a call (in the statement
    being run)."""
    stmt = call.frame.stmt
    return stmt is not None and call.node is not None and \
        any(type(n) is ast.Call and n.func is call.node for n in ast.walk(stmt))
