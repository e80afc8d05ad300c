"""Print the table of supported Pallas APIs (`docs/api.md` holds it):
`python -m pallas_lsp.analysis.pallas.docs`."""

from __future__ import annotations

from .derived import supported_api_table

if __name__ == "__main__":
    print(supported_api_table(), end="")
