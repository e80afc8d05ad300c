"""The analysis library: pure functions from source text to findings.

Nothing in this package imports pygls or lsprotocol; the server (`pallas_lsp.server`)
and the CLI (`pallas_lsp.cli`) are thin faces over it.
"""
