"""The interpreter's one interface to a domain (`interp/domain.py`): a domain written
here, outside `interp/`, plugs in beside the Pallas domain and sees what it is promised."""

from __future__ import annotations

import ast
import pathlib
from dataclasses import dataclass
from typing import Any

from pallas_lsp.analysis.engine import DOMAINS, analyze_source
from pallas_lsp.analysis.interp.domain import NOT_MINE, Domain
from pallas_lsp.analysis.values import SCALAR, UNKNOWN, Const, DomainValue, SeqOf

from .helpers import IMPORTS, dedent, found

ANALYSIS = pathlib.Path(__file__).resolve().parents[2] / "server" / "pallas_lsp" / "analysis"


@dataclass(frozen=True, eq=False)
class Box(DomainValue):
    """A toy domain's value: a number in a box."""

    n: int | None

    def join(self, other: Any) -> Any:
        return Box(self.n if self.n == other.n else None) if isinstance(other, Box) else UNKNOWN


class Toy(Domain):
    """`toy.box(n)` makes a Box; `toy.see(x)` records x; boxes add, index and store."""

    def __init__(self) -> None:
        self.seen: list[Any] = []
        self.stores: list[tuple[Any, Any]] = []

    def call_name(self, ev, qname, call):
        if qname == "toy.box":
            v = call.value(0)
            return Box(v.value if isinstance(v, Const) else None)
        if qname == "toy.see":
            self.seen.append(call.value(0))
            return Const(None)
        return NOT_MINE

    def attribute(self, ev, obj, attr):
        return Const(obj.n) if isinstance(obj, Box) and attr == "n" else NOT_MINE

    def subscript(self, ev, base, node, frame):
        if not isinstance(base, Box):
            return NOT_MINE
        i = ev.eval(node.slice, frame)
        return Box(base.n + i.value if base.n is not None and isinstance(i, Const) else None)

    def store(self, ev, base, node, value, frame):
        if isinstance(base, Box):
            self.stores.append((base, value))

    def binop(self, ev, left, op, right, node=None, frame=None):
        if isinstance(left, Box) and isinstance(right, Box) and isinstance(op, ast.Add):
            return Box(left.n + right.n if left.n is not None and right.n is not None else None)
        return NOT_MINE


def _run(src: str) -> Toy:
    toy = Toy()
    analyze_source(dedent(src), domains=(*DOMAINS, toy))
    return toy


def test_a_third_domain_answers_its_names_values_and_operators():
    toy = _run("""
        import toy

        def f(flag):
            a = toy.box(2)
            b = a + toy.box(3)
            toy.see(b.n)
            toy.see(b[1])
            c = a if flag else toy.box(7)
            toy.see(c)
            b[0] = a
            b[1] += a

        f(True)
        f(unknown)
    """)
    ns = [v.n if isinstance(v, Box) else v.value for v in toy.seen]
    runs = {tuple(ns[i:i + 3]) for i in range(0, len(ns), 3)}   # `f` alone, then each call
    assert runs == {(5, 6, 2), (5, 6, None)}   # attribute, subscript; on an unknown branch, Box.join
    assert {(base.n, value.n) for base, value in toy.stores} == {(5, 2), (5, 8)}   # `=` and `+=`



def test_values_grown_in_loops_stay_bounded():
    """A list doubled or a number squared in nested loops (65,536 items, 65,536 bits in
    Python; a few more rounds and no machine holds them) is kept as some list of such
    items, some number: the analysis's work stays bounded whatever the code."""
    toy = _run("""
        import toy

        def f():
            xs, n = [1], 3
            for i in (1,) * 4:
                for j in (1,) * 4:
                    xs = xs + xs
                    n = n * n
            toy.see(xs)
            toy.see(n)
            toy.see([0] * 10 ** 9)

        f()
    """)
    xs, n, zeros = toy.seen[-3:]
    assert n is SCALAR
    assert [(type(v), type(v.item), v.item.value) for v in (xs, zeros)] == [(SeqOf, Const, 1), (SeqOf, Const, 0)]

def test_the_pallas_domain_keeps_its_findings_beside_another():
    src = IMPORTS + dedent("""
        def kernel(x_ref, o_ref, sems):
            pltpu.make_async_copy(x_ref, o_ref, sems).start()

        def f(x):
            return pl.pallas_call(kernel, out_shape=x, scratch_shapes=[pltpu.SemaphoreType.DMA((2,))])(x)
    """)
    before = found(src)
    assert before and analyze_source(src, domains=(Toy(), *DOMAINS)) == analyze_source(src)


def test_the_interpreter_and_the_lattice_import_no_domain():
    for path in [*(ANALYSIS / "interp").glob("*.py"), ANALYSIS / "values.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert "pallas" not in (node.module or "") and "arrays" not in (node.module or ""), path
