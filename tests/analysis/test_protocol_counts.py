"""PAL302-PAL304 by counting: each semaphore's starts, signals and waits are counted over
the kernel's grid steps and loop iterations (DMA semaphores in bytes, as JAX's TPU
interpreter counts them).  An error where every path is known; where a path is not
(a condition on data, a loop of unknown length, another device's count), silence, or a
warning when nothing at all waits on the semaphore.  Each case has a correct twin."""

from __future__ import annotations

import pytest

from .helpers import IMPORTS, analyze, dedent, line_of

PRELUDE = IMPORTS + "import jax.numpy as jnp\n"

CALL = """
def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32), grid={grid},
                          in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                          out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
                          scratch_shapes=[pltpu.VMEM((32, 128), jnp.float32), {sems}])(x)
"""


def module(body: str, grid: str = "(2,)", sems: str = "pltpu.SemaphoreType.DMA") -> str:
    return PRELUDE + dedent(body) + CALL.replace("{grid}", grid).replace("{sems}", sems)


def protocol(text: str) -> list[tuple[int, str, str]]:
    return [(f.span.line + 1, f.code, f.severity) for f in analyze(text, protocol=True) if f.code in ("PAL302", "PAL303", "PAL304")]


# Four copies into quarters of one buffer on one semaphore, then one wait for the whole
# buffer: the bytes balance (a common gather idiom); waiting for one quarter does not.
GATHER = """
def kernel(x_hbm, o_ref, buf, sem):
    for k in range(4):
        pltpu.make_async_copy(x_hbm.at[pl.ds(k * 8, 8)], buf.at[pl.ds(k * 8, 8)], sem).start()
    pltpu.make_async_copy(x_hbm.at[{waited}], buf.at[{waited}], sem).wait()
    o_ref[...] = buf[...]
"""


def test_waits_are_counted_in_bytes():
    assert protocol(module(GATHER.replace("{waited}", ":"))) == []
    text = module(GATHER.replace("{waited}", "pl.ds(0, 8)"))
    assert protocol(text) == [(line_of(text, ".start()"), "PAL302", "error")]


# The same helper called twice from one place (a Python loop): both calls count.
HELPER = """
def fetch(x_hbm, buf, sems, k):
    pltpu.make_async_copy(x_hbm.at[pl.ds(k * 8, 8)], buf.at[pl.ds(k * 8, 8)], sems.at[k]).start()

def kernel(x_hbm, o_ref, buf, sems):
    for k in range(2):
        fetch(x_hbm, buf, sems, k)
    for k in range({waited}):
        pltpu.make_async_copy(x_hbm.at[pl.ds(k * 8, 8)], buf.at[pl.ds(k * 8, 8)], sems.at[k]).wait()
    o_ref[...] = buf[...]
"""


def test_every_call_of_a_helper_counts():
    sems = "pltpu.SemaphoreType.DMA((2,))"
    assert protocol(module(HELPER.replace("{waited}", "2"), sems=sems)) == []
    text = module(HELPER.replace("{waited}", "1"), sems=sems)
    assert protocol(text) == [(line_of(text, ".start()"), "PAL302", "error")]


# A grid of unknown size: every step runs the same straight-line code, so one step decides.
STRAIGHT = """
def kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm.at[pl.ds(0, 32)], buf, sem)
    copy.start()
    {wait}
    o_ref[...] = buf[...]
"""


def test_a_step_that_leaks_leaks_at_every_grid_size():
    text = module(STRAIGHT.replace("{wait}", "pass"), grid="(x.shape[0] // 32,)")
    [(line, code, severity)] = protocol(text)
    assert (line, code, severity) == (line_of(text, "copy.start()"), "PAL302", "error")
    assert "in each grid step" in next(f.message for f in analyze(text, protocol=True) if f.code == "PAL302")
    assert protocol(module(STRAIGHT.replace("{wait}", "copy.wait()"), grid="(x.shape[0] // 32,)")) == []


# Paths the analysis cannot decide: a condition on data, a loop of unknown length.
DATA_BRANCH = """
def kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm.at[pl.ds(0, 32)], buf, sem)

    @pl.when(buf[0, 0] > 0)
    def _():
        copy.start()
    {wait}
    o_ref[...] = buf[...]
"""

UNKNOWN_LOOP = """
def kernel(x_hbm, o_ref, buf, sems):
    n = x_hbm.shape[0] // 8
    pltpu.make_async_copy(x_hbm.at[pl.ds(0, 8)], buf.at[pl.ds(0, 8)], sems.at[0]).start()

    def body(i, carry):
        slot = i % 2
        pltpu.make_async_copy(x_hbm.at[pl.ds((i + 1) * 8, 8)], buf.at[pl.ds(0, 8)], sems.at[1 - slot]).start()
        pltpu.make_async_copy(x_hbm.at[pl.ds(i * 8, 8)], buf.at[pl.ds(0, 8)], sems.at[slot]).wait()
        return carry

    jax.lax.fori_loop(0, n, body, 0)
    o_ref[...] = buf[...]
"""


def test_a_branch_on_data_gives_a_warning_only_when_nothing_waits():
    text = module(DATA_BRANCH.replace("{wait}", "pass"))
    assert protocol(text) == [(line_of(text, "copy.start()"), "PAL302", "warning")]
    waited = DATA_BRANCH.replace("{wait}", "@pl.when(buf[0, 0] > 0)\ndef _w():\n    copy.wait()")
    assert protocol(module(waited)) == []


def test_a_loop_of_unknown_length_is_not_judged_by_counts():
    # The last iteration's prefetch is never waited, but how many iterations run is not
    # known: no error (each semaphore is waited somewhere, so no warning either).
    assert protocol(module(UNKNOWN_LOOP, sems="pltpu.SemaphoreType.DMA((2,))")) == []


# Counts that are not this core's: another device's semaphore, a wait that keeps the count.
@pytest.mark.parametrize("signal, wait", [
    ("pl.semaphore_signal(sem, 1, device_id=1)", "pl.semaphore_wait(sem, 1)"),
    ("pl.semaphore_signal(sem, 2)", "pl.semaphore_wait(sem, 1, decrement=False)"),
])
def test_counts_elsewhere_are_not_judged(signal, wait):
    body = f"""
    def kernel(x_hbm, o_ref, buf, sem):
        {signal}
        {wait}
        o_ref[...] = buf[...]
    """
    assert protocol(module(body, sems="pltpu.SemaphoreType.REGULAR")) == []


# A static `lax.cond`: a replay runs the branch taken (JAX traces both).
COND = """
def kernel(x_hbm, o_ref, buf, sem):
    step = pl.program_id(0)
    pl.semaphore_signal(sem, 1)
    jax.lax.cond(step >= {last}, lambda: pl.semaphore_wait(sem, 1), lambda: None)
    o_ref[...] = buf[...]
"""


def test_a_replay_takes_the_branch_the_grid_step_decides():
    text = module(COND.replace("{last}", "1"), sems="pltpu.SemaphoreType.REGULAR")
    assert protocol(text) == [(line_of(text, "semaphore_signal"), "PAL304", "error")]
    assert protocol(module(COND.replace("{last}", "0"), sems="pltpu.SemaphoreType.REGULAR")) == []


# A replay's work is bounded: 32 grid steps x 32 x 32 loop trips is more than its step
# budget, so the kernel is not judged by counts (the pairing still runs: no error).
NESTED = """
def kernel(x_hbm, o_ref, buf, sems):
    step = pl.program_id(0)

    def outer(i, carry):
        def inner(j, c):
            copy = pltpu.make_async_copy(x_hbm.at[pl.ds(0, 8)], buf.at[pl.ds(0, 8)], sems.at[(step + i + j) % 2])
            copy.start()
            {wait}
            return c
        return jax.lax.fori_loop(0, 32, inner, carry)

    jax.lax.fori_loop(0, 32, outer, 0)
    o_ref[...] = buf[...]
"""


def test_a_replay_stops_at_its_budget():
    from pallas_lsp.analysis.pallas import replay

    sems = "pltpu.SemaphoreType.DMA((2,))"
    assert replay.MAX_POINTS * 32 * 32 * 5 > replay.REPLAY_STEPS
    assert protocol(module(NESTED.replace("{wait}", "copy.wait()"), grid="(32,)", sems=sems)) == []
    # a leak the budget leaves undecided: paired, it is waited nowhere, so a warning
    text = module(NESTED.replace("{wait}", "pass"), grid="(32,)", sems=sems)
    assert protocol(text) == [(line_of(text, "copy.start()"), "PAL302", "warning")]


def test_a_kernel_counts_the_same_whoever_calls_it():
    # the driver is handed to code the analysis does not model (it may call it any number
    # of times): one run of the kernel still leaks
    text = module(STRAIGHT.replace("{wait}", "pass")) + dedent("""
        import some_library

        sharded = some_library.wrap(run)
    """)
    assert protocol(text) == [(line_of(text, "copy.start()"), "PAL302", "error")]


@pytest.mark.parametrize("signalled, found", [(1, ["PAL303"]), (2, [])])
def test_a_semaphore_wait_for_more_than_is_signalled_hangs(signalled, found):
    body = f"""
    def kernel(x_hbm, o_ref, buf, sem):
        pl.semaphore_signal(sem, {signalled})
        pl.semaphore_wait(sem, 2)
        o_ref[...] = buf[...]
    """
    text = module(body, sems="pltpu.SemaphoreType.REGULAR")
    assert [(code, severity) for _, code, severity in protocol(text)] == [(c, "error") for c in found]
    if found:
        assert protocol(text)[0][0] == line_of(text, "semaphore_wait")


@pytest.mark.parametrize("wait, found", [("copy.wait()", []), ("pass", ["PAL302"])])
def test_a_bare_semaphore_type_given_to_run_scoped_is_counted(wait, found):
    body = f"""
    def kernel(x_hbm, o_ref, buf, sem):
        def scoped(stage, scoped_sem):
            copy = pltpu.make_async_copy(x_hbm.at[pl.ds(0, 32)], stage, scoped_sem)
            copy.start()
            {wait}
            o_ref[...] = stage[...]

        pl.run_scoped(scoped, pltpu.VMEM((32, 128), jnp.float32), pltpu.SemaphoreType.DMA)
    """
    assert [code for _, code, _ in protocol(module(body))] == found


def test_semaphores_in_an_object_handed_to_unknown_code_are_not_judged():
    body = """
    import dataclasses
    import some_library

    @dataclasses.dataclass(frozen=True)
    class Scratch:
        buf: object
        sem: object

    def kernel(x_hbm, o_ref, buf, sem):
        pltpu.make_async_copy(x_hbm.at[pl.ds(0, 32)], buf, sem).start()
        some_library.finish(Scratch(buf, sem))   # may wait on it
        o_ref[...] = buf[...]
    """
    assert protocol(module(body)) == []


# Triple-buffered prefetch through `lax.switch` over one branch per slot, the slot kept in
# a default argument (bound where the function is made, as Python does).
SWITCH = """
def kernel(x_hbm, o_ref, buf, sems):
    b = pl.program_id(0)

    def fetch(block, s):
        return pltpu.make_async_copy(x_hbm.at[pl.ds(block * 8, 8)], buf.at[pl.ds(s * 8, 8)], sems.at[s])

    {branches}

    @pl.when(b == 0)
    def _():
        {prologue}

    @pl.when(b + 1 < 4)
    def _():
        {prefetch}

    fetch(b, b % 3).wait()
    o_ref[...] = buf[...]
"""
_DEF_LOOP = ("branches = []\n    for s in range(3):\n        def br(blk, s=s):\n            fetch(blk, s).start()\n"
             "        branches.append(br)")
_SWITCH = "jax.lax.switch((b + 1) % 3, branches, b + 1)"
_COND_CHAIN = ("jax.lax.cond((b + 1) % 3 == 0, branches[0], lambda blk: jax.lax.cond((b + 1) % 3 == 1, "
               "branches[1], branches[2], blk), b + 1)")


@pytest.mark.parametrize("branches, prefetch", [
    ("branches = [lambda blk, s=s: fetch(blk, s).start() for s in range(3)]", _SWITCH),
    (_DEF_LOOP, _SWITCH),
    ("branches = tuple(lambda blk, s=s: fetch(blk, s).start() for s in range(3))", _SWITCH),
    ("branches = [lambda s=s: fetch(b + 1, s).start() for s in range(3)]", "jax.lax.switch((b + 1) % 3, branches)"),
    ("branches = [lambda blk, s=s: fetch(blk, s).start() for s in range(3)]", _COND_CHAIN),
])
@pytest.mark.parametrize("prologue, found", [("fetch(0, 0).start()", []), ("pass", ["PAL303"])])
def test_switch_branches_keep_their_default_arguments(branches, prefetch, prologue, found):
    body = SWITCH.replace("{branches}", branches).replace("{prefetch}", prefetch).replace("{prologue}", prologue)
    text = module(body, grid="(4,)", sems="pltpu.SemaphoreType.DMA((3,))")
    assert protocol(text) == [(line_of(text, "fetch(b, b % 3).wait()"), code, "error") for code in found]


# Code the replay does not follow on a path may start anything: no error built on "it
# starts nothing" (the pairing sees every semaphore waited and started: silence).
@pytest.mark.parametrize("prefetch", [
    "some_library.starters(fetch)[0](b + 1)",                 # a callee it cannot resolve
    "jax.lax.switch((b + 1) % 3, some_library.branches(fetch), b + 1)",   # branches not known
    "some_library.run([lambda: fetch(b + 1, (b + 1) % 3).start()])",      # functions handed over
])
def test_a_path_through_unknown_code_is_not_counted(prefetch):
    body = SWITCH.replace("{branches}", "import some_library").replace("{prefetch}", prefetch)
    text = module(body.replace("{prologue}", "fetch(0, 0).start()"), grid="(4,)", sems="pltpu.SemaphoreType.DMA((3,))")
    assert protocol(text) == []


# A prologue guarded by a condition spelled with `&` / `|` / `jnp.logical_*`: a replay
# decides it at each grid step.
PROLOGUE = """
def kernel(x_hbm, o_ref, buf, sems):
    i, j = pl.program_id(0), pl.program_id(1)
    s = i * 2 + j

    def fetch(block, slot):
        return pltpu.make_async_copy(x_hbm.at[pl.ds(block * 8, 8)], buf.at[pl.ds(slot * 8, 8)], sems.at[slot])

    @pl.when({first})
    def _():
        fetch(0, 0).start()

    @pl.when(s + 1 < {last})
    def _():
        fetch(s + 1, (s + 1) % 2).start()

    fetch(s, s % 2).wait()
    o_ref[...] = buf[...]
"""


@pytest.mark.parametrize("first", ["(i == 0) & (j == 0)", "jnp.logical_and(i == 0, j == 0)",
                                   "jnp.logical_not((i > 0) | (j > 0))",
                                   "jnp.logical_not(jnp.logical_or(i != 0, j != 0))"])
@pytest.mark.parametrize("last, found", [("4", []), ("5", ["PAL302"])])
def test_conditions_combined_by_logical_operators_are_decided(first, last, found):
    body = PROLOGUE.replace("{first}", first).replace("{last}", last)
    text = module(body, grid="(2, 2)", sems="pltpu.SemaphoreType.DMA((2,))")
    assert protocol(text) == [(line_of(text, "fetch(s + 1, (s + 1) % 2).start()"), code, "error") for code in found]


# Branches taken from a dict in `sorted` order.
def test_switch_branches_in_sorted_order():
    table = ("def start_into(blk, slot):\n        fetch(blk, slot).start()\n"
             "    table = {k: functools.partial(start_into, slot=k) for k in range(3)}\n"
             "    branches = [table[k] for k in sorted(table)]")
    body = SWITCH.replace("{branches}", "import functools\n    " + table).replace("{prefetch}", _SWITCH)
    text = module(body.replace("{prologue}", "pass"), grid="(4,)", sems="pltpu.SemaphoreType.DMA((3,))")
    assert protocol(text) == [(line_of(text, "fetch(b, b % 3).wait()"), "PAL303", "error")]


# A `while_loop` whose condition a replay decides trip by trip; its first run sees the
# carry as any number (not its first value), so it pairs no element it cannot know.
WHILE = """
def kernel(x_hbm, o_ref, buf, sems):
    fetch = lambda k, slot: pltpu.make_async_copy(x_hbm.at[pl.ds(k * 8, 8)], buf.at[pl.ds(slot * 8, 8)], sems.at[slot])
    fetch(0, 0).start()

    def body(carry):
        k, acc = carry
        slot = k % 2

        @pl.when(k + 1 < {guard})
        def _():
            fetch(k + 1, 1 - slot).start()

        fetch(k, slot).wait()
        return k + 1, acc
    jax.lax.while_loop(lambda c: c[0] < {trips}, body, (0, 0.0))
    o_ref[...] = buf[...]
"""


@pytest.mark.parametrize("guard, trips, found", [("3", "3", []), ("4", "3", ["PAL302"]), ("3", "4", ["PAL303"])])
def test_a_while_loop_is_counted_trip_by_trip(guard, trips, found):
    text = module(WHILE.replace("{guard}", guard).replace("{trips}", trips), sems="pltpu.SemaphoreType.DMA((2,))")
    assert [(code, severity) for _, code, severity in protocol(text)] == [(c, "error") for c in found]
