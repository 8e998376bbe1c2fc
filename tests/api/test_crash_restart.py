"""Restart after a crash that killed the app and its embedded PostgreSQL together.

A killed postmaster leaves `postmaster.pid` behind, and its PID may live on as a zombie nobody
reaps or be reused by an unrelated process. The server must see that the lock file is stale,
remove it and start PostgreSQL clean, on the first try, without losing an acknowledged action.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from app.store.embedded_pg import EmbeddedPostgres, free_loopback_port
from tests.api.harness import TLS, play_a_little, table_with_bots
from tests.servers import AppServer

KILLS = 10


def _write_pid_file(pgdata: Path, pid: int, started: int, port: int) -> None:
    pgdata.mkdir(parents=True, exist_ok=True)
    (pgdata / "postmaster.pid").write_text(
        f"{pid}\n{pgdata}\n{started}\n{port}\n\n127.0.0.1\n  1234567     12\nready   \n"
    )


def _state_of(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_a_lock_file_naming_a_zombie_is_stale_and_removed(tmp_path: Path) -> None:
    zombie = subprocess.Popen(["true"])
    try:
        deadline = time.monotonic() + 10
        while _state_of(zombie.pid) != "Z":
            assert time.monotonic() < deadline
            time.sleep(0.01)
        pgdata = tmp_path / "pgdata"
        _write_pid_file(pgdata, zombie.pid, int(time.time()), free_loopback_port())
        assert EmbeddedPostgres(pgdata)._running_port() is None
        assert not (pgdata / "postmaster.pid").exists()
    finally:
        zombie.wait()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_a_lock_file_naming_a_reused_pid_is_stale_and_removed(tmp_path: Path) -> None:
    pgdata = tmp_path / "pgdata"
    # This test process exists, but it began long after the postmaster the file describes.
    _write_pid_file(pgdata, os.getpid(), int(time.time()) - 3 * 3600, free_loopback_port())
    assert EmbeddedPostgres(pgdata)._running_port() is None
    assert not (pgdata / "postmaster.pid").exists()


def _children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def app_on_embedded_postgresql(cluster_home: Path, **settings: str) -> AppServer:
    """A server with no DATABASE_URL, so it runs its own PostgreSQL in `cluster_home/data`; a
    failed start shows the end of PostgreSQL's log too. fsync stays on: an acknowledged action
    must survive the death of every PostgreSQL process."""
    data = cluster_home / "data"
    env = {"CARDTABLE_DATA_DIR": str(data), "CARDTABLE_BOT_DELAY": "0.01", **settings}
    return AppServer(
        None, workdir=cluster_home, env=env, start_timeout=90, also_show=[data / "pgdata" / "server.log"]
    )


def _crash(server: AppServer, pgdata: Path) -> None:
    """SIGKILL the app, the postmaster and every PostgreSQL backend at once, as a power cut of
    the processes would (nothing gets to clean up, the lock file stays)."""
    postmaster = int((pgdata / "postmaster.pid").read_text().splitlines()[0])
    victims = [server.pid, postmaster, *_children_of(postmaster)]
    for pid in victims:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    server.kill()  # collects it


def test_ten_kills_of_app_and_postgresql_together_restart_first_try_and_lose_nothing(
    cluster_home: Path,
) -> None:
    pgdata = cluster_home / "data" / "pgdata"
    server = app_on_embedded_postgresql(cluster_home)
    base, ws_base = server.base_url, server.ws_url
    rng = random.Random(10)

    server.start()  # the start must succeed on this first try (no exit, no retry by us)
    token, code = table_with_bots(base, "Crash tester")
    cookies = {"session": token}

    acknowledged: dict[int, int] = {}
    try:
        for _ in range(KILLS):
            match_id = httpx.get(f"{base}/api/rooms/{code}", cookies=cookies, timeout=30, verify=TLS).json()[
                "match"
            ]["id"]
            version = play_a_little(base, ws_base, token, code, rng.randint(2, 6))
            latest = httpx.get(f"{base}/api/rooms/{code}", cookies=cookies, timeout=30, verify=TLS).json()[
                "match"
            ]
            acknowledged[latest["id"]] = max(version if latest["id"] == match_id else 0, latest["version"])
            _crash(server, pgdata)
            server.start()
            for kept_id, kept_version in acknowledged.items():
                detail = httpx.get(
                    f"{base}/api/matches/{kept_id}", cookies=cookies, timeout=30, verify=TLS
                ).json()
                assert detail["version"] >= kept_version, (kept_id, detail["version"], kept_version)
    finally:
        server.stop()
    assert len(acknowledged) >= 1


def _descendants_of(pid: int) -> list[int]:
    found, frontier = [], [pid]
    while frontier:
        children = [child for parent in frontier for child in _children_of(parent)]
        found += children
        frontier = children
    return found


def _alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie nobody reaped has ended: it holds no memory)."""
    try:
        return _state_of(pid) != "Z"
    except OSError:
        return False


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_strong_bot_workers_exit_within_seconds_when_their_server_is_killed(cluster_home: Path) -> None:
    """SIGKILL gives the server no chance to shut its bot pool down; the pool's forkserver,
    resource tracker and workers must still go."""
    pgdata = cluster_home / "data" / "pgdata"
    server = app_on_embedded_postgresql(
        cluster_home, CARDTABLE_BOT_LEVEL="strong", CARDTABLE_BOT_BUDGET="0.01", CARDTABLE_BOT_WORKERS="2"
    )
    base, ws_base = server.base_url, server.ws_url
    server.start()
    try:
        token, code = table_with_bots(base, "Kill")
        deadline = time.monotonic() + 60
        while True:
            forkservers = [pid for pid in _descendants_of(server.pid) if "forkserver" in _cmdline(pid)]
            if forkservers and len(_children_of(forkservers[0])) >= 2:
                break
            assert time.monotonic() < deadline, "the strong bots' workers never started"
            play_a_little(base, ws_base, token, code, 3)
        postmaster = int((pgdata / "postmaster.pid").read_text().splitlines()[0])
        postgres = {postmaster, *_descendants_of(postmaster)}
        pool = [pid for pid in _descendants_of(server.pid) if pid not in postgres]
        assert len(pool) >= 4  # forkserver, resource tracker, two workers
    finally:
        _crash(server, pgdata)
    deadline = time.monotonic() + 5
    while (left := [pid for pid in pool if _alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:  # leave nothing behind, whatever the outcome
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    # A killed PostgreSQL's shared memory (a System V segment, dynamic segments in /dev/shm) is
    # freed by the next PostgreSQL that starts on its data folder; this folder goes with the test.
    cluster = EmbeddedPostgres(pgdata)
    cluster.start()
    cluster.stop()
    assert not left, [_cmdline(pid) for pid in left]
