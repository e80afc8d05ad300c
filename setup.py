"""Packaging: the interpreter compiled with mypyc where it can be.

A wheel or a plain install (`pip install .`) compiles the interpreter's modules, its
values, the module model and the two domains (`COMPILED`) with mypyc when mypy and a C
compiler are at hand: the same Python source, 1.9-2.9 times faster on large kernels. An
editable install (`pip install -e .`, so that edits of the source take effect),
`PALLAS_LSP_PURE=1`, or a compile that fails gives the pure-Python package; both behave
alike (`pallas-lsp --version` says which is installed). All the metadata is in
pyproject.toml."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
ANALYSIS = Path("server/pallas_lsp/analysis")
# The interpreter, the values it computes, the module's top level it reads names from, API
# names and the two domains (the array model with them), all with native classes; a
# domain defined elsewhere (the tests' toy one) derives from `Domain` and its values from
# `DomainValue`, which allow it.
COMPILED = [str(ANALYSIS / f"{m}.py") for m in ("values", "module", "symbols")] + \
    sorted(str(ANALYSIS / package / p.name) for package in ("interp", "arrays", "pallas")
           for p in (HERE / ANALYSIS / package).glob("*.py") if p.name != "__init__.py")
_BUILDS = {"bdist_wheel", "build", "build_ext", "install"}   # the commands that build code


def _warn(message: str) -> None:
    print(f"pallas-lsp: {message}; installing the pure-Python interpreter", file=sys.stderr)


def _compiled_extensions() -> list:
    """mypyc's extensions, or [] where the package is to stay pure Python."""
    if os.environ.get("PALLAS_LSP_PURE") == "1" or not _BUILDS & set(sys.argv[1:]):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _warn("mypyc is not installed")
        return []
    try:
        return mypycify(COMPILED, opt_level="3")
    except (Exception, SystemExit) as error:   # mypy's check of the source failed
        _warn(f"mypyc failed ({error})")
        return []


class AllOrNothingBuildExt(build_ext):
    """Compiles every extension or none: a module compiled without mypyc's runtime
    library of the others would not import, and the source runs as it is."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:   # no C compiler, no Python headers, ...
            _warn(f"compiling failed ({error})")
            for built in self.get_outputs():
                Path(built).unlink(missing_ok=True)


setup(ext_modules=_compiled_extensions(), cmdclass={"build_ext": AllOrNothingBuildExt})
