#!/usr/bin/env bash
# Create the latency benchmark's own virtual environment (benchmarks/.venv,
# git-ignored) with the servers it compares against:
#   - this project (pallas-lsp, installed as a user installs it: its interpreter
#     compiled with mypyc, see setup.py; pip builds a directory afresh each time),
#   - ruff (its native `ruff server`),
#   - jedi-language-server,
#   - py-spy (optional sampling profiler for --profile),
#   - tree-sitter and tree-sitter-python (optional, for open_floor.py).
# Usage: bash benchmarks/setup_venv.sh [PYTHON]   (default: python3)
# Re-running is cheap: an existing venv is reused and only missing packages
# are installed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
py="${1:-${PYTHON:-python3}}"
venv="$here/.venv"
if [ ! -x "$venv/bin/python" ]; then
    "$py" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "ruff>=0.5" "jedi-language-server>=0.41"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$root"
# py-spy is only needed for --profile; a platform without a wheel must not
# break the benchmark itself.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check py-spy \
    || echo "setup_venv: py-spy unavailable; --profile will fall back to cProfile" >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check tree-sitter tree-sitter-python \
    || echo "setup_venv: tree-sitter unavailable; open_floor.py will skip its parse" >&2
# latency.py re-runs this script when the source (pyproject.toml, setup.py, server/)
# no longer matches the one the venv's pallas-lsp was built from.
"$py" -c "import sys; sys.path.insert(0, '$here'); import latency; print(latency.source_digest())" \
    > "$venv/.source.sha256"
"$venv/bin/ruff" --version
"$venv/bin/jedi-language-server" --version 2>/dev/null || "$venv/bin/python" -c "import jedi_language_server; print('jedi-language-server', jedi_language_server.__version__ if hasattr(jedi_language_server,'__version__') else '')"
"$venv/bin/pallas-lsp" --version
echo "benchmark venv ready: $venv"
