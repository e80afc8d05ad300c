"""The one interface through which a domain (the Pallas API; next, array shapes) gives
meaning to what the generic interpreter does not know.

A `Context` holds its domains in order (`Context.domains`).  Each event below goes to
them in that order:

- *questions* (`call_name`, `call_value`, `attribute`, `subscript`, `binop`, `unary`,
  `compare`): the first answer that is not `NOT_MINE` wins; with none, Python's own
  semantics (or UNKNOWN);
- *notices* (`note`, `store`, `truth_asked`, `unknown_method`, `escape`,
  `unknown_argument`, `unknown_assigned`, `uncalled`): every domain sees them;
- `entering_helper` is a fold (each domain gets the previous one's value), and
  `class_attrs` a union.

A domain's own values subclass `values.DomainValue` (join, loop fixpoints, memo keys).
The base class answers nothing: a domain overrides what it needs."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

from ..records import mypyc_attr
from ..values import UNKNOWN, Const
from .frame import Binding, CallArgs, Context, Evaluator, Frame


class _NotMine:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_MINE"


NOT_MINE: Any = _NotMine()   # a domain's answer about a name or value that is not its own


def told_to_domains(value: Any) -> bool:
    """Whether the domains hear of `value` entering a helper or escaping: not of Python's
    constants nor of UNKNOWN, which hold nothing of theirs."""
    return value is not UNKNOWN and type(value) is not Const


@dataclass(slots=True)
class HelperCall:
    """A direct call of a user function from user code, as one argument enters it."""

    arg: ast.AST          # the argument expression
    call: ast.AST         # the call node
    stmt: ast.AST         # the statement holding the call
    callee: str           # the function's name
    callee_node: Any      # its def (or lambda)
    frame: Frame          # the caller's frame

    def __init__(self, arg: ast.AST, call: ast.AST, stmt: ast.AST, callee: str, callee_node: Any,
                 frame: Frame) -> None:   # native (`records`)
        self.arg = arg
        self.call = call
        self.stmt = stmt
        self.callee = callee
        self.callee_node = callee_node
        self.frame = frame


@mypyc_attr(allow_interpreted_subclasses=True)   # the domains derive from it
class Domain:
    """What a domain may answer or be told; every method is optional."""

    # ------------------------------------------------------------------ questions
    def call_name(self, ev: Evaluator, qname: str, call: CallArgs) -> Any:
        """A library name (canonical dotted name, an `Api`) called (before the builtins)."""
        return NOT_MINE

    def call_value(self, ev: Evaluator, callee: Any, call: CallArgs) -> Any:
        """A domain's value (a `DomainValue`) called."""
        return NOT_MINE

    def attribute(self, ev: Evaluator, obj: Any, attr: str) -> Any:
        """`obj.attr` of a domain's value (a `DomainValue`)."""
        return NOT_MINE

    def subscript(self, ev: Evaluator, base: Any, node: ast.Subscript, frame: Frame) -> Any:
        """`base[...]` read (`node.value` evaluated to `base`; `x.at[...]` has the value of
        `x.at` as its base).  The slice is not evaluated yet: whoever answers evaluates
        what it needs of `node.slice`; with no answer the interpreter evaluates it."""
        return NOT_MINE

    def binop(self, ev: Evaluator, left: Any, op: ast.operator, right: Any,
              node: ast.AST | None = None, frame: Frame | None = None) -> Any:
        """`left op right` where an operand is not a number, constant, sequence or UNKNOWN;
        `node` (the `BinOp`, or the `AugAssign` statement) in `frame` where there is one."""
        return NOT_MINE

    def unary(self, ev: Evaluator, op: ast.unaryop, operand: Any) -> Any:
        """`op operand` (not `not`) of such an operand."""
        return NOT_MINE

    def compare(self, ev: Evaluator, op: ast.cmpop, left: Any, right: Any,
                node: ast.AST | None = None, frame: Frame | None = None) -> Any:
        """`left op right` of such operands: True, False, None (not static), a domain
        value (an elementwise comparison, `x > 0`) or NOT_MINE; `node` (the `Compare`) in
        `frame` where there is one."""
        return NOT_MINE

    # ------------------------------------------------------------------ notices
    def note(self, ev: Evaluator, node: ast.AST, value: Any, frame: Frame) -> None:
        """A `DomainValue` named (a name, an attribute) in the analysed document itself."""

    def store(self, ev: Evaluator, base: Any, node: ast.Subscript, value: Any, frame: Frame) -> None:
        """`base[...] = value` (and `base[...] op= x`, `value` being the result); the
        slice is not evaluated."""

    def truth_asked(self, ev: Evaluator, value: Any, node: ast.expr, frame: Frame) -> None:
        """Python asks whether a domain value is true (`if`, `while`, `assert`, `and` /
        `or` / `not`, a conditional expression); `node` is the expression."""

    def unknown_method(self, ev: Evaluator, name: str) -> None:
        """A method called on a value nobody knows (`obj.name(...)` with `obj` UNKNOWN)."""

    def escape(self, ev: Evaluator, values: Iterable[Any]) -> None:
        """Values handed to code the interpreter does not follow (never Python's
        constants nor UNKNOWN)."""

    def unresolved_call(self, ev: Evaluator) -> None:
        """A call not followed whose callee is not a library name (an unknown value, a
        function whose arguments cannot be placed): it may run any code in scope."""

    def unknown_argument(self, ev: Evaluator, param: Binding, node: ast.AST, frame: Frame) -> None:
        """An UNKNOWN argument, written as `node`, bound to a helper's parameter."""

    def unknown_assigned(self, ev: Evaluator, name: str, node: ast.AST, frame: Frame) -> None:
        """`name = node` where the value is UNKNOWN."""

    def uncalled(self, ev: Evaluator) -> AbstractContextManager[Any]:
        """Entered while the interpreter runs closures nothing calls (to find what they do)."""
        return nullcontext()

    # ------------------------------------------------------------------ the rest
    def entering_helper(self, ev: Evaluator, value: Any, call: HelperCall) -> Any:
        """An argument's value as it enters a helper called from user code (the same
        value when nothing changes).  Not asked of Python's constants nor of UNKNOWN."""
        return value

    # A call of another module's function is remembered across runs when what it did
    # beyond its result can be done again (`interp.summaries`): it left this domain's
    # `record_size` as it was, and what it added since `mark` is given by `since` and
    # added again by `redo`.
    def record_size(self, ctx: Context) -> Any:
        """How much this domain has recorded of the entry in `ctx` so far (hashable),
        but what `since` gives: any change, even one that repeats what is there, must
        change it."""
        return None

    def mark(self, ctx: Context) -> Any:
        """Where the record's parts that `since` gives end now."""
        return None

    def since(self, ctx: Context, mark: Any) -> Any:
        """What those parts gained since `mark` (None: nothing)."""
        return None

    def redo(self, ctx: Context, gained: Any) -> None:
        """Add again what `since` gave."""

    def class_attrs(self, qname: str) -> dict[str, Any]:
        """Attributes JAX gives every instance of the library class `qname` (and of the
        user classes deriving from it)."""
        return {}


def answering(domains: tuple[Domain, ...], hook: str) -> tuple[Domain, ...]:
    """The domains that define `hook` themselves (the others would give the base class's
    answer: asking them is skipped on the hottest paths)."""
    base = getattr(Domain, hook)
    return tuple(d for d in domains if getattr(type(d), hook) is not base)
