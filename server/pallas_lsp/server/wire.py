"""Diagnostics on the wire: unstructured once, off the event loop, and sent as they are.

pygls serialises every outgoing message through cattrs; at 20,000 lines a publish of ~50
diagnostics took longer than the analysis of the edit.  Each diagnostic is therefore
turned into its JSON-ready dict once, on the analysis thread, and cached with it; what is
sent wraps those dicts in `Prebuilt`, which the server's converter passes through.
"""

from __future__ import annotations

from pygls.protocol import default_converter


class Prebuilt:
    """A value that is already JSON-ready (dicts, lists, strings, numbers)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def make_converter():
    """pygls' converter, passing `Prebuilt` values through untouched."""
    converter = default_converter()
    converter.register_unstructure_hook(Prebuilt, lambda p: p.value)
    return converter
