"""Print the generated tables of `docs/api.md`: the Pallas APIs, then the array
operations (`python -m pallas_lsp.analysis.pallas.docs`)."""

from __future__ import annotations

from ..arrays.table import operations_table
from .derived import supported_api_table

if __name__ == "__main__":
    print(supported_api_table(), end="")
    print()
    print(operations_table(), end="")
