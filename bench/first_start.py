"""First-start benchmark: a fresh clone, `bash scripts/serve.sh`, seconds until the first page.

What a newcomer meets: it clones the repository into a new folder (no virtualenv, no compiled
engine, no database), runs the README's serve command on a free port and times, from the
command's start, each line of its step-by-step output and the first `200` answer of `/`. Then
it stops the server and, with `--second`, starts it again in the same clone after the
background compile finished, to show the next start runs the engine compiled. It prints the
machine's load average beside every figure (the machine is shared).

    .venv/bin/python -m bench.first_start                  # the installers may use their caches
    .venv/bin/python -m bench.first_start --no-cache       # every package downloaded
    .venv/bin/python -m bench.first_start --second         # and the next start, compiled
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def start_and_time(clone: Path, env: dict[str, str], limit: float) -> tuple[float | None, list[str]]:
    """Run serve.sh in `clone`; seconds to the first page (None past `limit`) and its timed lines."""
    port = env["CARDTABLE_PORT"]
    started = time.monotonic()
    lines: list[str] = []
    process = subprocess.Popen(
        ["bash", "scripts/serve.sh"], cwd=clone, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(f"{time.monotonic() - started:6.1f} s  {line.rstrip()}")

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    first_page: float | None = None
    try:
        while time.monotonic() - started < limit and process.poll() is None:
            if _answers(f"http://127.0.0.1:{port}/"):
                first_page = time.monotonic() - started
                break
            time.sleep(0.25)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        reader.join(timeout=5)
    return first_page, lines


def _wait_for_build(clone: Path, limit: float) -> float:
    """Seconds until the background compile (flock on var/engine-build.lock) let go of its lock."""
    started = time.monotonic()
    lock = clone / "var" / "engine-build.lock"
    while time.monotonic() - started < limit:
        if subprocess.run(["flock", "-n", str(lock), "true"], check=False).returncode == 0:
            break
        time.sleep(1)
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--no-cache", action="store_true", help="pip and uv download every package (no cache)"
    )
    parser.add_argument("--second", action="store_true", help="also time the next start, compiled")
    parser.add_argument("--limit", type=float, default=600, help="seconds before giving up")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="cardtable-first-start-"))
    clone = folder / "clone"
    try:
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "VIRTUAL_ENV")}
        env.update(CARDTABLE_PORT=str(_free_port()), CARDTABLE_EMBEDDED_PG_PORT=str(_free_port()))
        if args.no_cache:
            env["PIP_NO_CACHE_DIR"] = "1"  # pip installs uv, which installs the rest
            env["UV_NO_CACHE"] = "1"
        print(f"first start: load average before {_load()}")
        first, lines = start_and_time(clone, env, args.limit)
        print("\n".join(lines))
        print(f"first start: first page after {first:.1f} s" if first else "first start: no page", end="")
        print(f" (load average {_load()})")
        if args.second:
            waited = _wait_for_build(clone, args.limit)
            log = clone / "var" / "engine-build.log"
            print(f"background compile: finished {waited:.0f} s after the server stopped: "
                  f"{log.read_text().strip() if log.exists() else '(no log)'}")
            second, lines = start_and_time(clone, env, args.limit)
            print("\n".join(lines))
            print(f"next start: first page after {second:.1f} s" if second else "next start: no page", end="")
            print(f" (load average {_load()})")
        return 0 if first is not None else 1
    finally:
        _wait_for_build(clone, args.limit)  # never delete a folder a build still writes to
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
