"""The tests' one way to run the server as a process (tests/servers.py): a start that fails says
why, and a server it started carries the test run's marker and leaves nothing behind."""

from __future__ import annotations

import functools
import os
import signal
import sys
from pathlib import Path

import pytest

from tests.servers import TEST_RUN_MARKER, AppServer, ServerDidNotStart, free_port, launch

SIGNAL_REPORTER = """
import http.server, os, signal
for number in (signal.SIGINT, signal.SIGTERM):
    signal.signal(number, lambda received, frame: os._exit(received))
class Ready(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
http.server.HTTPServer(("127.0.0.1", int(os.environ["CARDTABLE_PORT"])), Ready).serve_forever()
"""
"""A stand-in server: ready at once, and its exit status is the number of the signal it got."""


def test_a_server_that_cannot_start_fails_with_what_it_printed(tmp_path: Path) -> None:
    unreachable = f"postgresql://nobody@127.0.0.1:{free_port()}/nowhere"
    server = AppServer(unreachable, workdir=tmp_path, start_timeout=30)
    with pytest.raises(ServerDidNotStart, match="(?s)exited instead of starting.*Connection refused"):
        server.start()
    assert server.process is None


def test_a_started_server_carries_the_run_marker_and_stops_cleanly(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TEST_RUN_MARKER, "app-server-test")
    server = AppServer(database_url, workdir=tmp_path, env={"CARDTABLE_MIGRATE_ON_START": "false"})
    server.start()
    try:
        environ = Path(f"/proc/{server.pid}/environ").read_bytes().split(b"\0")
        scratch = next(item for item in environ if item.startswith(b"TMPDIR=")).split(b"=", 1)[1]
        assert f"{TEST_RUN_MARKER}=app-server-test".encode() in environ
        assert os.path.isdir(scratch)
    finally:
        assert server.stop() == 0, server.printed()
    assert not os.path.exists(scratch), "the server's temporary folder outlived it"
    assert "Application startup complete" in server.printed()


def test_a_start_expected_to_fail_gives_its_exit_status_and_what_it_printed(tmp_path: Path) -> None:
    unreachable = f"postgresql://nobody@127.0.0.1:{free_port()}/nowhere"
    server = AppServer(unreachable, workdir=tmp_path, start_timeout=30)
    status, printed = server.run_until_exit()
    assert status not in (0, None) and "Connection refused" in printed
    assert server.process is None


def test_a_start_expected_to_fail_that_keeps_running_is_killed_and_fails(tmp_path: Path) -> None:
    keeps_running = "import time; print('up', flush=True); time.sleep(60)"
    sleeper = functools.partial(launch, [sys.executable, "-c", keeps_running])
    server = AppServer(None, workdir=tmp_path, spawn=sleeper, start_timeout=2)
    with pytest.raises(AssertionError, match="(?s)still ran after 2 s instead of exiting.*up"):
        server.run_until_exit()
    assert server.process is None


def test_stop_sends_the_signal_asked_for_sigterm_unless_told(tmp_path: Path) -> None:
    reporter = functools.partial(launch, [sys.executable, "-c", SIGNAL_REPORTER])
    server = AppServer(None, workdir=tmp_path, spawn=reporter)
    server.start()
    assert server.stop(signal.SIGINT) == signal.SIGINT  # Ctrl+C
    server.start()
    assert server.stop() == signal.SIGTERM
