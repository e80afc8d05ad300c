"""Cross-module analysis: semaphores declared in another module of the workspace."""

from __future__ import annotations

import sys
import venv
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from .conftest import doc_uri, open_doc, pull, start, wait_publish
from .kernels import BUGGY

SHAPES = '''\
from jax.experimental.pallas import tpu as pltpu

NSLOTS = 2
SEMS = pltpu.SemaphoreType.DMA((NSLOTS,))
'''
KERNEL = BUGGY.replace("NSLOTS = 2\n", "from shapes import NSLOTS, SEMS\n").replace(
    "            pltpu.SemaphoreType.DMA((2,)),\n", "            SEMS,\n")


def codes(diags):
    return [d.code for d in diags]


async def test_declaration_in_another_module_and_its_change(client, tmp_path):
    shapes = tmp_path / "shapes.py"
    shapes.write_text(SHAPES)
    await start(client, "neovim-0.7", root=tmp_path)
    uri = doc_uri(tmp_path)
    open_doc(client, uri, KERNEL)
    assert codes((await wait_publish(client, uri, 1)).diagnostics) == ["PAL001"]

    # shapes.py is fixed on disk (by another tool): the watcher tells the server.
    shapes.write_text(SHAPES.replace("DMA((NSLOTS,))", "DMA(())"))
    n = len(client.publishes)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=from_fs_path(str(shapes)), type=types.FileChangeType.Changed)]))
    assert codes((await wait_publish(client, uri, 1, after=n)).diagnostics) == []


async def test_saving_the_other_module_rechecks(client, tmp_path):
    shapes = tmp_path / "shapes.py"
    shapes.write_text(SHAPES.replace("DMA((NSLOTS,))", "DMA(())"))
    await start(client, "vscode", root=tmp_path)
    uri = doc_uri(tmp_path)
    open_doc(client, uri, KERNEL)
    assert codes((await pull(client, uri)).items) == []

    shapes.write_text(SHAPES)
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        types.TextDocumentIdentifier(from_fs_path(str(shapes)))))
    assert codes((await pull(client, uri)).items) == ["PAL001"]


LIBRARY = '''\
from jax.experimental.pallas import tpu as pltpu


def copy_sems(n):
    return pltpu.SemaphoreType.DMA((n,))
'''
LIBRARY_KERNEL = BUGGY.replace("NSLOTS = 2\n", "from fakelib.scratch import copy_sems\n\nNSLOTS = 2\n").replace(
    "            pltpu.SemaphoreType.DMA((2,)),\n", "            copy_sems(2),\n")


def python_with_library(root: Path) -> Path:
    """A virtual environment whose site-packages holds `fakelib` (an installed library)."""
    env = root / "env"
    venv.create(env, with_pip=False)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    package = env / "lib" / version / "site-packages" / "fakelib"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "scratch.py").write_text(LIBRARY)
    return env / "bin" / "python"


async def test_settings_change_without_interpreter_keeps_it(client, tmp_path):
    """VS Code sends the interpreter it started the server with in initializationOptions;
    a later change of another setting carries `interpreter: ""` (the setting's default):
    the library installed in that interpreter must still resolve."""
    python = python_with_library(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    await start(client, "vscode", root=project,
                init_options={"interpreter": str(python), "logLevel": "info"})
    uri = doc_uri(project)
    open_doc(client, uri, LIBRARY_KERNEL)
    assert codes((await pull(client, uri)).items) == ["PAL001"]

    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"pallas": {"select": None, "ignore": ["PAL003"], "interpreter": "",
                             "logLevel": "debug"}}))
    assert codes((await pull(client, uri)).items) == ["PAL001"]
