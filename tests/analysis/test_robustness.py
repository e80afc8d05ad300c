"""Bad input never crashes the analysis and never stops it from checking the rest:
syntax errors, binary junk, huge files, deep recursion, non-ASCII text, odd line endings."""

import logging
from pathlib import Path

import pytest
from pallas_lsp.analysis.engine import ModuleAnalyzer, analyze_source

from .helpers import dedent, found

KERNEL = dedent('''
    import jax
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu


    def kernel(x_hbm, o_ref, sems):
        pltpu.async_copy(x_hbm, o_ref, sems).wait()


    def run(x):
        return pl.pallas_call(kernel, out_shape=x,
                              scratch_shapes=[pltpu.SemaphoreType.DMA((2,))])(x)
''')
KERNEL_FINDING = [(7, "PAL001", (2,))]


def lines_codes(text):
    return [(f.span.line + 1, f.code, tuple(f.shape)) for f in analyze_source(text)]


def test_baseline():
    assert lines_codes(KERNEL) == KERNEL_FINDING


TESTS = Path(__file__).resolve().parents[1]
SOURCES = sorted([*(TESTS / "corpus").glob("*.py"), *(TESTS.parent / "examples").glob("*.py")])


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_internal_error_on_the_corpus_and_the_examples(path, caplog):
    """An error inside the analysis is caught and logged, the rest still checked; these
    modules have none. (CI runs this on the compiled build too, where a variable given a
    value of another type than the one it was declared with raises a TypeError.)"""
    with caplog.at_level(logging.ERROR, logger="pallas_lsp"):
        analyze_source(path.read_text(encoding="utf-8"))
    assert not [r.getMessage() for r in caplog.records if r.name.startswith("pallas_lsp")]


@pytest.mark.parametrize("broken", [
    "def half_typed(x:\n    return x\n",
    "def other(a, b):\n    pltpu.async_copy(a, b, \n",
    "class Broken:\n    def m(self)\n        pass\n",
    "x = [1, 2,\n",
    "def f():\n\treturn 1\n        return 2\n",
    "@decorator_on_an_assignment\nx = 1\n",
    "if True:\nprint('no indent')\n",
    'S = """never closed\n',
])
def test_syntax_error_in_one_block_leaves_the_others_checked(broken):
    lines = KERNEL.split("\n")
    # put the broken code between the imports and the kernel
    text = "\n".join(lines[:4]) + "\n" + broken + "\n\n" + "\n".join(lines[4:])
    shift = broken.count("\n") + 2
    got = lines_codes(text)
    if broken.startswith('S = """'):
        # an unclosed string swallows the rest of the file: nothing can be checked, no crash
        assert got == []
    else:
        assert got == [(7 + shift, "PAL001", (2,))]


def test_syntax_error_inside_the_kernel_leaves_other_kernels_checked():
    src = """
        import jax
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        def broken_kernel(x_hbm, o_ref, sems):
            pltpu.async_copy(x_hbm, o_ref, sems
            pl.semaphore_signal(sems)

        def good_kernel(x_hbm, o_ref, sems):
            pl.semaphore_signal(sems)

        def run(x):
            a = pl.pallas_call(broken_kernel, out_shape=x,
                               scratch_shapes=[pltpu.SemaphoreType.REGULAR((2,))])(x)
            b = pl.pallas_call(good_kernel, out_shape=x,
                               scratch_shapes=[pltpu.SemaphoreType.REGULAR((3,))])(x)
            return a, b
    """
    assert found(src) == [(10, "PAL002", (3,))]


@pytest.mark.parametrize("junk", [
    bytes(range(256)).decode("latin-1") * 50,
    "\x00" * 1000,
    "\x00def kernel(\x00):\n  \x7f\n",
    "\ud800\udfff lone surrogates \ud800",
    "\ufeff" + "import jax\n",
    "\x0c\x0b\r\r\n\n\t\t\x1b[31m",
    "".join(chr(c) for c in range(0x2000, 0x2100)) * 20,
])
def test_binary_junk_gives_a_list(junk):
    assert analyze_source(junk) == []
    assert isinstance(ModuleAnalyzer().analyze(junk + "\n" + KERNEL), list)


def test_binary_junk_before_a_kernel_leaves_it_checked():
    junk = "\x00\x01\x02 garbage \xff\xfe\n"
    assert lines_codes(junk + KERNEL) == [(8, "PAL001", (2,))]


def test_five_megabyte_file():
    table = "TABLE = [\n" + "".join(f"    ({i}, {i * 7 % 13}, 'row{i}'),\n" for i in range(15000)) + "]\n"
    notes = "".join(f"# note {i}: " + "lorem ipsum " * 6 + "\n" for i in range(27000))
    doc = '"""' + ("A long module docstring line, repeated to make a big file.\n" * 40000) + '"""\n'
    text = doc + KERNEL + table + notes
    assert len(text.encode()) >= 5_000_000
    offset = doc.count("\n")
    assert lines_codes(text) == [(7 + offset, "PAL001", (2,))]


def test_mutual_recursion_between_helpers_terminates():
    src = """
        import jax
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        def ping(n, src, dst, sem):
            if n == 0:
                pltpu.async_copy(src, dst, sem).wait()
                return
            pong(n - 1, src, dst, sem)

        def pong(n, src, dst, sem):
            ping(n, src, dst, sem)
            pong(n, src, dst, sem)

        def kernel(x_hbm, o_ref, sems):
            ping(10, x_hbm, o_ref, sems)

        def run(x):
            return pl.pallas_call(kernel, out_shape=x,
                                  scratch_shapes=[pltpu.SemaphoreType.DMA((2,))])(x)
    """
    # ping's first call reaches the DMA directly: reported at the outer call site
    assert found(src) == [(16, "PAL001", (2,))]


def test_self_recursive_accessor_terminates():
    src = """
        import jax
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        def pick(sems, depth):
            if depth > 0:
                return pick(sems, depth - 1)
            return sems.at[0]

        def kernel(x_hbm, o_ref, sems):
            pltpu.async_copy(x_hbm, o_ref, pick(sems, 3)).wait()

        def run(x):
            return pl.pallas_call(kernel, out_shape=x,
                                  scratch_shapes=[pltpu.SemaphoreType.DMA((2,))])(x)
    """
    assert found(src) == []


def test_long_helper_chain_is_bounded():
    n = 300
    helpers = "".join(
        f"def h{i}(src, dst, sem):\n    return h{i + 1}(src, dst, sem)\n\n" for i in range(n))
    helpers += f"def h{n}(src, dst, sem):\n    pltpu.async_copy(src, dst, sem).wait()\n\n"
    text = KERNEL.replace("    pltpu.async_copy(x_hbm, o_ref, sems).wait()\n",
                          "    h0(x_hbm, o_ref, sems)\n") + helpers
    # Too deep to follow: silence is acceptable, a crash or a hang is not.
    assert lines_codes(text) in ([], [(7, "PAL001", (2,))])


def test_short_helper_chain_is_followed():
    n = 8
    helpers = "".join(
        f"def h{i}(src, dst, sem):\n    return h{i + 1}(src, dst, sem)\n\n" for i in range(n))
    helpers += f"def h{n}(src, dst, sem):\n    pltpu.async_copy(src, dst, sem).wait()\n\n"
    text = KERNEL.replace("    pltpu.async_copy(x_hbm, o_ref, sems).wait()\n",
                          "    h0(x_hbm, o_ref, sems)\n") + helpers
    assert lines_codes(text) == [(7, "PAL001", (2,))]


def test_deeply_nested_expression_does_not_crash():
    deep = "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n"
    long_sum = "y = " + " + ".join(["1"] * 20000) + "\n"
    assert lines_codes(deep + long_sum + KERNEL) == [(9, "PAL001", (2,))]


def test_deeply_nested_functions():
    depth = 60
    body = "".join("    " * i + f"def f{i}():\n" for i in range(depth)) + "    " * depth + "pass\n"
    assert lines_codes(body + KERNEL) == [(7 + depth + 1, "PAL001", (2,))]


@pytest.mark.parametrize("prefix,col_text", [
    ('# ünïcödé\n', None),
    ('', 'é = "naïve"; '),
    ('', '"😀😀"; '),
    ('', '"中文字"; '),
])
def test_non_ascii_text_before_a_finding_columns_in_code_points(prefix, col_text):
    use = "    pltpu.async_copy(x_hbm, o_ref, sems).wait()"
    text = KERNEL
    if col_text:
        text = text.replace(use, "    " + col_text + use.strip())
    text = prefix + text
    (f,) = analyze_source(text)
    line = text.split("\n")[f.span.line]
    assert line[f.span.col:f.span.end_col] == "sems"
    assert f.span.line == 6 + prefix.count("\n")
    assert (f.span.end_col - f.span.col) == 4


def test_non_ascii_in_a_multi_line_argument():
    src = KERNEL.replace("pltpu.async_copy(x_hbm, o_ref, sems).wait()",
                         "pltpu.async_copy(x_hbm, o_ref,  # «données»\n"
                         "                     sems).wait()  # ok—")
    (f,) = analyze_source(src)
    line = src.split("\n")[f.span.line]
    assert (f.span.line, line[f.span.col:f.span.end_col]) == (7, "sems")


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_other_line_endings(newline):
    text = KERNEL.replace("\n", newline)
    fs = analyze_source(text)
    assert [(f.span.line + 1, f.code, f.shape) for f in fs] == KERNEL_FINDING
    assert fs[0].span.col == KERNEL.split("\n")[6].index("sems")


def test_tabs_for_indentation():
    assert lines_codes(KERNEL.replace("    ", "\t")) == KERNEL_FINDING


def test_empty_and_comment_only_sources():
    for text in ("", "\n", "# just a comment\n", '"""doc"""\n', "pass", "   \n\t\n"):
        assert analyze_source(text) == []


def test_analyzer_survives_a_sequence_of_bad_inputs():
    analyzer = ModuleAnalyzer()
    for text in (KERNEL, "\x00" * 10, "", KERNEL[:100], KERNEL + "def (", KERNEL):
        fs = analyzer.analyze(text)
        assert fs == analyze_source(text)
    assert [(f.span.line + 1, f.code) for f in fs] == [(7, "PAL001")]


def test_exponential_helper_calls_do_not_hide_the_rest_of_the_kernel():
    """Each helper calls the next three times: far too many paths to follow. The work is
    bounded, and giving up on that call must not drop the DMA after it."""
    n = 30
    helpers = "".join(
        f"def h{i}(src, dst, sem):\n" + f"    h{i + 1}(src, dst, sem)\n" * 3 + "\n" for i in range(n))
    helpers += f"def h{n}(src, dst, sem):\n    pltpu.async_copy(src, dst, sem.at[0]).wait()\n\n"
    text = KERNEL.replace("    pltpu.async_copy(x_hbm, o_ref, sems).wait()\n",
                          "    h0(x_hbm, o_ref, sems)\n    pltpu.async_copy(x_hbm, o_ref, sems).wait()\n") + helpers
    assert lines_codes(text) == [(8, "PAL001", (2,))]


def test_non_ascii_identifiers_spans_and_fix_text():
    src = """
        import jax
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        def kernel(x_hbm, o_ref, sémaphores):
            données = x_hbm; pltpu.async_copy(données, o_ref, sémaphores).wait()
            pltpu.async_copy(x_hbm, o_ref,
                             sémaphores
                             ).wait()

        def run(x):
            return pl.pallas_call(kernel, out_shape=x,
                                  scratch_shapes=[pltpu.SemaphoreType.DMA((2,))])(x)
    """
    lines = dedent(src).split("\n")
    fs = analyze_source(dedent(src))
    assert [(f.span.line + 1, lines[f.span.line][f.span.col:f.span.end_col]) for f in fs] == [
        (6, "sémaphores"), (8, "sémaphores")]
    assert [(f.fix.sem_text, f.fix.guard_line + 1) for f in fs] == [("sémaphores", 6), ("sémaphores", 7)]
