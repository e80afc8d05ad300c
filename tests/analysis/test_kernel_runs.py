"""A `pallas_call` callable applied again to operands alike runs its kernel once
(`pallas/kernel_runs.py`); applied to other operands, or made anew, it runs again."""

from __future__ import annotations

import contextlib

import pytest

from pallas_lsp.analysis.pallas import invokers

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
def kernel_runs(monkeypatch) -> list[int]:
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


def test_a_call_made_by_both_branches_runs_its_kernel_once(kernel_runs):
    """Either branch calls `call` with `x` (JAX traces one); the analysis runs both, and
    the kernel once: one error, as for a single call."""
    src = KERNEL + """
def run(x):
    call = pl.pallas_call(functools.partial(kernel, plan=Plan(True)), out_shape=OUT, scratch_shapes=SCRATCH)
""" + BOTH_BRANCHES
    assert found(src) == [(line_of(src, WHOLE_ARRAY), "PAL001", (2,))]
    assert len(kernel_runs) == 1


def test_the_same_call_given_other_shapes_runs_again(kernel_runs):
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
    assert len(kernel_runs) == 2


def test_a_call_made_anew_runs_again(kernel_runs):
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
    assert len(kernel_runs) == 2


def test_a_call_whose_kernel_is_a_closure_runs_again(kernel_runs):
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
    assert len(kernel_runs) == 2
