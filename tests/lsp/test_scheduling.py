"""Scheduling: a burst of keystrokes settles on the final text, never publishing stale."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from .conftest import (
    TIMEOUT,
    change_doc,
    diagnostics,
    doc_uri,
    open_doc,
    pull,
    start,
    wait_publish,
)
from .kernels import CALL, FIXED, HEADER, KERNEL_BODY

TYPED = "        pl.semaphore_signal(sems, 1)"   # 36 keystrokes, complete only at the end


def type_line(client, uri, text, line, first_version):
    """Insert a new line at `line`, then type `TYPED` into it one character at a time."""
    version = first_version
    pos = types.Position(line, 0)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangePartial(range=types.Range(pos, pos), text="\n")]))
    for i, ch in enumerate(TYPED):
        version += 1
        p = types.Position(line, i)
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangePartial(range=types.Range(p, p), text=ch)]))
    lines = text.split("\n")
    return "\n".join([*lines[:line], TYPED, *lines[line:]]), version


def insertion_line(text):
    """Just below `copy.start()` in the kernel body."""
    return text.split("\n").index("        copy.start()") + 1


@pytest.mark.parametrize("profile", ["neovim-0.7", "eglot-1.9"])
async def test_burst_push_settles_on_the_final_version(client, tmp_path, profile):
    await start(client, profile)
    uri = doc_uri(tmp_path)
    open_doc(client, uri, FIXED)
    assert list((await wait_publish(client, uri, 1)).diagnostics) == []

    n = len(client.publishes)
    final_text, final_version = type_line(client, uri, FIXED, insertion_line(FIXED), 2)
    final = await wait_publish(client, uri, final_version, after=n)
    assert [d.code for d in final.diagnostics] == ["PAL002"]

    # Versions only go up: nothing stale after a newer one, and the last is the final.
    ours = [p.version for p in client.publishes[n:] if p.uri == uri]
    assert ours == sorted(ours) and ours[-1] == final_version

    # The same text opened fresh gives the same diagnostics.
    ref = doc_uri(tmp_path, "reference.py")
    open_doc(client, ref, final_text)
    assert [d.range for d in final.diagnostics] == \
        [d.range for d in (await wait_publish(client, ref, 1)).diagnostics]


async def test_burst_pull_answers_for_the_final_text(client, tmp_path):
    await start(client, "vscode")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, FIXED)
    assert list((await pull(client, uri)).items) == []
    type_line(client, uri, FIXED, insertion_line(FIXED), 2)
    report = await pull(client, uri)          # asked right after the last keystroke
    [d] = report.items
    assert d.code == "PAL002"
    assert d.range.start.line == insertion_line(FIXED)


async def test_documents_are_independent(client, tmp_path):
    """An edit burst in one document does not delay or disturb another's results."""
    await start(client, "neovim-0.7")
    a, b = doc_uri(tmp_path, "a.py"), doc_uri(tmp_path, "b.py")
    open_doc(client, a, FIXED)
    open_doc(client, b, FIXED.replace("sems.at[slot])", "sems)"))
    type_line(client, a, FIXED, insertion_line(FIXED), 2)
    assert [d.code for d in await diagnostics(client, b, 1)] == ["PAL001"]


def many_kernels(n: int, buggy: set[int]) -> str:
    """`n` renamed copies of the double-buffered kernel and its call; the copies in
    `buggy` pass the whole semaphore array (PAL001)."""
    parts = [HEADER]
    for k in range(n):
        body = (KERNEL_BODY + CALL).replace("def kernel(", f"def kernel_{k}(") \
            .replace("        kernel,", f"        kernel_{k},") \
            .replace("def double_buffered(", f"def double_buffered_{k}(")
        parts.append(body if k in buggy else body.replace("buf.at[slot], sems)", "buf.at[slot], sems.at[slot])"))
    return "".join(parts)


async def test_a_superseded_run_stops_early(client, tmp_path):
    """A change during a long first analysis cuts that run short: nothing is published
    for it, and the next run starts at once on the new text.  (That the next run reuses
    what the cut one finished is tested on the engine, in test_incremental.py.)"""
    await start(client, "neovim-0.7", init_options={"logLevel": "debug"})
    uri = doc_uri(tmp_path)
    first, second = many_kernels(300, {0}), many_kernels(300, {0, 299})
    open_doc(client, uri, first)
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while not any(f"{uri} v1: analysing" in m.message for m in client.log_messages):
        assert asyncio.get_running_loop().time() < deadline, "the first run never started"
        await asyncio.sleep(0.005)
    change_doc(client, uri, 2, second)

    final = await wait_publish(client, uri, 2)
    assert [(d.code, d.range.start.line) for d in final.diagnostics] == \
        [("PAL001", i) for i, line in enumerate(second.split("\n")) if line.endswith("buf.at[slot], sems)")]
    assert [p.version for p in client.publishes if p.uri == uri] == [2]
    logged = [m.message for m in client.log_messages if m.message.startswith(uri)]
    assert any(m.startswith(f"{uri} v1: superseded after") for m in logged), logged
    assert any(m.startswith(f"{uri} v2: 2 findings in") for m in logged), logged
