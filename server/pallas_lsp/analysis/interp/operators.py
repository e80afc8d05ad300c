"""Python operators on abstract values: arithmetic, comparisons, truth.  An operand of
another type (`PLAIN` says which are Python's) is first a question for the domains
(`core.Interpreter.binop`)."""

from __future__ import annotations

import ast
import operator
from typing import Any

from ..values import (
    MAX_ITEMS,
    SCALAR,
    UNKNOWN,
    Const,
    Iter,
    Mapping,
    Seq,
    SeqOf,
    SeqTail,
    element,
    is_number,
    items_like,
    join,
    sequence,
)

# The types Python's operators are modelled on here (numbers, constants, sequences, unknown).
PLAIN = frozenset({type(UNKNOWN), type(SCALAR), Const, Seq, Iter, SeqOf, SeqTail, Mapping})


def truth(v: Any) -> bool | None:
    """Whether a value is true, when static."""
    if isinstance(v, Seq):
        return bool(v.items)
    if isinstance(v, Const):
        try:
            return bool(v.value)
        except (TypeError, ValueError):
            return None
    return None


def binop(a: Any, op: ast.operator, b: Any) -> Any:
    if isinstance(op, ast.Add):
        if isinstance(a, Seq) and isinstance(b, Seq):
            return sequence(a.items + b.items, a.is_list)
        if isinstance(a, SeqOf) and isinstance(b, SeqOf):
            return SeqOf(join(a.item, b.item))
        if isinstance(a, (Seq, SeqOf)) and isinstance(b, (Seq, SeqOf)):
            items = [element(a), element(b)]
            return SeqOf(join(*items)) if all(x is not UNKNOWN for x in items) else UNKNOWN
        if isinstance(b, Seq) and b.items and (a is UNKNOWN or isinstance(a, (SeqTail, SeqOf))):
            return SeqTail((a.items if isinstance(a, SeqTail) else ()) + b.items)
        if isinstance(a, Seq) and isinstance(b, SeqTail):
            return b
    if isinstance(op, ast.Mult):
        if isinstance(a, Seq) and isinstance(b, Const) and type(b.value) is int:
            return _repeated(a, b.value)
        if isinstance(b, Seq) and isinstance(a, Const) and type(a.value) is int:
            return _repeated(b, a.value)
    if isinstance(op, ast.MatMult):
        return UNKNOWN
    if isinstance(a, (Seq, SeqOf, SeqTail, Mapping)) or isinstance(b, (Seq, SeqOf, SeqTail, Mapping)):
        return UNKNOWN
    numeric = (a is SCALAR or is_number(a), b is SCALAR or is_number(b))
    if not (isinstance(a, Const) and isinstance(b, Const)):
        # The result is a number (never a tuple) when an operand is one, except for
        # `+` / `*` with an unknown operand (tuple concatenation / repetition).
        if all(numeric) or (any(numeric) and not isinstance(op, (ast.Add, ast.Mult))):
            return SCALAR
        if not isinstance(op, (ast.Add, ast.Mult, ast.MatMult)):
            return SCALAR
        return UNKNOWN
    if isinstance(a, Const) and isinstance(b, Const) and type(a.value) in _NUMBERS and type(b.value) in _NUMBERS:
        return _arithmetic(op, a.value, b.value)
    return UNKNOWN


_NUMBERS = (int, float, bool)
_MAX_INT_BITS = 4096
_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
               ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
               ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor}


def _repeated(seq: Seq, times: int) -> Any:
    """`seq * times` (empty for `times <= 0`, as in Python), bounded like every sequence."""
    times = max(times, 0)
    if len(seq.items) * times > MAX_ITEMS:
        return items_like(seq.items)
    return Seq(seq.items * times, seq.is_list)


def _arithmetic(op: ast.operator, x: Any, y: Any) -> Any:
    """Python's arithmetic on two known numbers (an int power only with a small exponent)."""
    fn = _ARITHMETIC.get(type(op))
    if fn is None or isinstance(op, ast.Pow) and type(y) is not float and not -64 <= y < 64:
        return UNKNOWN
    try:
        result = fn(x, y)
    except (ZeroDivisionError, OverflowError, ValueError, TypeError):   # `1.5 & 1`
        return UNKNOWN
    if type(result) is int and result.bit_length() > _MAX_INT_BITS:
        return SCALAR   # a number squared in a loop: known no further, so it stays cheap
    return Const(result) if type(result) in _NUMBERS else UNKNOWN


_ORDER = {ast.Lt: lambda x, y: x < y, ast.LtE: lambda x, y: x <= y,
          ast.Gt: lambda x, y: x > y, ast.GtE: lambda x, y: x >= y}


def compare(op: ast.cmpop, a: Any, b: Any) -> bool | None:
    """A comparison decided statically (True / False), or None."""
    t = type(op)
    if t in (ast.Eq, ast.NotEq):
        eq = equal(a, b)
        return None if eq is None else (eq if t is ast.Eq else not eq)
    if t in (ast.Is, ast.IsNot):
        if isinstance(a, Const) and a.value is None or isinstance(b, Const) and b.value is None:
            other = b if isinstance(a, Const) and a.value is None else a
            if isinstance(other, Const):
                same = other.value is None
            elif other is UNKNOWN or other is SCALAR:
                return None
            else:
                same = False  # a semaphore, a tuple, a function...: not None
            return same if t is ast.Is else not same
        return None
    if t in _ORDER:
        if is_number(a) and is_number(b):
            return _ORDER[t](a.value, b.value)
        return None
    if t in (ast.In, ast.NotIn):
        if isinstance(a, Const) and isinstance(b, Seq) and all(isinstance(x, Const) for x in b.items):
            inside = any(x.value == a.value for x in b.items)   # Python's equality: True == 1 == 1.0
            return inside if t is ast.In else not inside
        return None
    return None


def equal(a: Any, b: Any) -> bool | None:
    if isinstance(a, Const) and isinstance(b, Const):
        return a.value == b.value
    if isinstance(a, Seq) and isinstance(b, Seq):
        # Python: (1,) != [1], range(1) != (0,), and an iterator is equal only to itself
        if type(a) is not type(b) or a.is_list != b.is_list or len(a.items) != len(b.items):
            return False
        if type(a) is Iter and a is not b:
            return None
        results = [equal(x, y) for x, y in zip(a.items, b.items)]
        if False in results:
            return False
        return True if all(r is True for r in results) else None
    if isinstance(a, Seq) and isinstance(b, Const) or isinstance(a, Const) and isinstance(b, Seq):
        return False
    return None

