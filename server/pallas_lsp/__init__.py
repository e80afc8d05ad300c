"""pallas-lsp: static checks for JAX Pallas TPU kernels (semaphore shapes), as a language server and a CLI."""

from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

__version__ = "0.1.0"


def interpreter_build() -> str:
    """Which interpreter this install runs: mypyc's compiled modules (a wheel or `pip
    install .`, see setup.py) or the Python source (an editable install)."""
    core = Path(__file__).parent / "analysis" / "interp" / "core"
    compiled = any(core.with_name(core.name + suffix).exists() for suffix in EXTENSION_SUFFIXES)
    return "compiled with mypyc" if compiled else "pure Python"
