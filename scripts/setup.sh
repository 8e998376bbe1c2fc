#!/usr/bin/env bash
# Installs what the project needs on a fresh machine: a virtualenv with the Python packages, the
# engine compiled with mypyc (python -m engine.build: pure Python if that fails) and,
# when asked for the tests (--browser), Debian's Chromium, Japanese fonts and nginx (the proxy
# test runs two app processes behind it). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

want_browser=${1:-}
if [ "$want_browser" = "--browser" ]; then
  missing=()
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  [ -d /usr/share/fonts/opentype/noto ] && ls /usr/share/fonts/opentype/noto | grep -qi cjk || missing+=(fonts-noto-cjk)
  command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
  command -v gcc >/dev/null 2>&1 || command -v cc >/dev/null 2>&1 || missing+=(gcc)  # engine.build
  if [ ${#missing[@]} -gt 0 ]; then
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
extras=".[compile]"
[ "$want_browser" = "--browser" ] && extras=".[test,compile]"
.venv/bin/python -m pip install -q --disable-pip-version-check -e "$extras"
# Compile the engine's hot modules with mypyc (skipped when the sources did not change). It never
# fails the set-up: without a C compiler, or if compiling fails, it says so in one line and the
# engine runs from its Python sources.
.venv/bin/python -m engine.build
