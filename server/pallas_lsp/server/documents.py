"""Open documents and notebooks, and the scheduling of their analysis.

One `Document` per open text document or notebook, each with its own incremental
`ModuleAnalyzer`.  Runs go to a single worker thread, so the event loop keeps reading
messages while a file is analysed.  There is no debounce: an edit starts a run at once if
none is in flight for that document; edits that arrive during a run only bump the
document's generation; the run notices between two entries or within a few thousand
interpreter steps inside one (see `engine.Cancelled`), stops without a result (it is never
published), keeps the entries it finished, and one new run starts on the latest text.  A burst of keystrokes therefore costs about one final run, however long
the superseded one would have been, and nothing stale is ever published.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from urllib.parse import unquote

from lsprotocol import types
from pygls.uris import to_fs_path

from ..analysis.engine import Cancelled, ModuleAnalyzer
from ..analysis.findings import Finding
from ..analysis.choices import ChoiceCheck
from ..analysis.fixes import fixes_for, split_lines
from ..memory import SettleAfterAnswer, frozen_after, reclaim
from .diagnostics import DiagnosticFactory, PositionConverter, split_plain
from .notebooks import NotebookText, join_cells, notebook_message
from .settings import Selection

log = logging.getLogger(__name__)

# Text longer than this (about 60,000 lines) is not analysed (a log line says so): a
# generated or binary file of this size is not a kernel, and analysing it would hold the
# single analysis thread, and with it every other document, for seconds.
MAX_SOURCE_CHARS = 2_000_000

_SERIALS = itertools.count(1)


@dataclass
class Result:
    """One finished analysis of one generation of a document."""

    generation: int
    version: int | None
    text: str
    findings: tuple[Finding, ...]          # after rule selection
    # Per URI (a notebook: per cell): (finding, diagnostic, its JSON-ready dict), in order.
    entries: dict[str, list[tuple[Finding, types.Diagnostic, dict]]]
    versions: dict[str, int | None]        # per URI, for publishDiagnostics
    notebook: NotebookText | None = None
    result_ids: dict[str, str] = field(default_factory=dict)
    choices: ChoiceCheck | None = None     # the quick fixes' choices judged so far (code actions)

    @cached_property
    def lines(self) -> list[str]:
        """The analysed text's lines, without endings (made only when asked for)."""
        return split_plain(self.text)

    @cached_property
    def lines_with_endings(self) -> list[str]:
        """The lines as `analysis.fixes` takes them (made once, for code actions)."""
        return split_lines(self.text)

    def diagnostics(self, uri: str) -> list[types.Diagnostic]:
        return [d for _, d, _ in self.entries.get(uri, ())]

    def wire(self, uri: str) -> list[dict]:
        return [w for _, _, w in self.entries.get(uri, ())]


class Document:
    """State of one open text document (`uri`) or notebook (`uri` of the notebook)."""

    def __init__(self, uri: str, is_notebook: bool, factory: DiagnosticFactory, workspace):
        self.uri = uri
        self.is_notebook = is_notebook
        self.path = to_fs_path(uri)
        self.workspace = workspace
        self.analyzer = ModuleAnalyzer(self.path, workspace)
        self.factory = factory
        self.generation = 0          # bumped by every change that needs a new run
        self.running = False
        self.closed = False
        self.result: Result | None = None
        self.waiters: list[asyncio.Future] = []
        self.published: set[str] = set()       # URIs pushed last time (cells of a notebook)
        self._ids: dict[str, tuple[int, list]] = {}  # URI -> (result counter, diagnostics)
        self.serial = next(_SERIALS)   # keeps result ids unique across close / reopen
        self.too_large_logged = False

    def next_result_id(self, uri: str, diagnostics: list) -> str:
        """A result id that changes only when the URI's diagnostics change."""
        n, old = self._ids.get(uri, (0, None))
        if old is None or old != diagnostics:
            n += 1
        self._ids[uri] = (n, diagnostics)
        return f"{self.serial}.{n}"


@dataclass(frozen=True)
class Snapshot:
    generation: int
    version: int | None
    text: str
    selection: Selection
    notebook: NotebookText | None = None


class DocumentStore:
    """Open documents, their runs, and what is published for them.

    `publish(uri, wire_diagnostics, version)` is called on the event loop for push clients
    (the diagnostics as JSON-ready dicts, see `wire`);
    `selection_for(path)` gives the rules that apply to a document.
    """

    def __init__(self, server, converter_factory: Callable[[], PositionConverter],
                 selection_for: Callable[[str | None], Selection],
                 publish: Callable[[str, list, int | None], None] | None,
                 project_workspace=None):
        self.server = server
        self.converter_factory = converter_factory
        self.selection_for = selection_for
        self.publish = publish
        self.project_workspace = project_workspace
        self.docs: dict[str, Document] = {}
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pallas-analysis")
        self.stopped = False
        self._reclaim_pending = False
        self.gc = SettleAfterAnswer()   # a run's collection waits until its answer is sent

    def stop(self) -> None:
        """The client asked for shutdown: no more runs; a run in flight is not waited for."""
        self.stopped = True
        self.executor.shutdown(wait=False, cancel_futures=True)

    # -- lifecycle ---------------------------------------------------------------------
    def open(self, uri: str, is_notebook: bool = False) -> Document:
        old = self.docs.pop(uri, None)
        if old is not None:
            self._retire(old)
        factory = DiagnosticFactory(self.server.features, self.converter_factory(),
                                    self.server.wire_converter.unstructure)
        doc = Document(uri, is_notebook, factory, self.project_workspace)
        self.docs[uri] = doc
        self.touch(doc)
        return doc

    def close(self, uri: str) -> None:
        doc = self.docs.pop(uri, None)
        if doc is None:
            log.info("close of a document that is not open: %s", uri)
            return
        self._retire(doc)
        if self.publish is not None:
            for target in sorted(doc.published):
                self.publish(target, [], None)
        if not self._reclaim_pending:   # the closed document's frozen cyclic garbage,
            self._reclaim_pending = True  # once for documents closed together
            self.on_worker(self._reclaim)

    def _reclaim(self) -> None:
        self._reclaim_pending = False
        reclaim()

    def _retire(self, doc: Document) -> None:
        doc.closed = True
        for fut in doc.waiters:
            if not fut.done():
                fut.set_result(None)
        doc.waiters.clear()

    def get(self, uri: str) -> Document | None:
        """The document for a text, notebook or notebook-cell URI."""
        doc = self.docs.get(uri)
        if doc is not None:
            return doc
        notebook = self.server.workspace.get_notebook_document(cell_uri=uri)
        return self.docs.get(notebook.uri) if notebook is not None else None

    def touch(self, doc: Document) -> None:
        """The document changed (or its settings did): make sure a run will follow."""
        doc.generation += 1
        if not doc.running and not doc.closed and not self.stopped:
            doc.running = True
            asyncio.get_running_loop().create_task(self._drive(doc))

    def on_worker(self, fn, *args) -> None:
        """Run `fn(*args)` on the analysis thread, between runs (for state it owns)."""
        if self.stopped:
            return

        def guarded():
            try:
                fn(*args)
            except Exception:
                log.exception("%s failed on the analysis thread", getattr(fn, "__name__", fn))
        self.executor.submit(guarded)

    def touch_all(self) -> None:
        for doc in list(self.docs.values()):
            self.touch(doc)

    async def judge_choices(self, doc: Document, result: Result, findings: list[Finding]) -> ChoiceCheck:
        """The choices offered for `findings`, judged on the analysis thread: each applied to
        the text and analysed like an edit (then the text again, so that hover and the next
        run see it), once per analysed text; a newer keystroke stops the judging (the choices
        not judged are listed)."""
        if result.choices is None:
            selection = self.selection_for(doc.path)

            def stale() -> bool:
                return doc.closed or self.stopped or doc.generation != result.generation

            result.choices = ChoiceCheck(
                result.text, result.findings,
                lambda text: [f for f in doc.analyzer.analyze(text, stale) if selection.wants(f.code)])
        check = result.choices
        lines = result.lines_with_endings
        pending = [(f, fix) for f in findings for fix in fixes_for(f, lines) if check.judged(f, fix) is None]
        if pending and not doc.closed and not self.stopped:
            await asyncio.get_running_loop().run_in_executor(self.executor, self._judge, doc, result, pending)
        return check

    def _judge(self, doc: Document, result: Result, pending: list) -> None:
        check = result.choices
        assert check is not None
        try:
            with frozen_after():
                for finding, fix in pending:
                    check.sound(finding, fix)
        except Cancelled:
            pass
        except Exception:
            log.exception("judging the quick fixes of %s failed", doc.uri)
        if doc.generation == result.generation and not doc.closed and not self.stopped:
            with frozen_after():
                doc.analyzer.analyze(result.text)   # back to the text the editor shows

    async def current(self, doc: Document) -> Result | None:
        """The result for the document's latest text (waits for the run); None if closed."""
        if doc.result is not None and doc.result.generation == doc.generation:
            return doc.result
        if doc.closed or self.stopped:
            return None if doc.closed else doc.result
        fut = asyncio.get_running_loop().create_future()
        doc.waiters.append(fut)
        if not doc.running:
            self.touch(doc)
        return await fut

    # -- runs --------------------------------------------------------------------------
    def _snapshot(self, doc: Document) -> Snapshot | None:
        ws = self.server.workspace
        selection = self.selection_for(doc.path)
        if doc.is_notebook:
            nb = ws.get_notebook_document(notebook_uri=doc.uri)
            if nb is None:
                return None
            text = join_cells(nb, ws.text_documents)
            return Snapshot(doc.generation, nb.version, text.text, selection, text)
        td = ws.text_documents.get(unquote(doc.uri))
        if td is None:
            return None
        return Snapshot(doc.generation, td.version, td.source, selection)

    async def _drive(self, doc: Document) -> None:
        loop = asyncio.get_running_loop()
        try:
            while not doc.closed and not self.stopped and (
                    doc.result is None or doc.result.generation != doc.generation):
                snap = self._snapshot(doc)
                if snap is None:
                    log.warning("no text for %s; not analysed", doc.uri)
                    break
                result = await loop.run_in_executor(self.executor, self._run, doc, snap)
                if doc.closed:
                    break
                if result is not None and result.generation == doc.generation:
                    self._finish(doc, result)   # a run superseded while running is never published
                self.on_worker(self.gc.settle)  # after the answer is sent, before the next run
        except Exception:
            log.exception("scheduling the analysis of %s failed", doc.uri)
        finally:
            self.on_worker(self.gc.settle)
            doc.running = False
            if doc.waiters and (doc.closed or doc.result is None
                                or doc.result.generation != doc.generation):
                # The loop ended without a current result (closed, vanished, or failed):
                # answer waiters with what there is rather than leave them hanging.
                for fut in doc.waiters:
                    if not fut.done():
                        fut.set_result(doc.result)
                doc.waiters.clear()

    def _run(self, doc: Document, snap: Snapshot) -> Result | None:
        """Analyse one snapshot (on the worker thread); never raises.  None when the
        document changed (or closed) during the run: the run was cut short."""
        t0 = time.perf_counter()
        text = snap.text
        log.debug("%s v%s: analysing", doc.uri, snap.version)
        findings: list[Finding] = []
        if snap.selection.excluded:
            log.debug("%s is excluded by the project configuration", doc.uri)
        elif len(text) > MAX_SOURCE_CHARS:
            if not doc.too_large_logged:
                log.warning("%s has %d characters (over %d): not analysed",
                            doc.uri, len(text), MAX_SOURCE_CHARS)
                doc.too_large_logged = True
        else:
            try:
                self.gc.pause()   # settled once the answer is sent (`_drive`)
                findings = doc.analyzer.analyze(
                    text, lambda: doc.closed or self.stopped or doc.generation != snap.generation)
            except Cancelled:
                log.debug("%s v%s: superseded after %.1f ms", doc.uri, snap.version,
                          (time.perf_counter() - t0) * 1000)
                return None
            except Exception:
                log.exception("analysis of %s failed; its diagnostics are cleared until the "
                              "next change", doc.uri)
                doc.analyzer = ModuleAnalyzer(doc.path, doc.workspace)
                findings = []
        try:
            findings = [f for f in findings if snap.selection.wants(f.code)]
            if snap.notebook is not None:
                result = self._notebook_result(doc, snap, snap.notebook, findings)
            else:
                built = doc.factory.build_all(findings, doc.uri, text, doc.path)
                result = Result(snap.generation, snap.version, text, tuple(findings),
                                {doc.uri: [(f, d, w) for f, (d, w) in zip(findings, built)]},
                                {doc.uri: snap.version})
        except Exception:
            log.exception("converting the findings of %s failed", doc.uri)
            result = Result(snap.generation, snap.version, text, (), {doc.uri: []},
                            {doc.uri: snap.version})
        stats = doc.analyzer.stats
        log.debug("%s v%s: %d findings in %.1f ms (%d of %d blocks run)", doc.uri, snap.version,
                  len(findings), (time.perf_counter() - t0) * 1000, stats.get("entries_run", 0),
                  stats.get("blocks", 0))
        return result

    def _notebook_result(self, doc: Document, snap: Snapshot, nb: NotebookText,
                         findings) -> Result:
        entries: dict[str, list] = {c.uri: [] for c in nb.cells}
        for f in findings:
            placed = nb.locate(f.span)
            if placed is None:      # across cells: not shown
                continue
            d = doc.factory.build_placed(f, nb.locate, placed, None,
                                         message=notebook_message(f.message, nb))
            entries[placed[0]].append((f, d, doc.factory.unstructure(d)))
        return Result(snap.generation, snap.version, snap.text, tuple(findings), entries,
                      {c.uri: c.version for c in nb.cells}, nb)

    def _finish(self, doc: Document, result: Result) -> None:
        result.result_ids = {uri: doc.next_result_id(uri, result.diagnostics(uri))
                             for uri in result.entries}
        doc.result = result
        for fut in doc.waiters:
            if not fut.done():
                fut.set_result(result)
        doc.waiters.clear()
        if self.publish is None:
            return
        for uri in result.entries:
            self.publish(uri, result.wire(uri), result.versions.get(uri))
        for gone in doc.published - result.entries.keys():
            self.publish(gone, [], None)        # a cell that left the notebook
        doc.published = set(result.entries)
