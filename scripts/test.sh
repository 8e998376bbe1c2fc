#!/usr/bin/env bash
# Runs every check on a fresh machine: installs what the tests need (Python packages, Chromium,
# Japanese fonts), lints, then runs the whole test suite against a real PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --browser
.venv/bin/ruff check .
exec .venv/bin/python -m pytest -p no:cacheprovider "$@"
