"""textDocument/hover: what Pallas binds to the kernel parameter under the cursor, what a
`pallas_call` under it is made of, what the analysis knows of the semaphore under it, or
the shape and dtype of the array value under it.

`sems` -> "DMA semaphore array of shape `(2,)`, declared at line 40 — index it with
`.at[...]`"; `sems.at[slot]` -> "one DMA semaphore"; `pl.pallas_call` -> its grid, a table
of its operands and the VMEM they take; `acc` -> "`f32[128, 256]`".  The answer comes
from the values the last analysis run recorded (`ModuleAnalyzer.parameter_at`,
`call_at`, `semaphore_at`, `value_at`), read on the analysis thread so it never races a
run.
"""

from __future__ import annotations

import asyncio

from lsprotocol import types

from ..analysis.arrays.notes import ValueNote
from ..analysis.contract.summary_text import render
from ..analysis.engine import SemaphoreInfo
from .diagnostics import PositionConverter
from .documents import Document, DocumentStore, Result


def position(result: Result, uri: str, pos: types.Position, converter: PositionConverter):
    """The (line, code-point column) in the analysed text for a client position."""
    if result.notebook is None:
        return converter.to_server(result.lines, pos)
    cell = next((c for c in result.notebook.cells if c.uri == uri), None)
    if cell is None or not cell.lines:
        return None
    line, col = converter.to_server(list(cell.lines), pos)
    return cell.start + line, col


async def hover(store: DocumentStore, doc: Document, uri: str, pos: types.Position,
                converter: PositionConverter) -> types.Hover | None:
    result = await store.current(doc)
    if result is None:
        return None
    where = position(result, uri, pos, converter)
    if where is None:
        return None
    loop = asyncio.get_running_loop()
    param = await loop.run_in_executor(store.executor, doc.analyzer.parameter_at, *where)
    entry = None if param is not None else \
        await loop.run_in_executor(store.executor, doc.analyzer.binding_of_entry_at, *where)
    if param is not None:
        text = param.detail + (f" (declared at line {param.target.line + 1})"
                               if param.target is not None and param.target_path is None else "")
    elif entry is not None:
        text = f"{entry.label}: passed to the kernel parameter `{entry.name}` (line {entry.span.line + 1})"
    else:
        call = await loop.run_in_executor(store.executor, doc.analyzer.call_at, *where)
        if call is not None:
            return _markdown(f"**pallas-lsp** · {render(*call)}")
        info: SemaphoreInfo | ValueNote | None = await loop.run_in_executor(
            store.executor, doc.analyzer.semaphore_at, *where)
        if info is None:   # not a semaphore: an array value, if one is named there
            info = await loop.run_in_executor(store.executor, doc.analyzer.value_at, *where)
        if info is None:
            return None
        text = info.describe()
    return _markdown(f"**pallas-lsp**: {text}")


def _markdown(text: str) -> types.Hover:
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))
