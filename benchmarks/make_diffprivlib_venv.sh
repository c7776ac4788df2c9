#!/usr/bin/env bash
# Create benchmarks/.venv-diffprivlib: a venv with IBM diffprivlib 0.6.6 (needs scikit-learn < 1.8),
# used only by the benchmarks that compare dpclust_core with diffprivlib (run as a subprocess).
# Usage (from the repository root or anywhere):  bash benchmarks/make_diffprivlib_venv.sh [python]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY="${1:-$(command -v python3.11 || command -v python3)}"
VENV="$HERE/.venv-diffprivlib"
if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet -r "$HERE/requirements-diffprivlib.txt"
"$VENV/bin/python" -c "import diffprivlib, sklearn, numpy; print('diffprivlib', diffprivlib.__version__, 'sklearn', sklearn.__version__, 'numpy', numpy.__version__)"
