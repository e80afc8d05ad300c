"""Issue 12: modules found as a Python user has them: namespace packages (PEP 420),
`.pyi` stubs, `src/` layouts, `.pth` path entries and setuptools' editable installs.

Each layout: a kernel imports a DMA helper or a scratch builder declaring
`pltpu.SemaphoreType.DMA((2,))` from another module, and passes the whole array; the
finding (PAL001 on line 12 of KERNEL) appears only when that module is resolved.
"""

import os
import sys
import venv

import pytest
from pallas_lsp.analysis.engine import analyze_source
from pallas_lsp.analysis.workspace import Workspace, package_of

from .test_workspace import COMMON, COMPAT, KERNEL, write

RELATIVE = "from .common import pipeline_scratch, slot_sem, start_copy"
FOUND = [(12, "PAL001", (2,))]


def findings(text, path, ws):
    return [(f.span.line + 1, f.code, f.shape) for f in analyze_source(text, path, ws)]


def kernel_importing(module):
    return KERNEL.replace(RELATIVE, f"from {module} import pipeline_scratch, slot_sem, start_copy")


# -- namespace packages ---------------------------------------------------------------

def test_relative_import_inside_a_namespace_package(tmp_path):
    write(tmp_path / "nskernels" / "common.py", COMMON)
    path = write(tmp_path / "nskernels" / "copy_kernel.py", KERNEL)
    assert findings(KERNEL, path, Workspace([str(tmp_path)])) == FOUND
    # Outside every workspace folder the file has no package: `.common` means nothing.
    assert findings(KERNEL, path, Workspace([])) == []


@pytest.mark.parametrize("form", ["from ns.kernels.common import", "import ns.kernels.common as c", "import ns"])
def test_absolute_imports_through_nested_namespace_packages(tmp_path, form):
    write(tmp_path / "ns" / "kernels" / "common.py", COMMON)
    imports = {
        "from ns.kernels.common import": kernel_importing("ns.kernels.common"),
        "import ns.kernels.common as c": KERNEL.replace(
            RELATIVE, "import ns.kernels.common as c\nstart_copy, slot_sem, pipeline_scratch = "
            "c.start_copy, c.slot_sem, c.pipeline_scratch"),
        "import ns": KERNEL.replace(
            RELATIVE, "import ns.kernels.common\nc = ns.kernels.common\nstart_copy, slot_sem, "
            "pipeline_scratch = c.start_copy, c.slot_sem, c.pipeline_scratch"),
    }
    text = imports[form]
    path = write(tmp_path / "app" / "run.py", text)
    line = text.split("\n").index("    start_copy(x_hbm, buf.at[slot], sems).wait()") + 1
    assert findings(text, path, Workspace([str(tmp_path)])) == [(line, "PAL001", (2,))]


def test_namespace_package_split_over_two_folders(tmp_path):
    """The portions of one namespace package in two workspace folders form one package."""
    write(tmp_path / "a" / "ns" / "common.py", COMMON)
    text = kernel_importing("ns.common")
    path = write(tmp_path / "b" / "ns" / "copy_kernel.py", text)
    assert findings(text, path, Workspace([str(tmp_path / "a"), str(tmp_path / "b")])) == FOUND
    assert findings(text, path, Workspace([str(tmp_path / "b")])) == []


def test_a_regular_package_wins_over_a_namespace_folder_of_the_same_name(tmp_path):
    write(tmp_path / "a" / "lib" / "common.py", COMMON)                  # namespace portion
    write(tmp_path / "b" / "lib" / "__init__.py", "")                    # regular package
    write(tmp_path / "b" / "lib" / "common.py", COMMON.replace("DMA((NSLOTS,))", "DMA"))
    text = kernel_importing("lib.common")
    path = write(tmp_path / "app.py", text)
    assert findings(text, path, Workspace([str(tmp_path / "a"), str(tmp_path / "b")])) == []


def test_package_of_names_namespace_packages_from_the_innermost_root(tmp_path):
    root = str(tmp_path)
    write(tmp_path / "ns" / "pkg" / "__init__.py", "")
    assert package_of(str(tmp_path / "ns" / "sub" / "k.py"), [root]) == "ns.sub"
    assert package_of(str(tmp_path / "ns" / "pkg" / "k.py"), [root]) == "ns.pkg"
    assert package_of(str(tmp_path / "ns" / "pkg" / "k.py"), []) == "pkg"
    assert package_of(str(tmp_path / "k.py"), [root]) is None
    assert package_of(str(tmp_path / "ns" / "k.py"), [root, str(tmp_path / "ns")]) is None
    assert package_of(str(tmp_path / "ns" / "sub" / "k.py"), [str(tmp_path / "elsewhere")]) is None
    assert package_of(str(tmp_path / "not-a-name" / "k.py"), [root]) is None


# -- stubs ------------------------------------------------------------------------------

COMPAT_KERNEL = '''\
from mylib.compat import pl, pltpu, SEMS


def kernel(x_hbm, o_ref, sems):
    pltpu.async_copy(x_hbm, o_ref, sems).wait()


def run(x):
    return pl.pallas_call(kernel, out_shape=x, scratch_shapes=[SEMS])(x)
'''


def compat_kernel(tmp_path):
    return COMPAT_KERNEL, write(tmp_path / "app.py", COMPAT_KERNEL)


def test_stub_only_module_resolves_its_simple_assignments(tmp_path):
    write(tmp_path / "mylib" / "__init__.pyi", "")
    write(tmp_path / "mylib" / "compat.pyi", COMPAT + "\ndef helper(x) -> None: ...\n")
    text, path = compat_kernel(tmp_path)
    assert findings(text, path, Workspace([str(tmp_path)])) == [(5, "PAL001", (4,))]


def test_source_is_preferred_to_its_stub(tmp_path):
    write(tmp_path / "mylib" / "__init__.py", "")
    write(tmp_path / "mylib" / "compat.py", COMPAT)
    write(tmp_path / "mylib" / "compat.pyi", COMPAT.replace("DMA((4,))", "DMA"))
    text, path = compat_kernel(tmp_path)
    assert findings(text, path, Workspace([str(tmp_path)])) == [(5, "PAL001", (4,))]


def test_a_stub_function_is_unknown_not_empty(tmp_path):
    """A stub's `def start_copy(...): ...` says nothing about what the function does."""
    write(tmp_path / "stubbed.pyi", COMMON.replace(
        "def start_copy(src, dst, sem):", "def start_copy(src, dst, sem) -> None: ...\n\ndef _gone():"))
    text = kernel_importing("stubbed")
    path = write(tmp_path / "app" / "k.py", text)
    assert findings(text, path, Workspace([str(tmp_path)])) == []


# -- src layout -------------------------------------------------------------------------

def test_src_layout_is_importable_from_outside_src(tmp_path):
    write(tmp_path / "src" / "mykernels" / "__init__.py", "")
    write(tmp_path / "src" / "mykernels" / "common.py", COMMON)
    text = kernel_importing("mykernels.common")
    path = write(tmp_path / "scripts" / "bench.py", text)
    assert findings(text, path, Workspace([str(tmp_path)])) == FOUND
    # A `src` that is itself a package is imported as `src.…`, not a search root.
    write(tmp_path / "src" / "__init__.py", "")
    assert findings(text, path, Workspace([str(tmp_path)])) == []
    assert findings(kernel_importing("src.mykernels.common"), path, Workspace([str(tmp_path)])) == FOUND


def test_namespace_package_under_src(tmp_path):
    write(tmp_path / "src" / "nsk" / "common.py", COMMON)
    path = write(tmp_path / "src" / "nsk" / "copy_kernel.py", KERNEL)
    ws = Workspace([str(tmp_path)])
    assert ws.search_roots() == [str(tmp_path), str(tmp_path / "src")]
    assert findings(KERNEL, path, ws) == FOUND


# -- the project's environment: .pth entries and editable installs ----------------------

@pytest.fixture
def fake_env(tmp_path):
    """A venv whose site-packages the tests fill; returns (python, site-packages)."""
    env = tmp_path / "env"
    venv.create(env, with_pip=False)
    site = env / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    return str(env / "bin" / "python"), site


FINDER = '''\
import sys

MAPPING = {'mylib': %r, 'single': %r}
NAMESPACES = {'nsl': [%r]}


def install():
    pass  # the real finder appends itself to sys.meta_path; pallas-lsp never runs this
'''


def test_setuptools_editable_install_through_its_finder(tmp_path, fake_env):
    python, site = fake_env
    src = tmp_path / "checkout" / "src"
    write(src / "mylib" / "__init__.py", "")
    write(src / "mylib" / "dma" / "__init__.py", "")
    write(src / "mylib" / "dma" / "common.py", COMMON)
    write(src / "single.py", COMMON)
    write(src / "nsl" / "common.py", COMMON)
    write(site / "__editable___mylib_0_1_finder.py",
          FINDER % (str(src / "mylib"), str(src / "single.py"), str(src / "nsl")))
    write(site / "__editable__.mylib-0.1.pth",
          "import __editable___mylib_0_1_finder; __editable___mylib_0_1_finder.install()\n")
    project = str(tmp_path / "project")
    for module in ("mylib.dma.common", "single", "nsl.common"):
        text = kernel_importing(module)
        path = write(tmp_path / "project" / "app.py", text)
        assert findings(text, path, Workspace([project])) == []
        assert findings(text, path, Workspace([project], interpreter=python)) == FOUND, module


def test_editable_finder_is_read_only_when_a_pth_imports_it(tmp_path, fake_env):
    python, site = fake_env
    write(tmp_path / "checkout" / "mylib" / "__init__.py", "")
    write(tmp_path / "checkout" / "mylib" / "common.py", COMMON)
    write(site / "__editable___mylib_0_1_finder.py", FINDER % (str(tmp_path / "checkout" / "mylib"), "", ""))
    ws = Workspace([], interpreter=python)
    assert ws.editable_mappings() == []        # left over from an uninstall: not in use
    write(site / "__editable__.mylib-0.1.pth", "import __editable___mylib_0_1_finder\n")
    ws = Workspace([], interpreter=python)
    assert ws.editable_mappings() == [{"mylib": [str(tmp_path / "checkout" / "mylib")], "single": [""],
                                      "nsl": [""]}]
    assert ws.find_module("mylib.common", None) == str(tmp_path / "checkout" / "mylib" / "common.py")


def test_pth_path_entry_and_broken_finder(tmp_path, fake_env):
    """A `.pth` naming a folder (old-style `pip install -e`, `setup.py develop`) puts it
    on the environment's sys.path; a finder that is not plain literals is ignored."""
    python, site = fake_env
    checkout = tmp_path / "oldstyle"
    write(checkout / "olib" / "__init__.py", "")
    write(checkout / "olib" / "common.py", COMMON)
    write(site / "olib.pth", str(checkout) + "\n")
    write(site / "__editable___bad_finder.py", "MAPPING = dict(bad=__file__)\nMAPPING2 = {1: 2}\n(\n")
    write(site / "__editable__.bad.pth", "import __editable___bad_finder\n")
    text = kernel_importing("olib.common")
    path = write(tmp_path / "project" / "app.py", text)
    ws = Workspace([str(tmp_path / "project")], interpreter=python)
    assert str(checkout) in ws.environment_paths()
    assert findings(text, path, ws) == FOUND
    assert ws.editable_mappings() == []


def test_resolution_cache_follows_new_files(tmp_path):
    """A module created after a miss is found once the workspace is told of the change."""
    text = kernel_importing("later.common")
    path = write(tmp_path / "app.py", text)
    ws = Workspace([str(tmp_path)])
    assert findings(text, path, ws) == []
    created = write(tmp_path / "later" / "common.py", COMMON)
    ws.invalidate(created)
    assert findings(text, path, ws) == FOUND
    assert os.path.isdir(ws.find_module("later", path))
