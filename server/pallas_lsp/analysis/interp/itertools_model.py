"""The `itertools` functions the interpreter models, by canonical name.  Over tuples of
known items (at most MAX_UNROLL results) they give the items Python would; otherwise an
iterable of unknown length whose item is the join of what it could hold."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from ..values import UNKNOWN, Const, Seq, SeqOf, element, join_all
from .frame import MAX_UNROLL, Arg, CallArgs, Evaluator

Builtin = Callable[[Evaluator, CallArgs], Any]


def _known(values: list[Any]) -> list[tuple] | None:
    """The items of each value, when all are tuples or lists of known items."""
    if all(isinstance(v, Seq) for v in values):
        return [v.items for v in values]
    return None


def _natural(value: Any) -> bool:
    """A static count or index Python accepts here (an int, not negative)."""
    return isinstance(value, Const) and type(value.value) is int and value.value >= 0


def _result(items: list[Any]) -> Any:
    return Seq(tuple(items)) if len(items) <= MAX_UNROLL else SeqOf(join_all(items))


def _chain_of(parts: list[Any]) -> Any:
    known = _known(parts)
    if known is not None:
        return _result([x for items in known for x in items])
    return SeqOf(join_all([element(p) for p in parts]))


def _chain(ev: Evaluator, call: CallArgs) -> Any:
    if call.has_star or call.kwargs:
        return UNKNOWN
    return _chain_of(call.values())


def _from_iterable(ev: Evaluator, call: CallArgs) -> Any:
    outer = call.value(0)
    if isinstance(outer, Seq):
        return _chain_of(list(outer.items))
    return SeqOf(element(element(outer)))


def _product(ev: Evaluator, call: CallArgs) -> Any:
    if call.has_star or set(call.kwargs) - {"repeat"}:
        return UNKNOWN
    repeat = call.kwargs["repeat"].value if "repeat" in call.kwargs else Const(1)
    parts = call.values()
    known = _known(parts)
    if known is not None and _natural(repeat):
        total = 1
        for items in known:
            total *= len(items)
        if total ** repeat.value <= MAX_UNROLL:
            return Seq(tuple(Seq(combo) for combo in itertools.product(*known, repeat=repeat.value)))
    single = isinstance(repeat, Const) and type(repeat.value) is int and repeat.value == 1
    return SeqOf(Seq(tuple(element(p) for p in parts)) if single else UNKNOWN)


def _islice(ev: Evaluator, call: CallArgs) -> Any:
    source, *bounds = call.values()
    if (isinstance(source, Seq) and not call.has_star and 1 <= len(bounds) <= 3
            and all(_natural(b) or b == Const(None) for b in bounds)):
        return Seq(tuple(itertools.islice(source.items, *(b.value for b in bounds))))
    return SeqOf(element(source))


def _repeat(ev: Evaluator, call: CallArgs) -> Any:
    item = call.value(0)
    times = call.value(1) if len(call.args) > 1 else call.kwargs["times"].value if "times" in call.kwargs else None
    if isinstance(times, Const) and type(times.value) is int and times.value <= MAX_UNROLL:
        return Seq((item,) * max(times.value, 0))
    return SeqOf(item)


def _pairwise(ev: Evaluator, call: CallArgs) -> Any:
    source = call.value(0)
    if isinstance(source, Seq):
        return Seq(tuple(Seq(pair) for pair in itertools.pairwise(source.items)))
    return SeqOf(Seq((element(source), element(source))))


def _zip_longest(ev: Evaluator, call: CallArgs) -> Any:
    if call.has_star or set(call.kwargs) - {"fillvalue"}:
        return UNKNOWN
    fill = call.kwargs["fillvalue"].value if "fillvalue" in call.kwargs else Const(None)
    parts = call.values()
    known = _known(parts)
    if known is not None:
        return Seq(tuple(Seq(row) for row in itertools.zip_longest(*known, fillvalue=fill)))
    return SeqOf(Seq(tuple(join_all([element(p), fill]) for p in parts)))


def _starmap(ev: Evaluator, call: CallArgs) -> Any:
    """`starmap(f, rows)`: `f` called with each row's items (one abstract row when the
    rows are not known one by one)."""
    if len(call.args) != 2 or call.has_star:
        ev.callbacks_unknown_call(call.args, call.kwargs, call.frame)
        return UNKNOWN
    func, rows = call.values()
    if isinstance(rows, Seq) and len(rows.items) <= MAX_UNROLL and all(isinstance(r, Seq) for r in rows.items):
        return Seq(tuple(ev.call(func, [Arg(x) for x in row.items], {}, call.node, call.frame, helper=False)
                         for row in rows.items))
    row = element(rows)
    if isinstance(row, Seq):
        return SeqOf(ev.call(func, [Arg(x) for x in row.items], {}, call.node, call.frame, helper=False))
    ev.callbacks_unknown_call(call.args, call.kwargs, call.frame)
    return UNKNOWN


def _cycle(ev: Evaluator, call: CallArgs) -> Any:
    return SeqOf(element(call.value(0)))


def _combinations(ev: Evaluator, call: CallArgs) -> Any:
    source, size = call.value(0), call.value(1)
    if isinstance(source, Seq) and _natural(size):
        combos = [Seq(c) for c in itertools.islice(itertools.combinations(source.items, size.value),
                                                   MAX_UNROLL + 1)]
        return _result(combos)
    return SeqOf(UNKNOWN)


ITERTOOLS: dict[str, Builtin] = {
    "itertools.chain": _chain,
    "itertools.chain.from_iterable": _from_iterable,
    "itertools.product": _product,
    "itertools.islice": _islice,
    "itertools.repeat": _repeat,
    "itertools.pairwise": _pairwise,
    "itertools.zip_longest": _zip_longest,
    "itertools.starmap": _starmap,
    "itertools.cycle": _cycle,
    "itertools.combinations": _combinations,
}
