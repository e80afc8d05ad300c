"""A `pallas_call` callable applied again to operands alike runs its kernel once, and so
do two calls one line made alike (`pallas/kernel_runs.py`); applied to other operands,
made anew or made otherwise, it runs again."""

from __future__ import annotations

import contextlib
from types import SimpleNamespace

import pytest

from pallas_lsp.analysis.interp.frame import Context
from pallas_lsp.analysis.pallas import invokers, kernel_runs
from pallas_lsp.analysis.pallas.model import Binding, Invoker
from pallas_lsp.analysis.pallas.values import AxisUse, PallasCall
from pallas_lsp.analysis.values import Loc

from .helpers import found, line_of
from .test_flow import HEAD

# `kernel` copies its scratch buffer out on the whole semaphore array when `plan.wide` (JAX, interpret=True:
# `Cannot signal on a non-()-shaped semaphore: (2,)`), else on `sems.at[0]`.
KERNEL = HEAD + """
class Plan:
    def __init__(self, wide):
        self.wide = wide

def kernel(x_ref, o_ref, buf, sems, *, plan):
    if plan.wide:
        pltpu.async_copy(buf, o_ref, sems).wait()
    else:
        pltpu.async_copy(buf, o_ref, sems.at[0]).wait()

SCRATCH = [pltpu.VMEM((8, 128), jnp.float32), DMA((2,))]
"""

WHOLE_ARRAY = "o_ref, sems).wait()"

# `call` applied to `x` by a jitted lambda or a function, on a condition not known.
BOTH_BRANCHES = """
    if x.ndim > 1:
        go = jax.jit(lambda y: call(y))
    else:
        def go(y):
            return call(y)
    return go(x)
"""


@pytest.fixture
def runs(monkeypatch) -> list[int]:
    """How many kernel runs each analysis made (one item per `invoke_kernel` body run)."""
    runs: list[int] = []
    own_run = invokers._own_run

    @contextlib.contextmanager
    def counted(ctx, concurrent=False):
        runs.append(1)
        with own_run(ctx, concurrent):
            yield

    monkeypatch.setattr(invokers, "_own_run", counted)
    return runs


def test_a_call_made_by_both_branches_runs_its_kernel_once(runs):
    """Either branch calls `call` with `x` (JAX traces one); the analysis runs both, and
    the kernel once: one error, as for a single call."""
    src = KERNEL + """
def run(x):
    call = pl.pallas_call(functools.partial(kernel, plan=Plan(True)), out_shape=OUT, scratch_shapes=SCRATCH)
""" + BOTH_BRANCHES
    assert found(src) == [(line_of(src, WHOLE_ARRAY), "PAL001", (2,))]
    assert len(runs) == 1


def test_the_same_call_given_other_shapes_runs_again(runs):
    """The second call's operand has another shape (JAX traces the kernel again, with
    `plan.wide` set by then, and raises)."""
    src = KERNEL + """
def run(x):
    plan = Plan(False)
    call = pl.pallas_call(functools.partial(kernel, plan=plan), out_shape=OUT, scratch_shapes=SCRATCH)
    y = call(jnp.ones((8, 128), jnp.float32))
    plan.wide = True
    return call(jnp.ones((16, 128), jnp.float32))
"""
    assert found(src) == [(line_of(src, WHOLE_ARRAY), "PAL001", (2,))]
    assert len(runs) == 2


def test_a_call_made_anew_runs_again(runs):
    """A second `pallas_call` of the same kernel is another callable (JAX traces it, sees
    `plan.wide`, and raises)."""
    src = KERNEL + """
def run(x):
    plan = Plan(False)
    y = pl.pallas_call(functools.partial(kernel, plan=plan), out_shape=OUT, scratch_shapes=SCRATCH)(x)
    plan.wide = True
    return pl.pallas_call(functools.partial(kernel, plan=plan), out_shape=OUT, scratch_shapes=SCRATCH)(y)
"""
    assert found(src) == [(line_of(src, WHOLE_ARRAY), "PAL001", (2,))]
    assert len(runs) == 2


def test_a_call_whose_kernel_is_a_closure_runs_again(runs):
    """What a kernel defined in the caller reads there may change between two calls: its
    runs are not taken as alike."""
    src = HEAD + """
def run(x):
    n = 0
    def kernel(x_hbm, o_ref, sems):
        pltpu.async_copy(x_hbm, o_ref, sems.at[n]).wait()
    call = pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])
""" + BOTH_BRANCHES
    assert found(src) == []
    assert len(runs) == 2


# A builder whose `pallas_call` is made by a helper: once as a closure nothing calls, once
# by the function it returns; neither call is applied, both run at the end of the entry.
# JAX (`jax.jit(lambda x: build()(rows=8)(x)).trace(x)`): `Cannot signal on a
# non-()-shaped semaphore: (2,)` with `sems` whole, no error with `sems.at[0]`.
BUILDER = HEAD + """
def build():
    def kernel(x_hbm, o_ref, sems):
        pltpu.async_copy(x_hbm, o_ref, sems{index}).wait()

    def make_call(rows):
        return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((rows, 128), jnp.float32),
                              scratch_shapes=[DMA((2,))])

    def fn(*, rows):
        return make_call(rows)

    return fn
"""


@pytest.mark.parametrize("index, expected", [("", [("sems).wait()", "PAL001", (2,))]), (".at[0]", [])])
def test_calls_made_alike_by_one_line_run_their_kernel_once(runs, index, expected):
    """`make_call` runs twice (as a closure nothing calls, and from `fn`), with `rows`
    unknown both times: its two calls are alike, and their kernel runs too (`sems` whole
    is reported as before)."""
    src = BUILDER.format(index=index)
    assert found(src) == [(line_of(src, text), code, dims) for text, code, dims in expected]
    assert len(runs) == 1


def test_calls_made_by_one_line_with_other_shapes_run_again(runs):
    """The same line given other output shapes makes calls that are not alike: one run
    for `rows` unknown (`make_call` alone), one for 8 and one for 16 (from `fn`)."""
    src = BUILDER.format(index=".at[0]").replace("return make_call(rows)", "return make_call(8), make_call(16)")
    assert found(src) == []
    assert len(runs) == 3


def _call(depth: int) -> PallasCall:
    """A call record made from a frame at `depth` (what `made_before` reads of it)."""
    invoker = Invoker("pl.pallas_call", Binding.PALLAS_CALL)
    return PallasCall(invoker, None, None, None, False, None, None, None, None, None, None, None,
                      SimpleNamespace(depth=depth))


@pytest.mark.parametrize("reach, alike", [(3, True), (30, False)])
def test_a_run_made_at_another_depth_is_alike_where_neither_reaches_the_depth_limit(reach, alike):
    """A first run made from depth 1 whose calls went `reach` deeper: a second one from
    depth 2 would have been cut by `MAX_DEPTH` where the first was not (30 + 2 = 32)."""
    first, second = _call(1), _call(2)
    use = AxisUse(Loc(None, None), "pl.program_id", 0)
    first.axis_uses, first.replay_helps = [use], True
    ctx = Context(None)
    kernel_runs.note_run(ctx, ("key",), first, 1 + reach)
    assert kernel_runs.made_before(ctx, ("key",), second) is alike
    assert (second.axis_uses, second.replay_helps) == (([use], True) if alike else ([], False))
    assert kernel_runs.made_before(ctx, ("key",), first)   # at its own depth: always
