"""Edits that only move code (blank lines, comments, `name = <literal>` nothing reads)
or change a comment keep the block's tree and results: what the analyzer then says (findings, values,
parameters) must equal a fresh analysis of the same text, and such edits must really be
kept without running anything."""

import ast
import gc
import random
import re
from pathlib import Path

from pallas_lsp.analysis.engine import ModuleAnalyzer
from pallas_lsp.analysis.relay import LineEdit, changed_line, inert_edit, line_edit

from .helpers import dedent

CORPUS = sorted(p for p in (Path(__file__).resolve().parents[1] / "corpus").glob("*.py"))
STATEMENT = re.compile(r"^(\s+)[A-Za-z_]\w*(\s*=|\()")


def everything(analyzer: ModuleAnalyzer, findings: list) -> tuple:
    """All an editor is shown of one analysed text."""
    return (findings,
            [(n.span, n.text, str(n.value), n.hinted) for n in analyzer.value_notes()],
            analyzer.parameter_notes())


def fresh(text: str) -> tuple:
    analyzer = ModuleAnalyzer()
    out = everything(analyzer, analyzer.analyze(text))
    del analyzer
    gc.collect()   # its blocks share parse trees with the edited document's: let them go
    return out


def test_line_edit_is_whole_lines_inserted_or_deleted_at_one_place():
    assert line_edit("a\nb\nc", "a\nx\ny\nb\nc") == LineEdit(1, 2)
    assert line_edit("a\nx\nb", "a\nb") == LineEdit(1, -1)
    assert line_edit("a\nb", "a\nB\n") is None        # a line changed in place too
    assert line_edit("a\nb", "a\nc") is None          # the same number of lines
    assert line_edit("a\nb\nc", "a\nx\nb\ny\nc") is None  # two places


KERNEL = dedent('''
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu


    def kernel(x_hbm, o_ref, buf, sems):
        slot = pl.program_id(0) % 2
        acc = jnp.zeros((8, 128), jnp.float32)
        cp = pltpu.make_async_copy(x_hbm, buf.at[slot], sems)
        cp.start()
        cp.wait()
        doc = """two
        lines"""
        o_ref[...] = acc + buf[slot]


    def run(x):
        return pl.pallas_call(
            kernel,
            out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
            in_specs=[pl.BlockSpec(memory_space=pltpu.ANY)],
            scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
        )(x)
''')


def edited(text: str, line: int, new: str) -> str:
    lines = text.split("\n")
    return "\n".join(lines[:line] + [new] + lines[line:])


def check_kept(analyzer: ModuleAnalyzer, text: str, kept: bool) -> None:
    got = everything(analyzer, analyzer.analyze(text))
    assert analyzer.stats["moved"] == kept, text
    if kept:
        assert analyzer.stats["entries_run"] == 0
    assert got == fresh(text)


def test_blank_lines_comments_and_unread_literals_move_code_without_running_it():
    analyzer = ModuleAnalyzer()
    analyzer.analyze(KERNEL)
    assert analyzer.value_notes() and analyzer.analyze(KERNEL)
    at = KERNEL.split("\n").index("    cp.start()")
    for new in ("", "    # a comment", "# at column 0", "    scratch_count = 3"):
        check_kept(analyzer, edited(KERNEL, at, new), True)
        check_kept(analyzer, KERNEL, True)   # and deleted again


BRANCHY = dedent('''
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu


    def kernel(x_hbm, o_ref, buf, sems):
        slot = pl.program_id(0) % 2

        @pl.when(slot == 0)
        def _init():
            o_ref[...] = jnp.zeros((8, 128), jnp.float32)

        if slot == 0:
            acc = jnp.zeros((8, 128), jnp.float32)
        elif slot == 1:
            acc = jnp.ones((8, 128), jnp.float32)
        else:

            acc = None
        pltpu.make_async_copy(x_hbm, buf.at[slot], sems).start()
        o_ref[...] = acc


    class Holder:
        size = 3
''')


def test_unread_literals_are_placed_without_parsing_the_block_only_where_python_puts_them():
    # The inserted lines, parsed alone, are placed before the statement they now precede
    # when they have its indentation; each case is checked against a fresh analysis.
    analyzer = ModuleAnalyzer()
    analyzer.analyze(BRANCHY)
    lines = BRANCHY.split("\n")
    for before, new, kept in [("    elif slot == 1:", "    relay_a = 1", False),   # before an elif
                              ("    elif slot == 1:", "        relay_a = 1", True),   # ends the if's body
                              ("        acc = None", "        relay_a = 1", True),  # a body after a blank
                              ("    pltpu.make_async_copy(x_hbm, buf.at[slot], sems).start()",
                               "    relay_a = 1\n    relay_b = 'two'", True),
                              ("    pltpu.make_async_copy(x_hbm, buf.at[slot], sems).start()",
                               "\t   relay_a = 1", False),                  # a tab in its blanks
                              ("    pltpu.make_async_copy(x_hbm, buf.at[slot], sems).start()",
                               "        relay_a = 1", True),               # the else's body goes on
                              ("    o_ref[...] = acc", "        relay_a = 1", False),   # deeper: no body there
                              ("    pltpu.make_async_copy(x_hbm, buf.at[slot], sems).start()",
                               "    slot = 1", False),                  # a name the code reads
                              ("    size = 3", "    relay_a = 1", False),   # a class body
                              ("    @pl.when(slot == 0)", "    relay_a = 1", True),   # before a decorator
                              ("    def _init():", "    relay_a = 1", False)]:   # after it: a syntax error
        at = lines.index(before)
        check_kept(analyzer, edited(BRANCHY, at, new), kept)
        check_kept(analyzer, BRANCHY, kept)


def test_lines_that_may_change_what_runs_are_analysed_again():
    analyzer = ModuleAnalyzer()
    analyzer.analyze(KERNEL)
    lines = KERNEL.split("\n")
    at = lines.index("    cp.start()")
    inside_string = lines.index('    lines"""')
    inside_call = lines.index("        kernel,")
    for text in (edited(KERNEL, at, "    slot = 1"),                # a name the code reads
                 edited(KERNEL, at, "    acc = 0.0"),
                 edited(KERNEL, at, "    extra = jnp.ones((8, 128))"),  # not a literal
                 edited(KERNEL, at, "    if slot:"),                 # not a statement of its own
                 edited(KERNEL, inside_string, ""),                  # a string's value
                 edited(KERNEL, inside_call, "")):                   # inside an expression
        check_kept(analyzer, text, False)
        check_kept(analyzer, KERNEL, False)


def typed(text: str, line: str, at: str, new: str) -> str:
    """`text` with `new` typed into `line` (a whole line of it) after the first `at`."""
    lines = text.split("\n")
    i = lines.index(line)
    k = line.index(at) + len(at)
    return "\n".join(lines[:i] + [line[:k] + new + line[k:]] + lines[i + 1:])


def check_kept_typed_and_deleted(analyzer, base: str, text: str) -> None:
    """`text` (typed into `base`) and `base` again (the text deleted) each keep the tree,
    which is the tree Python parses from that text."""
    for version in (text, base):
        check_kept(analyzer, version, True)
        assert_trees_as_parsed(analyzer)


COMMENTED = KERNEL.replace("    cp.start()\n", "    cp.start()  # the copy\n") \
    .replace("    cp = pltpu.make_async_copy(x_hbm, buf.at[slot], sems)\n",
             "    cp = pltpu.make_async_copy(x_hbm, buf.at[slot], sems)  # \n") \
    .replace("    acc = jnp.zeros((8, 128), jnp.float32)\n",
             "    acc = jnp.zeros((8, 128), jnp.float32)\n    # a line of its own\n"
             "    note = '# not a comment'  # but this is\n    if slot:\n        pass\n"
             "    else:  # the other way\n        # first in the body\n        pass\n")
COPY = "    cp = pltpu.make_async_copy(x_hbm, buf.at[slot], sems)  # "


def test_text_typed_into_a_comment_keeps_the_tree():
    analyzer = ModuleAnalyzer()
    assert analyzer.analyze(COMMENTED)
    for line, at, new in [("    cp.start()  # the copy", "# the", "x"),
                          ("    # a line of its own", "#", " and more (unclosed"),
                          ("    note = '# not a comment'  # but this is", "# but", " it's"),
                          ("    else:  # the other way", "# the", "x"),
                          ("        # first in the body", "# first", "\\"),
                          (COPY, "# ", "noqa"),                      # a suppression: no finding left
                          ("    cp.wait()", "wait()", "  "),              # blanks after the code
                          ("    cp.wait()", "wait()", "  # a new comment"),
                          ("    cp.start()  # the copy", "cp.start()", " #"),   # a comment before the comment
                          ("", "", "    ")]:                               # a blank line
        text = typed(COMMENTED, line, at, new)
        assert inert_edit(ast.parse(COMMENTED), changed_line(COMMENTED, text)), line
        check_kept_typed_and_deleted(analyzer, COMMENTED, text)
    copy_line = COMMENTED.split("\n").index(COPY)
    assert [f.code for f in fresh(COMMENTED)[0] if f.span.line == copy_line] == ["PAL001"]
    assert not [f for f in fresh(typed(COMMENTED, COPY, "# ", "noqa"))[0] if f.span.line == copy_line]


def test_text_typed_where_a_comment_may_not_start_is_analysed_again():
    analyzer = ModuleAnalyzer()
    analyzer.analyze(COMMENTED)
    note = "    note = '# not a comment'  # but this is"
    for text in (typed(COMMENTED, note, "'# not", "x"),              # inside a string
                 typed(COMMENTED, '    lines"""', "lines", "#x"),    # a string's line
                 typed(COMMENTED, "    cp.start()  # the copy", "# the", "\x00"),  # Python refuses it
                 typed(COMMENTED, "    cp.start()  # the copy", "# the", "\ud800"),
                 COMMENTED.replace("# a line of its own", "# a line\n# of its own"),
                 typed(COMMENTED, "    cp.wait()", "cp.wait", " "),       # blanks, but inside the code
                 typed(COMMENTED, '    lines"""', "", " "),                # blanks inside a string
                 typed(COMMENTED.replace("    cp.wait()\n", "    cp.wait(\\\n    )\n"),
                       "    cp.wait(\\", "\\", " ")):                     # after a backslash: an error now
        check_kept(analyzer, text, False)
        check_kept(analyzer, COMMENTED, False)


DOCUMENTED = KERNEL.replace("    slot = pl.program_id(0) % 2\n",
                            '    """Copies a block.\n\n    Args: the refs.\n    """\n    slot = pl.program_id(0) % 2\n') \
    .replace("def run(x):\n", 'def run(x):\n    "One line."  # and a comment\n') \
    + '\n\nclass Described:\n    def method(self):\n        """Nothing but this."""\n'


def test_text_typed_into_a_docstring_keeps_the_tree_with_the_new_string():
    analyzer = ModuleAnalyzer()
    assert analyzer.analyze(DOCUMENTED)
    for line, at, new in [("    Args: the refs.", "Args", " é"),
                          ("    Args: the refs.", "Args", '"'),
                          ("    Args: the refs.", "Args", '\\"'),
                          ('    """Copies a block.', "Copies", " {x}"),
                          ('    """', "    ", "x"),                    # the line that ends it
                          ('    "One line."  # and a comment', "One", " \\u00e9"),
                          ('        """Nothing but this."""', "this", " é")]:   # it ends the class
        check_kept_typed_and_deleted(analyzer, DOCUMENTED, typed(DOCUMENTED, line, at, new))


def test_text_typed_that_ends_a_docstring_or_is_not_in_one_is_analysed_again():
    analyzer = ModuleAnalyzer()
    analyzer.analyze(DOCUMENTED)
    for text in (typed(DOCUMENTED, "    Args: the refs.", "Args", '"""'),      # it ends there
                 typed(DOCUMENTED, '    "One line."  # and a comment', "One line.", '"'),
                 typed(DOCUMENTED, '    "One line."  # and a comment', "    ", "x"),   # before its quote
                 typed(DOCUMENTED, '    """Copies a block.', "    ", "f"),    # an f-string now
                 typed(DOCUMENTED, '    lines"""', "lines", "x")):     # a string the code keeps
        check_kept(analyzer, text, False)
        check_kept(analyzer, DOCUMENTED, False)


def test_lines_inserted_into_or_deleted_from_a_docstring_keep_the_tree_with_the_new_string():
    analyzer = ModuleAnalyzer()
    assert analyzer.analyze(DOCUMENTED)
    lines = DOCUMENTED.split("\n")
    args = lines.index("    Args: the refs.")
    for new in ("", "    ", "    More: words é.", "  x = 1  # not code", "    'quoted' \"and\" \\n"):
        check_kept_typed_and_deleted(analyzer, DOCUMENTED, edited(DOCUMENTED, args + 1, new))   # Enter, typed
    opening = lines.index('    """Copies a block.')
    without_blank = "\n".join(lines[:opening + 1] + lines[opening + 2:])   # its blank line deleted
    check_kept_typed_and_deleted(analyzer, DOCUMENTED, without_blank)


def test_lines_that_end_a_docstring_or_are_outside_it_are_analysed_again():
    analyzer = ModuleAnalyzer()
    analyzer.analyze(DOCUMENTED)
    lines = DOCUMENTED.split("\n")
    opening, args = lines.index('    """Copies a block.'), lines.index("    Args: the refs.")
    for text in (edited(DOCUMENTED, args + 1, '    """'),           # it ends there now
                 edited(DOCUMENTED, args + 2, "    pl.debug_print('x')"),   # after its last line: code
                 edited(DOCUMENTED, opening, "    pl.debug_print('x')"),    # before its first line
                 "\n".join(lines[:args] + lines[args + 2:])):       # its last line deleted
        check_kept(analyzer, text, False)
        check_kept(analyzer, DOCUMENTED, False)


def assert_trees_as_parsed(analyzer: ModuleAnalyzer) -> None:
    """Every block's tree is the one Python parses from its text, positions included."""
    for block in analyzer._block_list.blocks:
        assert ast.dump(block.tree, include_attributes=True) \
            == ast.dump(ast.parse(block.text), include_attributes=True), block.text


def test_a_hash_inside_a_literal_kept_out_of_the_tree_is_not_taken_for_a_comment():
    analyzer = ModuleAnalyzer()
    analyzer.analyze(KERNEL)
    at = KERNEL.split("\n").index("    cp.start()")
    kept_out = edited(KERNEL, at, '    relay_text = """\n# inside\n"""')
    check_kept(analyzer, kept_out, True)
    check_kept(analyzer, typed(kept_out, "# inside", "#", " x"), False)


def in_place_edits(lines: list[str], rng: random.Random) -> list[list[str]]:
    """Text typed after a random `#` (in a comment or in a string), inside a string
    statement (a docstring) or at the end of a line, then taken back."""
    strings = {n.lineno for n in ast.walk(_parsed("\n".join(lines)))
               if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    spots = [(i, k + 1) for i, line in enumerate(lines) for k, c in enumerate(line) if c == "#"]
    spots += [(i - 1 + d, len(lines[i - 1 + d]) // 2) for i in strings for d in (0, 1) if i - 1 + d < len(lines)]
    spots += [(i, len(line)) for i, line in enumerate(lines) if i % 7 == 0]   # ends of lines, blank lines
    if not spots:
        return [lines]
    i, k = rng.choice(spots)
    new = rng.choice(["x", " noqa", " noqa: PAL001", '"""', '"', "'", "\\", "(", "# more", "\t", " é", "{", "\x00",
                      " ", "  # note", "\t# x"])
    return [lines[:i] + [lines[i][:k] + new + lines[i][k:]] + lines[i + 1:], lines]


def _parsed(text: str) -> ast.Module:
    try:
        return ast.parse(text)
    except SyntaxError:
        return ast.Module([], [])


def test_corpus_modules_typed_into_comments_blanks_and_docstrings_equal_a_fresh_analysis():
    kept = sum(s["moved"] for stats in edited_corpus(in_place_edits, 3) for s in stats)
    assert kept >= len(CORPUS)


def line_edits(lines: list[str], rng: random.Random) -> list[list[str]]:
    """A line inserted before a random statement line, then deleted again."""
    spots = [i for i, line in enumerate(lines) if STATEMENT.match(line)]
    i = rng.choice(spots)
    indent = STATEMENT.match(lines[i]).group(1)
    new = rng.choice(["", f"{indent}# note", f"{indent}relay_tmp_{i} = {i}", f"{indent}relay_tmp = (1,",
                      f"{indent}x = {i}"])
    return [lines[:i] + [new] + lines[i:], lines]


def docstring_line_edits(lines: list[str], rng: random.Random) -> list[list[str]]:
    """A line inserted into a string statement that spans lines (a docstring), after one
    of its lines but its last (where a line may close it), then deleted again."""
    spans = [(n.lineno, n.end_lineno) for n in ast.walk(_parsed("\n".join(lines)))
             if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) and n.end_lineno > n.lineno]
    if not spans:
        return [lines]
    first, last = rng.choice(spans)
    i = rng.randrange(first, last)
    new = rng.choice(["", "    ", "    text é", "    x = 1", '    """', "    '''", "    \\", "\t# note", '"', "{}"])
    return [lines[:i] + [new] + lines[i:], lines]


def test_corpus_modules_with_lines_inserted_into_docstrings_equal_a_fresh_analysis():
    kept = sum(s["moved"] for stats in edited_corpus(docstring_line_edits, 3) for s in stats)
    assert kept >= len(CORPUS)


def edited_corpus(edits, rounds: int):
    """Each corpus module analysed through `rounds` rounds of `edits(lines, rng)` (the
    versions of one round, in turn), every version checked against a fresh analysis:
    the analyzer's stats of each version, a list per round."""
    for path in CORPUS:
        rng = random.Random(path.name)
        lines = path.read_text(encoding="utf-8").split("\n")
        analyzer = ModuleAnalyzer()
        analyzer.analyze("\n".join(lines))
        for _ in range(rounds):
            stats = []
            for version in edits(lines, rng):
                text = "\n".join(version)
                got = everything(analyzer, analyzer.analyze(text))
                stats.append(analyzer.stats)
                assert got == fresh(text), f"{path.name}:\n{text}"
            yield stats


def test_corpus_modules_under_line_edits_equal_a_fresh_analysis():
    assert len(CORPUS) >= 30
    kept = sum(s["moved"] for stats in edited_corpus(line_edits, 3) for s in stats)
    assert kept >= len(CORPUS)   # about half the edits move code only


def test_blocks_an_edit_replaced_do_not_hold_their_tree_while_garbage_keeps_them():
    # The server freezes what a run leaves (gc.freeze): a replaced block may never be
    # collected, and its text's tree is the one the block typed back takes again.
    analyzer = ModuleAnalyzer()
    analyzer.analyze(KERNEL)
    kept_alive = list(analyzer._block_list.blocks)
    at = KERNEL.split("\n").index("    cp.start()")
    typed = KERNEL.replace("    cp.start()", "    cp.startx()")
    analyzer.analyze(typed)
    kept_alive += analyzer._block_list.blocks
    analyzer.analyze(KERNEL)   # typed back: the kernel's block takes the first tree again
    check_kept(analyzer, edited(KERNEL, at, "    # a comment"), True)
    assert kept_alive


HELPER = dedent('''
    def width(dtype):
        bits = 32
        return bits
''')


def test_a_helper_a_sibling_module_copies_keeps_its_tree(tmp_path):
    from pallas_lsp.analysis.workspace import Workspace

    (tmp_path / "sibling.py").write_text(HELPER + "\n\nWIDTH = 32\n")   # a block of the same text
    caller = KERNEL.replace("    slot = pl.program_id(0) % 2\n",
                            "    slot = pl.program_id(0) % (sibling_width(0) - width(0) + 2)\n")
    doc = "from sibling import width as sibling_width\n\n\n" + HELPER + "\n\n" + caller
    analyzer = ModuleAnalyzer(str(tmp_path / "doc.py"), Workspace([str(tmp_path)]))
    analyzer.analyze(doc)
    moved = doc.replace("    bits = 32\n", "    bits = 32\n    # a comment\n", 1)
    got = everything(analyzer, analyzer.analyze(moved))
    assert analyzer.stats["moved"] == 1 and analyzer.stats["entries_run"] == 0
    again = ModuleAnalyzer(str(tmp_path / "doc.py"), Workspace([str(tmp_path)]))
    assert got == everything(again, again.analyze(moved))
