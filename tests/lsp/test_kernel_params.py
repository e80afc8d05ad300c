"""What Pallas binds to each kernel parameter, in the editor: hover on the parameter,
inlay hints after it (off by default), go to definition to its spec / scratch entry and
back."""

from __future__ import annotations

from lsprotocol import types

from .conftest import diagnostics, doc_uri, open_doc, start
from .kernels import FIXED
from .test_hover import hover_at, position_of

DEF_LINE = next(i for i, line in enumerate(FIXED.split("\n")) if line.startswith("def kernel("))
WHOLE = types.Range(types.Position(0, 0), types.Position(len(FIXED.split("\n")), 0))


async def hints(client, uri):
    return await client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=types.TextDocumentIdentifier(uri), range=WHOLE))


async def test_hover_on_a_kernel_parameter_says_what_pallas_binds(client, tmp_path):
    await start(client, "vscode")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, FIXED)
    assert await diagnostics(client, uri, 1) == []
    sems = await hover_at(client, uri, position_of(FIXED, "sems):", 1))
    assert sems is not None
    assert "`sems` ← scratch 2: DMA semaphore array (2,)" in sems.contents.value
    buf = await hover_at(client, uri, position_of(FIXED, "buf, sems):", 1))
    assert "`buf` ← scratch 1: VMEM array (2, 8, 128)" in buf.contents.value


async def test_inlay_hints_are_off_by_default_and_on_with_the_setting(client, tmp_path):
    await start(client, "vscode")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, FIXED)
    await diagnostics(client, uri, 1)
    assert not await hints(client, uri)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"pallas": {"inlayHints": True}}))
    found = await hints(client, uri)
    params = [h for h in found if h.position.line == DEF_LINE]
    labels = {h.label for h in params}
    assert labels == {": input 1", ": output 1, (8, 128)", ": scratch 1, (2, 8, 128)", ": scratch 2, DMA (2,)"}
    sems = next(h for h in found if h.label == ": scratch 2, DMA (2,)")
    assert sems.position.character == FIXED.split("\n")[DEF_LINE].index("sems") + len("sems")
    # after each assignment in the kernel body, its value: `slot = i % NSLOTS` with the
    # loop index of `fori_loop(0, 4, ...)` (Python bounds: a weakly typed int32)
    [slot] = [h for h in found if h.position.line != DEF_LINE]
    slot_line = position_of(FIXED, "slot = i % NSLOTS")
    assert (slot.label, slot.position.line) == (": i32~[]", slot_line.line)
    assert slot.position.character == slot_line.character + len("slot")


async def test_go_to_definition_from_a_parameter_to_its_scratch_entry_and_back(client, tmp_path):
    await start(client, "vscode")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, FIXED)
    await diagnostics(client, uri, 1)
    ident = types.TextDocumentIdentifier(uri)
    [to_decl] = await client.text_document_definition_async(
        types.DefinitionParams(ident, position_of(FIXED, "sems):", 1)))
    decl = position_of(FIXED, "pltpu.SemaphoreType.DMA((2,))")
    assert (to_decl.range.start.line, to_decl.range.start.character) == (decl.line, decl.character)
    [back] = await client.text_document_definition_async(types.DefinitionParams(ident, decl))
    assert back.range.start.line == DEF_LINE
    assert back.range.start.character == FIXED.split("\n")[DEF_LINE].index("sems")


async def test_the_protocol_rules_reach_the_editor_with_their_certainty(client, tmp_path):
    from pathlib import Path

    protocol = Path(__file__).resolve().parents[1] / "protocol"
    await start(client, "vscode")
    for name, severity in (("pal302_prefetch_last_step_bug.py", types.DiagnosticSeverity.Error),
                           ("pal302_ring_shift_bug.py", types.DiagnosticSeverity.Warning)):
        uri = doc_uri(tmp_path, name)
        open_doc(client, uri, (protocol / name).read_text())
        found = await diagnostics(client, uri, 1)
        assert [(d.code, d.severity) for d in found] == [("PAL302", severity)]


async def test_hover_on_a_scratch_entry_names_the_parameter_it_feeds(client, tmp_path):
    await start(client, "vscode")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, FIXED)
    await diagnostics(client, uri, 1)
    entry = await hover_at(client, uri, position_of(FIXED, "pltpu.SemaphoreType.DMA((2,))", 3))
    assert entry is not None
    assert f"scratch 2, DMA (2,): passed to the kernel parameter `sems` (line {DEF_LINE + 1})" in entry.contents.value
