"""The tests' one way to run the server as a process (tests/servers.py): a start that fails says
why, and a server it started carries the test run's marker and leaves nothing behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.servers import TEST_RUN_MARKER, AppServer, ServerDidNotStart, free_port


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
