"""What Pallas binds to each kernel parameter, in the editor: inlay hints after the
parameters (`sems: scratch 2, DMA (2,)`) and after the assignments in kernel bodies
(`acc: f32[128, 256]`), off unless the `inlayHints` setting is on,
go to definition from a parameter to its spec or scratch entry and back, and the hover
text (see `hover.py`).  The bindings come from the last analysis run
(`ModuleAnalyzer.parameter_notes`), read on the analysis thread."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from ..analysis.contract.params import ParamNote
from ..analysis.findings import Span
from .diagnostics import PositionConverter
from .documents import Document, DocumentStore, Result


async def notes(store: DocumentStore, doc: Document) -> tuple[Result, list[ParamNote]] | None:
    result = await store.current(doc)
    if result is None:
        return None
    loop = asyncio.get_running_loop()
    return result, await loop.run_in_executor(store.executor, doc.analyzer.parameter_notes)


def _place(result: Result, uri: str, span: Span, converter: PositionConverter) -> tuple[str, types.Range] | None:
    if result.notebook is not None:
        placed = result.notebook.locate(span)
        if placed is None:
            return None
        cell_uri, lines, cell_span = placed
        return cell_uri, converter.span_to_range(lines, cell_span)
    return uri, converter.span_to_range(result.lines, span)


async def inlay_hints(store: DocumentStore, doc: Document, uri: str, visible: types.Range,
                      converter: PositionConverter) -> list[types.InlayHint]:
    """After each kernel parameter what Pallas binds to it; after each assignment in a
    kernel body the shape and dtype of the value."""
    found = await notes(store, doc)
    if found is None:
        return []
    result, params = found
    loop = asyncio.get_running_loop()
    values = await loop.run_in_executor(store.executor, doc.analyzer.value_notes)
    labelled: list[tuple[Span, str, str | None]] = [(n.span, n.label, n.detail) for n in params]
    labelled += [(n.span, n.label, None) for n in values if n.hinted]
    hints = []
    for span, label, tooltip in labelled:
        placed = _place(result, uri, span, converter)
        if placed is None or placed[0] != uri:
            continue
        end = placed[1].end
        if not (visible.start.line <= end.line <= visible.end.line):
            continue
        hints.append(types.InlayHint(position=end, label=f": {label}", kind=types.InlayHintKind.Type,
                                     padding_left=False, tooltip=tooltip))
    return hints


def _contains(span: Span, line: int, col: int) -> bool:
    return (span.line, span.col) <= (line, col) <= (span.end_line, span.end_col)


async def definition(store: DocumentStore, doc: Document, uri: str, where: tuple[int, int],
                     converter: PositionConverter) -> list[types.Location]:
    """From a kernel parameter to its spec / scratch entry; from that entry back to the
    parameters it feeds."""
    found = await notes(store, doc)
    if found is None:
        return []
    result, params = found
    out = []
    for note in params:
        if _contains(note.span, *where) and note.target is not None:
            target_uri = Path(note.target_path).as_uri() if note.target_path else uri
            if note.target_path:
                out.append(types.Location(target_uri, types.Range(
                    types.Position(note.target.line, note.target.col),
                    types.Position(note.target.end_line, note.target.end_col))))
            else:
                placed = _place(result, uri, note.target, converter)
                if placed is not None:
                    out.append(types.Location(*placed))
        elif note.target is not None and note.target_path is None and _contains(note.target, *where):
            placed = _place(result, uri, note.span, converter)
            if placed is not None:
                out.append(types.Location(*placed))
    return out
