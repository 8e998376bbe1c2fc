#!/usr/bin/env bash
# Runs every check on a fresh machine: installs what the tests need (Python packages, Chromium,
# Japanese fonts, the engine compiled with mypyc), lints, checks the server's types (mypy app,
# about 8 s), then runs the whole test suite against a
# real PostgreSQL, in passes:
#   engine   the engine's tests as built (compiled when the build worked), two workers (xdist)
#   engine   once more from the pure-Python sources (CARDTABLE_PURE_PYTHON=1): both must behave
#            alike (skipped only when nothing is compiled: the first pass was that already)
#   api      the server's tests (and every other folder: tests/wire, …), three workers; the
#            ones that start server, nginx, PostgreSQL or bot worker processes keep to two of
#            them (tests/api/conftest.py: two `xdist_group`s, `--dist loadgroup`); a failed
#            test runs once more, and every rerun is listed
#   browser  Chromium against the real server, three workers, each test with its own server;
#            it runs at the same time as the api pass, at nice 3, printed when it ends;
#            a failed browser test runs once more, and every rerun is listed
# The api and browser passes also list their twelve slowest test phases (pytest --durations),
# so where the suite's time goes is in every run's log.
# Every pass runs even when an earlier one failed; a summary lists each pass's result line, and
# the exit status is non-zero when any pass failed. Afterwards no process the run started may be
# left (postgres, chromium, `python -m app`, nginx, bot workers): each carries CARDTABLE_TEST_RUN
# in its environment, and any still running is named, stopped, and fails the run.
# With arguments, runs just `pytest "$@"` after the set-up and lint.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --browser || exit 1
# The suite lets Python keep its compiled bytecode (__pycache__/, gitignored) even where the
# environment says not to (PYTHONDONTWRITEBYTECODE, as this machine's does): otherwise every
# pytest process, server and worker it starts compiles the project's sources again, and pytest
# rewrites every test module's asserts again (1.5-2 s of CPU more per pytest process).
unset PYTHONDONTWRITEBYTECODE
CARDTABLE_TEST_RUN="test-run-$$-$(date +%s)"
export CARDTABLE_TEST_RUN
if [ $# -gt 0 ]; then
  .venv/bin/ruff check . || exit 1
  exec .venv/bin/python -m pytest -p no:cacheprovider "$@"
fi

status=0
summary=()
logs=$(mktemp -d)
started=$SECONDS

# run_pass NAME COMMAND...: runs one pass, keeps its last line (pytest's result line) for the summary.
run_pass() {
  local name=$1 began=$SECONDS
  shift
  echo "=== ${name}"
  "$@" 2>&1 | tee "${logs}/pass.log"
  local code=${PIPESTATUS[0]}
  local last
  last=$(grep -v '^\s*$' "${logs}/pass.log" | tail -n 1)
  if [ "$code" -eq 0 ]; then
    summary+=("passed  ${name} ($((SECONDS - began)) s): ${last}")
  else
    summary+=("FAILED  ${name} ($((SECONDS - began)) s, exit ${code}): ${last}")
    status=1
  fi
}

pytest=(.venv/bin/python -m pytest -p no:cacheprovider)
mode=$(.venv/bin/python -c "import engine._mode as m; print(m.describe())")
run_pass "lint (ruff)" .venv/bin/ruff check .
run_pass "types (mypy app)" .venv/bin/mypy app
run_pass "engine: ${mode}" "${pytest[@]}" -q -n 2 tests/engine
if .venv/bin/python -c "import sys, engine._mode as m; sys.exit(0 if m.compiled_modules() else 1)"; then
  run_pass "engine: from the pure-Python sources" env CARDTABLE_PURE_PYTHON=1 "${pytest[@]}" -q -n 2 tests/engine
fi
# The server's and the browser's tests spend much of their time waiting (on bots' delays, the
# page's redraws, processes starting), each pass alone keeping the two cores about half busy:
# they run side by side, each with its own output, printed whole when the pass ends.
background=()
# start_pass NAME COMMAND...: starts one pass in the background, its output in its own log.
start_pass() {
  local name=$1 log="${logs}/background-${#background[@]}"
  shift
  ( "$@" > "${log}.log" 2>&1; echo "$? ${SECONDS}" > "${log}.end" ) &
  background+=("${name}|${log}|${SECONDS}|$!")
}
# finish_passes: waits for each background pass, in the order started; prints it and its summary line.
finish_passes() {
  local entry name log began pid code ended last
  for entry in "${background[@]}"; do
    IFS='|' read -r name log began pid <<< "$entry"
    wait "$pid"
    read -r code ended < "${log}.end"
    echo "=== ${name}"
    cat "${log}.log"
    last=$(grep -v '^\s*$' "${log}.log" | tail -n 1)
    if [ "$code" -eq 0 ]; then
      summary+=("passed  ${name} ($((ended - began)) s): ${last}")
    else
      summary+=("FAILED  ${name} ($((ended - began)) s, exit ${code}): ${last}")
      status=1
    fi
  done
}
echo "=== api and the rest, and browser, side by side (each printed when it ends)"
# Every other folder of tests/ (api, wire, and any added later), so none is skipped unnoticed.
# Like the browser pass, a failed test runs once more, listed as a rerun with its first failure:
# tests that time processes (the failover test's 5 s after a kill) can miss under both passes'
# load.
start_pass "api and the rest" "${pytest[@]}" -q -n 3 --dist loadgroup --reruns 1 -rR --durations=12 tests --ignore=tests/engine --ignore=tests/browser
# A browser test that fails is run once more (pytest-rerunfailures): under the load of both passes
# a page's timing sometimes misses a wait. Each rerun is listed (-rR, "RERUN …", and its first
# failure: tests/conftest.py) and counted in
# the pass's result line and the summary, so a test that needs one is seen and can be fixed.
# At a slightly lower CPU priority (nice 3): the api pass's longest tests (the ten kills, the
# schemathesis run) wait on processes starting and answering, and under the browser pass's load
# they stretched to 5x their time alone and ended the run last; with the api pass served first
# the browser pass takes the cores it leaves, and the two end closer together
# (docs/BENCHMARKS.md, "The test suite").
start_pass "browser" nice -n 3 "${pytest[@]}" -q -n 3 --reruns 1 -rR --durations=12 tests/browser
finish_passes

# Processes of this run still alive: found by the marker in their environment (our own only).
leftovers=$(.venv/bin/python - "$CARDTABLE_TEST_RUN" "$$" <<'EOF'
import os, sys
marker, me = f"CARDTABLE_TEST_RUN={sys.argv[1]}".encode(), int(sys.argv[2])
for pid in filter(str.isdigit, os.listdir("/proc")):
    if int(pid) in (me, os.getpid(), os.getppid()):
        continue
    try:
        with open(f"/proc/{pid}/environ", "rb") as env, open(f"/proc/{pid}/cmdline", "rb") as cmd:
            if marker in env.read().split(b"\0"):
                print(pid, cmd.read().replace(b"\0", b" ").decode(errors="replace")[:160])
    except OSError:
        pass
EOF
)
if [ -n "$leftovers" ]; then
  echo "=== processes left running by the tests (stopped now):"
  echo "$leftovers"
  for pid in $(echo "$leftovers" | cut -d' ' -f1); do kill "$pid" 2>/dev/null; done
  summary+=("FAILED  no process left running: $(echo "$leftovers" | wc -l) were")
  status=1
else
  summary+=("passed  no process left running")
fi
rm -rf "$logs"

echo "=== summary ($((SECONDS - started)) s)"
printf '%s\n' "${summary[@]}"
exit $status
