"""The LSP face of pallas-lsp: converts analysis findings to protocol types and back.

Nothing here analyses code; it schedules `pallas_lsp.analysis` runs per open document
(or notebook) and speaks LSP through pygls.  Entry point: `main.run_server`.
"""
