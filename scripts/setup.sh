#!/usr/bin/env bash
# Installs what the project needs on a fresh machine, saying what each step does and how long it
# usually takes: a virtualenv with the Python packages, the engine compiled with mypyc
# (python -m engine.build: pure Python if that fails) and, when asked for the tests (--browser),
# Debian's Chromium (and its headless shell, which the browser tests run), Japanese fonts,
# nginx (the proxy test runs two app processes behind it) and coturn (voice's TURN test).
# Safe to run again.
#   --browser     also the test tools (Chromium, fonts, nginx, coturn, the test extras); compiles in the
#                 foreground (the tests run compiled).
#   --background  compile the engine in the background (for scripts/serve.sh: the server starts
#                 at once from the Python sources; the next start runs compiled).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
started=$SECONDS
step() { printf 'setup: %s\n' "$*"; }
took() { printf 'setup:   done in %d s\n' "$((SECONDS - started))"; started=$SECONDS; }

if [ "$mode" = "--browser" ]; then
  missing=()
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  # The browser tests run in its headless shell (tests/browser/conftest.py: CHROMIUM).
  command -v chromium-headless-shell >/dev/null 2>&1 || missing+=(chromium-headless-shell)
  [ -d /usr/share/fonts/opentype/noto ] && ls /usr/share/fonts/opentype/noto | grep -qi cjk || missing+=(fonts-noto-cjk)
  command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
  command -v gcc >/dev/null 2>&1 || command -v cc >/dev/null 2>&1 || missing+=(gcc)  # engine.build
  command -v turnserver >/dev/null 2>&1 || [ -x /usr/bin/turnserver ] || missing+=(coturn)  # voice's TURN test
  if [ ${#missing[@]} -gt 0 ]; then
    step "installing Debian packages: ${missing[*]} (first time about 60 s)"
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
    took
  fi
fi

if [ ! -x .venv/bin/python ]; then
  step "creating the virtualenv .venv (about 5 s)"
  python3 -m venv .venv
  took
fi
extras=".[compile]"
[ "$mode" = "--browser" ] && extras=".[test,compile]"
# pip runs again only when pyproject.toml (what to install) or the extras asked for changed.
wanted="$extras $(sha256sum pyproject.toml | cut -d' ' -f1)"
stamp=.venv/.cardtable-installed
if [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
  step "Python packages $extras up to date"
else
  step "installing Python packages $extras with uv (first time about 10 s, later a few seconds)"
  # uv, from PyPI, fetches and unpacks the packages in parallel: on a fresh clone it installs the
  # test extras in 4-9 s, where pip took 24-26 s on one core (docs/BENCHMARKS.md, "The test suite").
  .venv/bin/python -m pip install -q --disable-pip-version-check uv
  .venv/bin/uv pip install -q --python .venv/bin/python -e "$extras"
  echo "$wanted" >"$stamp"
  took
fi
# Compile the engine's hot modules with mypyc (skipped when the sources did not change). It never
# fails the set-up: without a C compiler, or if compiling fails, it says so in one line and the
# engine runs from its Python sources.
if [ "$mode" = "--background" ]; then
  if .venv/bin/python -m engine.build --check; then
    step "engine: compiled modules up to date"
  else
    mkdir -p var
    step "engine: compiling in the background with mypyc (about 1 min on two cores, log: var/engine-build.log);" \
      "this start runs the engine from its Python sources, the next start runs it compiled"
    # flock: two starts never build at once; nice: the server keeps the CPU it needs meanwhile.
    # setsid + nohup: the build finishes even when this terminal stops the server.
    setsid nohup flock -n var/engine-build.lock nice -n 10 .venv/bin/python -m engine.build \
      >var/engine-build.log 2>&1 </dev/null &
  fi
else
  step "engine: compiling with mypyc if its sources changed (first time about 1 min on two cores)"
  .venv/bin/python -m engine.build
  took
fi
