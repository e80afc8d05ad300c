"""Unit tests of the protocol layer's pure pieces (no server process)."""

from __future__ import annotations

import random

import pytest
from lsprotocol import types
from pallas_lsp.analysis.findings import Span
from pallas_lsp.server.capabilities import resolve
from pallas_lsp.server.code_actions import wanted
from pallas_lsp.server.diagnostics import PositionConverter, split_plain
from pallas_lsp.server.notebooks import join_cells, notebook_message
from pallas_lsp.server.protocol import apply_change
from pallas_lsp.server.settings import parse_settings
from pygls.workspace.position_codec import PositionCodec
from pygls.workspace.text_document import TextDocument

from .conftest import PROFILES

UTF16 = PositionConverter(PositionCodec(types.PositionEncodingKind.Utf16))


def utf16_len(s):
    return len(s.encode("utf-16-le")) // 2


def test_apply_change_matches_pygls_on_random_edits():
    """Our cheap incremental change gives the text pygls' own gives (UTF-16, non-ASCII)."""
    rnd = random.Random(3)
    text = "héllo 😀 wörld\nabc\n\n  def f(x):\n    return x😀y\n" * 3
    reference = TextDocument("file:///x.py", text)
    known = (0, 0)
    inserts = ["x", "😀", "\n", "ab\ncd", "é", "  ", "", "def g():\n    pass\n"]
    for _ in range(2000):
        lines = text.split("\n")
        # Mostly near the previous edit (typing), sometimes anywhere.
        l1 = (min(len(lines) - 1, max(0, known[0] + rnd.randint(-2, 2))) if rnd.random() < 0.7
              else rnd.randrange(len(lines)))
        l2 = min(len(lines) - 1, l1 + rnd.choice([0, 0, 0, 1, 2]))

        def boundary(line, lines=lines):   # a UTF-16 column not inside a surrogate pair
            cols = [0]
            for ch in lines[line]:
                cols.append(cols[-1] + utf16_len(ch))
            return rnd.choice(cols)

        start, end = (l1, boundary(l1)), (l2, boundary(l2))
        if end < start:
            start, end = end, start
        rng = types.Range(types.Position(*start), types.Position(*end))
        new = rnd.choice(inserts) if rnd.random() < 0.7 else ""
        if len(text) < 200:          # keep the document from shrinking away
            new += "héllo 😀 wörld\n  x😀y = 1\n" * 4
        text, known = apply_change(
            text, types.TextDocumentContentChangePartial(range=rng, text=new), UTF16, known)
        reference.apply_change(types.TextDocumentContentChangePartial(range=rng, text=new))
        assert text == reference.source
    assert len(text) > 100   # the edits did not just empty the document


def test_apply_change_clamps_past_the_end_like_lsp():
    """A column past the line end means the line end; a line past the end, the text end."""
    text = "ab\ncd\n"
    change = types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(0, 99), types.Position(0, 99)), text="X")
    assert apply_change(text, change, UTF16)[0] == "abX\ncd\n"
    change = types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(50, 0), types.Position(60, 3)), text="Z")
    assert apply_change(text, change, UTF16)[0] == "ab\ncd\nZ"
    whole = types.TextDocumentContentChangeWholeDocument(text="new")
    assert apply_change(text, whole, UTF16)[0] == "new"


def test_position_conversion_counts_utf16_units():
    lines = ['x = "😀é"; y = sems']
    col = lines[0].index("sems")
    pos = UTF16.to_client(lines, 0, col)
    assert pos == types.Position(0, col + 1)          # 😀 is two UTF-16 units
    assert UTF16.to_server(lines, pos) == (0, col)
    utf32 = PositionConverter(PositionCodec(types.PositionEncodingKind.Utf32))
    assert utf32.to_client(lines, 0, col) == types.Position(0, col)
    utf8 = PositionConverter(PositionCodec(types.PositionEncodingKind.Utf8))
    assert utf8.to_client(lines, 0, col) == types.Position(0, col + 4)   # 4 + 2 bytes - 2 chars
    assert UTF16.to_client(lines, 7, 3) == types.Position(0, utf16_len(lines[0]))  # clamped


def test_split_plain_is_lsp_line_splitting():
    assert split_plain("a\fb\r\nc\rd\n") == ["a\fb", "c", "d", ""]
    assert split_plain("a\u2028b") == ["a\u2028b"]


@pytest.mark.parametrize(("profile", "pull", "related", "doc_link"), [
    ("vscode", True, True, True),
    ("neovim-0.7", False, True, False),
    ("neovim-0.11", True, True, False),    # pull without refresh
    ("eglot-1.9", False, False, False),
])
def test_client_profiles_resolve(profile, pull, related, doc_link):
    f = resolve(PROFILES[profile]())
    assert (f.pull_diagnostics, f.related_information, f.code_description) == (pull, related, doc_link)
    assert f.diagnostic_refresh == (profile == "vscode")


def test_resolve_tolerates_empty_capabilities():
    f = resolve(types.ClientCapabilities())
    assert not f.pull_diagnostics and not f.document_changes


def test_settings_sections_and_bad_values():
    s, problems = parse_settings({"pallas": {"select": ["pal001"], "ignore": [], "logLevel": "DEBUG"}})
    assert s.select == ("PAL001",) and s.ignore is None and s.log_level == "debug" and not problems
    s, problems = parse_settings({"ignore": ["PAL9", "PAL003"], "interpreter": 5})
    assert s.ignore == ("PAL003",) and s.interpreter is None and len(problems) == 2
    # a list where a list is expected, as in pyproject.toml: a lone string is not taken
    s, problems = parse_settings({"select": "PAL002", "ignore": ["E902"]})
    assert s.select is None and s.ignore == ("E902",)
    assert problems == ["`select` must be a list of rule codes or prefixes; ignored"]


def test_a_change_without_interpreter_keeps_the_known_one():
    known, _ = parse_settings({"interpreter": "/env/bin/python"})
    for raw in ({"pallas": {"interpreter": ""}}, {"interpreter": None}, {"ignore": ["PAL003"]}, None):
        s, problems = parse_settings(raw, known)
        assert s.interpreter == "/env/bin/python" and problems == []
    s, _ = parse_settings({"interpreter": "/other/python"}, known)
    assert s.interpreter == "/other/python"
    assert parse_settings({"interpreter": ""})[0].interpreter is None
    s, problems = parse_settings("nonsense")
    assert s == parse_settings(None)[0] and problems


def test_code_action_kind_matching():
    assert wanted("source.fixAll.pallas", None)
    assert wanted("source.fixAll.pallas", ["source.fixAll"])
    assert wanted("source.fixAll.pallas", ["source"])
    assert not wanted("source.fixAll.pallas", ["source.fix"])
    assert not wanted("quickfix", ["refactor"])


class _Doc:
    def __init__(self, source, language_id="python"):
        self.source, self.version, self.language_id = source, 1, language_id


def _notebook(cells):
    nb = types.NotebookDocument(
        uri="file:///nb.ipynb", notebook_type="jupyter-notebook", version=1,
        cells=[types.NotebookCell(kind=k, document=f"cell:{i}%3D") for i, (k, _) in enumerate(cells)])
    docs = {f"cell:{i}=": _Doc(text, "sql" if text.startswith("SELECT") else "python")
            for i, (_, text) in enumerate(cells)}
    return join_cells(nb, docs)


def test_notebook_join_and_locate():
    code, md = types.NotebookCellKind.Code, types.NotebookCellKind.Markup
    nb = _notebook([(code, "a = 1\nb = 2"), (md, "# title"), (code, "%time x\n!ls\nc = 3\n"),
                    (code, "SELECT 1"), (code, "%%bash\necho hi")])
    assert nb.text == "a = 1\nb = 2\n#time x\n#ls\nc = 3\n\n\n\n"
    assert [c.uri for c in nb.cells] == ["cell:0%3D", "cell:2%3D", "cell:4%3D"]
    uri, lines, span = nb.locate(Span(4, 0, 4, 1))
    assert uri == "cell:2%3D" and span == Span(2, 0, 2, 1) and lines[2] == "c = 3"
    assert nb.locate(Span(1, 0, 2, 1)) is None           # across two cells
    assert notebook_message("declared at line 5", nb) == "declared at cell 2, line 3"


def test_run_server_rejects_a_bad_tcp_address():
    from pallas_lsp.server.main import run_server

    with pytest.raises(ValueError, match="HOST:PORT"):
        run_server(tcp="localhost")


class _Node:
    """A cycle-forming object, as the interpreter's frames and closures are."""

    def __init__(self):
        self.me = self


def test_a_small_runs_cyclic_garbage_is_collected_before_freezing():
    """After a keystroke's run, the collection before the freeze scans only what the run
    made (the objects frozen before are skipped), so its cyclic garbage is freed."""
    import gc
    import weakref

    from pallas_lsp.memory import frozen_after

    with frozen_after():
        node = _Node()
        alive = weakref.ref(node)
        del node
    assert gc.isenabled() and alive() is None
    gc.unfreeze()


def test_a_large_runs_garbage_is_frozen_until_reclaimed(monkeypatch):
    """After a first analysis (more objects than a cheap scan allows), what it left is
    frozen as it is: the collections after it skip it, `reclaim` gives it back."""
    import gc
    import weakref

    from pallas_lsp import memory

    monkeypatch.setattr(memory, "YOUNG_SCAN_LIMIT", -1)   # as after two million new objects
    with memory.frozen_after():
        assert not gc.isenabled()
        node = _Node()
        alive = weakref.ref(node)
        del node                  # cyclic garbage, made while an analysis runs
    assert gc.isenabled() and gc.get_freeze_count() > 0
    gc.collect()
    assert alive() is not None    # frozen: the collections after an analysis skip it
    memory.reclaim()
    assert alive() is None        # given back (when a document is closed)
    gc.unfreeze()


def test_a_servers_run_is_settled_after_its_answer(monkeypatch):
    """The server pauses the GC for a run and settles it only after the answer is sent:
    until then no collection runs (the run's garbage is still there); settling collects
    it, freezes the rest and turns the GC back on, once for runs paused together."""
    import gc
    import weakref

    from pallas_lsp import memory

    grown = []
    monkeypatch.setattr(memory.GrowthWatch, "reclaim_when_grown", lambda self: grown.append(1))
    assert gc.isenabled()
    gc_state = memory.SettleAfterAnswer()
    gc_state.pause()
    node = _Node()
    alive = weakref.ref(node)
    del node                     # cyclic garbage of the run
    gc_state.pause()             # a second run before the first was settled (superseded)
    assert not gc.isenabled() and alive() is not None
    gc_state.settle()
    assert gc.isenabled() and alive() is None and grown == [1]
    gc_state.settle()            # nothing paused: nothing to do
    assert gc.isenabled() and grown == [1]
    gc.unfreeze()


def test_reclaim_when_grown_collects_only_after_enough_growth(monkeypatch):
    from pallas_lsp import memory

    calls = []
    sizes = iter([100, 150, 227, 228, 229, 356, 357, 400])
    monkeypatch.setattr(memory, "_rss", lambda: next(sizes))
    monkeypatch.setattr(memory, "reclaim", lambda: calls.append(1))
    watch = memory.GrowthWatch(step=128)
    # 100 is the baseline; at 228 the process has grown by the step: collect, and the
    # size after it (229) is the new baseline; at 357 it has grown by the step again.
    got = [watch.reclaim_when_grown() for _ in range(6)]
    assert got == [False, False, False, True, False, True]
    assert len(calls) == 2
