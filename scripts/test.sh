#!/usr/bin/env bash
# Runs every check on a fresh machine: installs what the tests need (Python packages, Chromium,
# Japanese fonts, the engine compiled with mypyc), lints, then runs the whole test suite against a
# real PostgreSQL. A whole run (no arguments) with the engine compiled then runs the engine's tests
# once more from its pure-Python sources (CARDTABLE_PURE_PYTHON=1): both must behave alike.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --browser
.venv/bin/ruff check .
if [ $# -gt 0 ]; then
  exec .venv/bin/python -m pytest -p no:cacheprovider "$@"
fi
.venv/bin/python -m pytest -p no:cacheprovider
if .venv/bin/python -c "import sys, engine._mode as m; sys.exit(0 if m.compiled_modules() else 1)"; then
  echo "engine: the engine's tests again, from the pure-Python sources"
  CARDTABLE_PURE_PYTHON=1 .venv/bin/python -m pytest -p no:cacheprovider -q tests/engine
fi
