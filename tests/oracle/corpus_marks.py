"""The `# expect: PALnnn` marks of the JAX-verified corpora (`tests/contract/`,
`tests/protocol/`): where the static checker should report."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

EXPECT = re.compile(r"#\s*expect:\s*(PAL\d{3}(?:\s*,\s*PAL\d{3})*)")


def expectations(path: Path) -> list[tuple[int, str]]:
    """(line, code) for each ``# expect: PALnnn`` comment (real comments only)."""
    out = []
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            m = EXPECT.search(tok.string)
            if m:
                out.extend((tok.start[0], c.strip()) for c in m.group(1).split(","))
    return out
