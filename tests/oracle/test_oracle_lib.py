"""The oracle's own helpers (no JAX needed): call sites, mutants, JAX's raise sites."""

import ast
import textwrap
from pathlib import Path

from oracle_lib import jax_site_lines, mutants, sem_args

SRC = textwrap.dedent('''\
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu

    copy = pltpu.make_async_copy


    def kernel(x, o, sems, send, recv, flags):
        cp = pltpu.make_async_copy(x, o, sems.at[0])
        cp.start()
        r = pltpu.make_async_remote_copy(
            x, o,
            send_sem=send.at[1].at[2],
            recv_sem=recv.at[1, 2],
            device_id=0,
        )
        copy(x, o, sems).wait()
        pl.semaphore_signal(flags.at[0], 1)
        x_ñ = 1
        pltpu.async_copy(x, o, sem=sems.at[x_ñ])
        pltpu.make_async_copy(*row, sems.at[2])
        pltpu.make_async_copy(*row, sem=sems.at[3])
        semaphore_read(flags.at[1])


    def semaphore_read(sems):  # the module's own function: not Pallas
        return sems
''')


def test_sem_args_by_position_keyword_and_alias():
    args = sem_args(ast.parse(SRC))
    got = [(a.call, a.role, a.line, ast.unparse(a.node)) for a in args]
    assert got == [
        ("make_async_copy", "sem", 8, "sems.at[0]"),
        ("make_async_remote_copy", "send_sem", 12, "send.at[1].at[2]"),
        ("make_async_remote_copy", "recv_sem", 13, "recv.at[1, 2]"),
        ("make_async_copy", "sem", 16, "sems"),
        ("semaphore_signal", "sem", 17, "flags.at[0]"),
        ("async_copy", "sem", 19, "sems.at[x_ñ]"),
        ("make_async_copy", "sem", 21, "sems.at[3]"),  # after *row: keywords only
    ]


def test_mutants_strip_the_outermost_index_only():
    ms = mutants(Path("k.py"), SRC)
    assert [(m.line, m.original, m.replacement) for m in ms] == [
        (8, "sems.at[0]", "sems"),
        (12, "send.at[1].at[2]", "send.at[1]"),
        (13, "recv.at[1, 2]", "recv"),
        (17, "flags.at[0]", "flags"),
        (19, "sems.at[x_ñ]", "sems"),
        (21, "sems.at[3]", "sems"),
    ]
    line = ms[-2].source.splitlines()[18]
    assert line == "    pltpu.async_copy(x, o, sem=sems)"
    assert ms[-2].col == line.index("sems")
    for m in ms:  # exactly one argument changed, the rest of the module is intact
        assert ast.dump(ast.parse(m.source)) != ast.dump(ast.parse(SRC))
        assert len(m.source) == len(SRC) - (len(m.original) - len(m.replacement))


def test_jax_sites_cover_the_statement_and_the_started_descriptor():
    tree = ast.parse(SRC)
    # JAX reports the `cp.start()` line: the descriptor was built on line 8.
    assert jax_site_lines(tree, [9]) == {8, 9}
    # A multi-line call reported at its first line covers all its lines.
    assert jax_site_lines(tree, [10]) == set(range(10, 16))
    assert 17 not in jax_site_lines(tree, [9, 10])
    assert jax_site_lines(tree, []) == set()
