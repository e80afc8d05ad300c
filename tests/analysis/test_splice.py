"""A character typed into one statement of a block: the block's new tree is the old one with
that statement parsed again. It must be the tree Python parses from the new text (CPython's
parser is the oracle), leave the old tree as it was, share the other statements, and give
what a fresh analysis of the new text gives; an edit the statement alone does not decide
is parsed as usual."""

import ast
import random
import re

from pallas_lsp.analysis.engine import ModuleAnalyzer
from pallas_lsp.analysis.parse import split_blocks
from pallas_lsp.analysis.relay import changed_line
from pallas_lsp.analysis.splice import spliced_tree

from .helpers import dedent
from .test_relay import CORPUS, KERNEL, STATEMENT, edited, edited_corpus, everything, fresh

DUMP = {"include_attributes": True}


def typed_into(text: str, line: str, at: str, new: str) -> str:
    """`text` with `new` typed into its line `line` after the first `at` (`new` "" with `at`
    ending in the character to delete: that character deleted)."""
    lines = text.split("\n")
    i = lines.index(line)
    k = line.index(at) + len(at)
    lines[i] = line[:k] + new + line[k:] if new else line[:k - 1] + line[k:]
    return "\n".join(lines)


def kernel_tree() -> tuple[str, ast.Module]:
    block = next(b for b in split_blocks(KERNEL) if b.text.startswith("def kernel"))
    return block.text, ast.parse(block.text)


def splice(old: str, tree: ast.Module, new: str):
    line = changed_line(old, new)
    assert line is not None
    return spliced_tree(tree, line)


def test_a_character_typed_into_a_statement_gives_the_tree_python_parses_sharing_the_rest():
    text, tree = kernel_tree()
    before = ast.dump(tree, **DUMP)
    for line, at, new in (("    acc = jnp.zeros((8, 128), jnp.float32)", "(8, 12", "0"),
                          ("    cp.start()", "cp.start", "x"),
                          ("    lines\"\"\"", "lin", "e"),   # the last line of a string statement
                          ("    o_ref[...] = acc + buf[slot]", "slot", "s"),   # the end of the block
                          ("    slot = pl.program_id(0) % 2", "program_id", "")):
        new_text = typed_into(text, line, at, new)
        spliced = splice(text, tree, new_text)
        assert spliced is not None, line
        assert ast.dump(spliced, **DUMP) == ast.dump(ast.parse(new_text), **DUMP)
        old_body, new_body = tree.body[0].body, spliced.body[0].body
        assert sum(a is b for a, b in zip(old_body, new_body)) == len(old_body) - 1   # one statement is new
        assert spliced.body[0] is not tree.body[0] and spliced.body[0].args is tree.body[0].args
    assert ast.dump(tree, **DUMP) == before   # the old tree as it was


LOOPS = dedent('''
    def body(xs, n):
        total = 0
        for i in range(n):
            if i % 2 == 0 and xs:
                total += i
            elif i > 4:
                total -= 1
            while (total >
                   10):  # a header of two lines
                total -= 1
        with open("f") as f:
            pass
        if total: return total
        return 0
''')


def header_at(tree: ast.Module, lineno: int) -> ast.stmt:
    """The compound statement whose header holds line `lineno`."""
    return next(n for n in ast.walk(tree) if isinstance(n, (ast.If, ast.For, ast.While, ast.With))
                and n.lineno <= lineno < n.body[0].lineno)


def test_a_character_typed_into_the_header_of_an_if_for_while_or_with_parses_the_header_alone():
    tree = ast.parse(LOOPS)
    before = ast.dump(tree, **DUMP)
    for line, at, new in (("    for i in range(n):", "range(n", "x"), ("    for i in range(n):", "for i", "x"),
                          ("        if i % 2 == 0 and xs:", "% 2", "0"), ("               10):  # a header of two lines", "1", "1"),
                          ("    with open(\"f\") as f:", "as f", "x")):
        new_text = typed_into(LOOPS, line, at, new)
        spliced = splice(LOOPS, tree, new_text)
        assert spliced is not None, line
        assert ast.dump(spliced, **DUMP) == ast.dump(ast.parse(new_text), **DUMP)
        lineno = LOOPS.split("\n").index(line) + 1
        old_header, new_header = header_at(tree, lineno), header_at(spliced, lineno)
        assert new_header is not old_header and new_header.body is old_header.body   # the body is shared
    assert ast.dump(tree, **DUMP) == before
    for line, at, new in (("        elif i > 4:", "4", "0"),                 # an `elif` is not a statement alone
                          ("    if total: return total", "total", "x"),   # its body on the header's line
                          ("    for i in range(n):", "range(n)", " "),     # a blank: the same tree, parsed as usual
                          ("    for i in range(n):", "range(n)", ":")):
        got = splice(LOOPS, tree, typed_into(LOOPS, line, at, new))
        assert got is None or ast.dump(got, **DUMP) == ast.dump(ast.parse(typed_into(LOOPS, line, at, new)), **DUMP), line


def test_lines_ending_in_crlf_splice_as_well():
    text, tree = LOOPS.replace("\n", "\r\n"), ast.parse(LOOPS.replace("\n", "\r\n"))
    for line, at, new in (("    total = 0\r", "total", "x"), ("    for i in range(n):\r", "range(n", "x")):
        new_text = typed_into(text, line, at, new)
        spliced = splice(text, tree, new_text)
        assert spliced is not None and ast.dump(spliced, **DUMP) == ast.dump(ast.parse(new_text), **DUMP)


def test_a_statement_typed_on_a_blank_line_of_a_body_is_parsed_alone_and_inserted():
    text = LOOPS.replace("    total = 0\n", "    total = 0\n\n").replace("        elif", "\n        elif")
    tree = ast.parse(text)
    lines = text.split("\n")
    blank = lines.index("", 2)
    for typed in ("    q", "    x = len(xs)", "    for j in xs: total += j"):
        new_text = "\n".join(lines[:blank] + [typed] + lines[blank + 1:])
        spliced = splice(text, tree, new_text)
        assert spliced is not None and ast.dump(spliced, **DUMP) == ast.dump(ast.parse(new_text), **DUMP), typed
        assert spliced.body[0].body[2] is tree.body[0].body[1]   # the `for` after it is the old one
    before_elif = lines.index("", blank + 1)
    for at, typed in ((blank, "        q"),            # deeper than the statement after it
                      (before_elif, "        q"),       # before an `elif`: no longer valid Python
                      (blank, "\t   q"),                 # the column, but a tab in its blanks: a TabError
                      (blank, "    q = ")):            # half-typed
        assert splice(text, tree, "\n".join(lines[:at] + [typed] + lines[at + 1:])) is None, typed


def test_what_the_statement_alone_does_not_decide_is_parsed_as_usual():
    text, tree = kernel_tree()
    for line, at, new in (("    cp.start()", "cp.start()", ";"),          # a `;`: the holders end after it
                          ("    cp.start()", "cp.start()", "; cp.wait()"),   # two statements
                          ("    cp.start()", "   ", " "),                   # its indentation
                          ("    cp.start()", "cp.start(", ""),              # no longer parses
                          ("    cp.start()", "cp.start()", ":"),
                          ("    cp.start()", "cp", "\"\"\""),               # a string that runs on
                          ("    cp.start()", "cp.start()", " \\"),          # joined with the next line
                          ("def kernel(x_hbm, o_ref, buf, sems):", "sems", "x")):   # a compound's header
        assert splice(text, tree, typed_into(text, line, at, new)) is None, (line, new)


CHARACTERS = list("abxyz_019 ()[]{}:;,.=+-*/#\\'\"\t@<>%&|~") + ["\u00e9", "):", "if ", "lambda ", '"""']


STATEMENTS = ["q", "x = 1", "pass", "return", "f(x)", "y += 2", "else: z", "@d", "# c", "if a: b", "for i in r: s"]


def random_character(text: str, rng: random.Random) -> str:
    """`text` with a random character typed into it, or one deleted."""
    at = rng.randrange(len(text) + 1)
    return text[:at] + rng.choice(CHARACTERS) + text[at:] if rng.random() < 0.7 or not at else text[:at - 1] + text[at:]


def typed_on_blank(lines: list[str], k: int, rng: random.Random) -> str:
    """Blank line `k` with a statement typed on it, mostly indented as the next line of code."""
    following = next((x for x in lines[k + 1:] if x.strip()), "")
    indent = following[:len(following) - len(following.lstrip())] if rng.random() < 0.8 else " " * rng.choice([4, 8])
    return indent + rng.choice(STATEMENTS)


def test_random_characters_typed_or_deleted_in_the_corpus_splice_to_the_tree_python_parses():
    rng = random.Random(7)
    spliced = tried = 0
    for path in CORPUS:
        for block in split_blocks(path.read_text(encoding="utf-8")):
            tree = block.tree
            lines = block.text.split("\n")
            if tree is None or len(lines) < 3:
                continue
            for _ in range(4):
                k = rng.randrange(len(lines))
                new = list(lines)
                new[k] = typed_on_blank(lines, k, rng) if not lines[k].strip() else random_character(lines[k], rng)
                new_text = "\n".join(new)
                line = changed_line(block.text, new_text)
                if line is None:
                    continue
                tried += 1
                got = spliced_tree(tree, line)
                if got is not None:
                    spliced += 1
                    assert ast.dump(got, **DUMP) == ast.dump(ast.parse(new_text), **DUMP), (path.name, new[k])
    assert tried > 1000 and spliced > tried // 10


def check(analyzer: ModuleAnalyzer, text: str, spliced: int = 0, moved: int = 0) -> None:
    got = everything(analyzer, analyzer.analyze(text))
    assert (analyzer.stats["spliced"], analyzer.stats["moved"]) == (spliced, moved), text
    assert got == fresh(text)


def test_an_analyzer_after_spliced_edits_and_relaid_lines_equals_a_fresh_analysis():
    analyzer = ModuleAnalyzer()
    analyzer.analyze(KERNEL)
    sized = typed_into(KERNEL, "    acc = jnp.zeros((8, 128), jnp.float32)", "(8, 12", "0")
    at = KERNEL.split("\n").index("    cp.start()")
    check(analyzer, sized, spliced=1)
    check(analyzer, KERNEL)                                 # deleted again: the first tree and results
    check(analyzer, edited(KERNEL, at, "    # note"), moved=1)   # the first tree moves (the spliced one is forgotten)
    check(analyzer, KERNEL, moved=1)
    check(analyzer, sized, spliced=1)
    check(analyzer, edited(sized, at, ""), moved=1)          # the spliced tree moves (the first is forgotten)
    check(analyzer, edited(typed_into(sized, "    cp.start()", "cp.start", "x"), at, ""), spliced=1)


def typed_statement_edits(lines: list[str], rng: random.Random) -> list[list[str]]:
    """A name typed into a random statement line, then a blank line inserted above it, a
    statement typed on that line and made longer, then all undone."""
    spots = [i for i, line in enumerate(lines) if STATEMENT.match(line)]
    i = rng.choice(spots)
    names = [m.end() for m in re.finditer(r"[A-Za-z_]\w*", lines[i])]
    k = rng.choice(names)
    typed = lines[:i] + [lines[i][:k] + "q" + lines[i][k:]] + lines[i + 1:]
    indent = STATEMENT.match(lines[i]).group(1)
    return [typed, typed[:i] + [""] + typed[i:], typed[:i] + [indent + "w"] + typed[i:],
            typed[:i] + [indent + "w = len"] + typed[i:], typed, lines]


def test_corpus_modules_under_typed_statements_equal_a_fresh_analysis():
    spliced = sum(s["spliced"] for stats in edited_corpus(typed_statement_edits, 2) for s in stats)
    assert spliced >= len(CORPUS)
