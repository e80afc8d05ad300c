"""Code actions end to end: listed for a diagnostic, applied, and the document re-checked."""

from __future__ import annotations

import pytest
from lsprotocol import types

from .conftest import (
    apply_edits,
    change_doc,
    diagnostics,
    doc_uri,
    edits_for,
    open_doc,
    start,
)
from .kernels import BUGGY, PAGED_GATHER, SIGNAL, UNICODE


def actions_request(uri, diag=None, only=None, rng=None):
    rng = rng or diag.range
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri),
        range=rng,
        context=types.CodeActionContext(diagnostics=[diag] if diag else [], only=only),
    )


def pal(diags, code):
    return [d for d in diags if d.code == code]


@pytest.mark.parametrize("profile", ["vscode", "neovim-0.7", "eglot-1.9"])
async def test_index_fix_is_offered_applied_and_clears_the_error(client, tmp_path, profile):
    await start(client, profile)
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BUGGY)
    [err] = pal(await diagnostics(client, uri, 1), "PAL001")

    listed = await client.text_document_code_action_async(actions_request(uri, err))
    actions = [a for a in listed if a.kind == types.CodeActionKind.QuickFix]
    assert actions, "quick fixes expected"
    for a in actions:
        assert list(a.diagnostics) == [err], (a.diagnostics, err)
    # Without `only`, the file-wide fix is listed too (after the quick fixes).
    assert listed[-1].kind == "source.fixAll.pallas"
    index = next(a for a in actions if "sems.at[slot]" in a.title)
    if profile != "neovim-0.7":  # isPreferred only where the client supports it
        assert index.is_preferred
    assert any("assert" in a.title.lower() for a in actions)
    assert any("noqa" in a.title.lower() for a in actions)

    fixed = apply_edits(BUGGY, edits_for(index.edit, uri))
    assert "buf.at[slot], sems.at[slot])" in fixed
    change_doc(client, uri, 2, fixed)
    assert pal(await diagnostics(client, uri, 2), "PAL001") == []


async def test_versioned_edits_where_the_client_supports_them(client, tmp_path):
    await start(client, "vscode")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BUGGY, version=7)
    [err] = pal(await diagnostics(client, uri, 7), "PAL001")
    [action, *_] = await client.text_document_code_action_async(actions_request(uri, err))
    [doc_edit] = action.edit.document_changes
    assert doc_edit.text_document.uri == uri and doc_edit.text_document.version == 7


async def test_guard_fix_inserts_an_indented_assertion(client, tmp_path):
    await start(client, "neovim-0.7")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, SIGNAL)
    [err] = pal(await diagnostics(client, uri, 1), "PAL002")
    actions = await client.text_document_code_action_async(actions_request(uri, err))
    guard = next(a for a in actions if "assert" in a.title.lower())
    fixed = apply_edits(SIGNAL, edits_for(guard.edit, uri))
    lines = fixed.splitlines()
    i = lines.index("    pl.semaphore_signal(sems, 1)")
    assert lines[i - 1].startswith("    assert sems.shape == (),")
    compile(fixed, "fixed.py", "exec")   # still valid Python


async def test_noqa_fix_suppresses_on_recheck(client, tmp_path):
    await start(client, "eglot-1.9")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, SIGNAL)
    [err] = pal(await diagnostics(client, uri, 1), "PAL002")
    actions = await client.text_document_code_action_async(actions_request(uri, err))
    noqa = next(a for a in actions if "noqa" in a.title.lower())
    fixed = apply_edits(SIGNAL, edits_for(noqa.edit, uri))
    assert "pl.semaphore_signal(sems, 1)  # noqa: PAL002" in fixed
    change_doc(client, uri, 2, fixed)
    assert pal(await diagnostics(client, uri, 2), "PAL002") == []


async def test_fix_all(client, tmp_path):
    await start(client, "vscode")
    uri = doc_uri(tmp_path)
    text = BUGGY + SIGNAL[SIGNAL.index("\n\ndef ring_kernel"):]
    open_doc(client, uri, text)
    diags = await diagnostics(client, uri, 1)
    assert pal(diags, "PAL001") and pal(diags, "PAL002")

    whole = types.Range(types.Position(0, 0), types.Position(0, 0))
    actions = await client.text_document_code_action_async(
        actions_request(uri, rng=whole, only=[types.CodeActionKind.SourceFixAll]))
    [fix_all] = actions
    assert fix_all.kind == "source.fixAll.pallas"
    fixed = apply_edits(text, edits_for(fix_all.edit, uri))
    change_doc(client, uri, 2, fixed)
    left = await diagnostics(client, uri, 2)
    # The signal's index is a choice (only `.at[0]` elsewhere): fix-all leaves it.
    assert pal(left, "PAL001") == [] and len(pal(left, "PAL002")) == 1

    # Nothing left to fix: no fixAll action.
    again = await client.text_document_code_action_async(
        actions_request(uri, rng=whole, only=["source.fixAll.pallas"]))
    assert not any(a.kind == "source.fixAll.pallas" for a in again or [])


async def test_an_uncertain_index_is_offered_as_choices_and_fix_all_skips_it(client, tmp_path):
    await start(client, "vscode")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, PAGED_GATHER)
    [err] = pal(await diagnostics(client, uri, 1), "PAL001")
    assert err.data["fix"]["safe"] is False

    listed = await client.text_document_code_action_async(actions_request(uri, err))
    titles = [a.title for a in listed]
    choices = [a for a in listed if "(choice)" in a.title]
    # The message names four plausible indices; `.at[slot]`, `.at[0]` and `.at[1]` would make
    # the wait that follows hang (PAL303), so only the one that leaves nothing behind is listed.
    assert "`copy_sems.at[1 - slot]`, `copy_sems.at[slot]`, `copy_sems.at[0]` or `copy_sems.at[1]`" in err.message
    assert [a.title for a in choices] == ["Pallas (PAL001): Index the semaphore (choice): `copy_sems.at[1 - slot]`"]
    assert not any(a.is_preferred for a in listed)
    assert any("assert" in t.lower() for t in titles) and any("noqa" in t for t in titles)
    assert not any(a.kind == "source.fixAll.pallas" for a in listed)
    fixed = apply_edits(PAGED_GATHER, edits_for(choices[0].edit, uri))
    assert "copy_sems.at[1 - slot], pt_ref[i + 1], 1 - slot)" in fixed

    whole = types.Range(types.Position(0, 0), types.Position(0, 0))
    fix_all = await client.text_document_code_action_async(
        actions_request(uri, rng=whole, only=["source.fixAll.pallas"]))
    assert not fix_all


async def test_only_filters_kinds(client, tmp_path):
    await start(client, "vscode")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BUGGY)
    [err] = pal(await diagnostics(client, uri, 1), "PAL001")
    refactors = await client.text_document_code_action_async(
        actions_request(uri, err, only=[types.CodeActionKind.Refactor]))
    assert not refactors


async def test_actions_without_diagnostic_context_use_the_range(client, tmp_path):
    """Some clients send no diagnostics in the context: the range picks the finding."""
    await start(client, "eglot-1.9")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BUGGY)
    [err] = pal(await diagnostics(client, uri, 1), "PAL001")
    cursor = types.Range(err.range.start, err.range.start)
    actions = await client.text_document_code_action_async(actions_request(uri, rng=cursor))
    assert any("sems.at[slot]" in a.title for a in actions)
    assert all(a.diagnostics[0].code == "PAL001" for a in actions if a.diagnostics)


async def test_stale_or_missing_data_falls_back_to_the_current_analysis(client, tmp_path):
    """A diagnostic sent back without `data` (or with data for an older text) still gets
    fixes, rebuilt from the analysis of the current text."""
    await start(client, "neovim-0.7")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BUGGY)
    [err] = pal(await diagnostics(client, uri, 1), "PAL001")
    err.data = None
    actions = await client.text_document_code_action_async(actions_request(uri, err))
    assert any("sems.at[slot]" in a.title for a in actions)

    err.data = {"code": "PAL001", "garbage": True}
    actions = await client.text_document_code_action_async(actions_request(uri, err))
    assert any("sems.at[slot]" in a.title for a in actions)


async def test_fix_on_a_non_ascii_line(client, tmp_path):
    await start(client, "vscode")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, UNICODE)
    [err] = pal(await diagnostics(client, uri, 1), "PAL001")
    actions = await client.text_document_code_action_async(actions_request(uri, err))
    index = next(a for a in actions if "sems.at[slot]" in a.title)
    fixed = apply_edits(UNICODE, edits_for(index.edit, uri))
    assert 'tag = "é😀"; copy = pltpu.make_async_copy(x_hbm.at[slot], buf.at[slot], sems.at[slot])' in fixed


async def test_a_diagnostic_from_an_older_text_never_edits_the_wrong_place(client, tmp_path):
    await start(client, "neovim-0.7")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, BUGGY)
    [old] = pal(await diagnostics(client, uri, 1), "PAL001")
    moved = "# one\n# two\n" + BUGGY
    change_doc(client, uri, 2, moved)
    [new] = pal(await diagnostics(client, uri, 2), "PAL001")
    assert new.range.start.line == old.range.start.line + 2

    stale = await client.text_document_code_action_async(actions_request(uri, old))
    assert not [a for a in stale if a.kind == types.CodeActionKind.QuickFix]
    fresh = await client.text_document_code_action_async(actions_request(uri, new))
    index = next(a for a in fresh if "sems.at[slot]" in a.title)
    assert "buf.at[slot], sems.at[slot])" in apply_edits(moved, edits_for(index.edit, uri))


ITERATOR_REFS = '''import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def build(dtype):
    narrow = jnp.dtype(dtype).itemsize < 4

    def kernel(*refs):
        it = iter(refs)
        x_hbm, o_hbm = next(it), next(it)
        scale = next(it) if narrow else None
        sems = next(it)
        for slot in range(2):
            pltpu.make_async_copy(x_hbm.at[slot], o_hbm.at[slot], sems.at[slot]).start()
        pltpu.make_async_copy(x_hbm, o_hbm, sems).wait()

    scratch = [pltpu.VMEM((8, 128), dtype)] * int(narrow) + [pltpu.SemaphoreType.DMA((2,))]
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((2, 8, 128), dtype), scratch_shapes=scratch)
'''


async def test_an_array_known_by_its_use_reaches_the_editor_with_its_view_and_choices(client, tmp_path):
    """Where `sems` sits in `refs` is not in the code, but `sems.at[slot]` goes to a DMA:
    the whole `sems` waited on is a warning whose related location is that view, and
    the index is offered as a choice, never by *Fix all*."""
    await start(client, "vscode")
    uri = doc_uri(tmp_path)
    open_doc(client, uri, ITERATOR_REFS)
    [warn] = pal(await diagnostics(client, uri, 1), "PAL003")
    assert warn.severity == types.DiagnosticSeverity.Warning
    assert "non-()-shaped: (?,)" in warn.message and "indexed as one at line 16" in warn.message
    view_line = ITERATOR_REFS.splitlines().index(
        "            pltpu.make_async_copy(x_hbm.at[slot], o_hbm.at[slot], sems.at[slot]).start()")
    assert [(r.location.range.start.line, r.message) for r in warn.related_information] == [
        (view_line, "indexed as a semaphore array here")]
    assert warn.data["fix"]["safe"] is False
    listed = await client.text_document_code_action_async(actions_request(uri, warn))
    choices = [a.title for a in listed if "(choice)" in a.title]
    assert "Pallas (PAL003): Index the semaphore (choice): `sems.at[0]`" in choices
    whole = types.Range(types.Position(0, 0), types.Position(0, 0))
    assert not await client.text_document_code_action_async(
        actions_request(uri, rng=whole, only=["source.fixAll.pallas"]))
