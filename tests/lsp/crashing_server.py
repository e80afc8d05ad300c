"""The real server, with an analysis that raises on documents containing `CRASH_ME`.

Used by test_robustness.py to check that a crash inside the analysis is logged and the
server carries on.
"""

import sys

from pallas_lsp.analysis import engine
from pallas_lsp.server.main import run_server

_analyze = engine.ModuleAnalyzer.analyze


def _crashing(self, source, cancelled=None):
    if "CRASH_ME" in source:
        raise RuntimeError("boom inside the analysis")
    return _analyze(self, source, cancelled)


engine.ModuleAnalyzer.analyze = _crashing

if __name__ == "__main__":
    sys.exit(run_server())
