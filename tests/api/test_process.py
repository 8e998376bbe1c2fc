"""`python -m app` as people run it: against DATABASE_URL, and with no database at all (an
embedded PostgreSQL whose data survives a restart and which stops with the server)."""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from sqlalchemy import create_engine, text

from app.store.embedded_pg import EmbeddedPostgres, PostmasterLock, ensure_service_user
from tests.api.harness import TLS, play_a_little, table_with_bots
from tests.servers import PROJECT_ROOT, AppServer, free_port, python_m_app_with

QUICK_BOTS = {"CARDTABLE_BOT_DELAY": "0.02", "CARDTABLE_BOT_BUDGET": "0.01"}


def app_server(
    database_url: str | None, workdir: Path, settings: Mapping[str, str] | None = None, **options: Any
) -> AppServer:
    """`python -m app` on a free port with quick bots and `settings`; with no `database_url` it
    runs its embedded PostgreSQL (in CARDTABLE_DATA_DIR)."""
    return AppServer(database_url, workdir=workdir, env={**QUICK_BOTS, **(settings or {})}, **options)


@contextmanager
def serve(server: AppServer) -> Iterator[str]:
    """Run the server until the block ends, then stop it with SIGTERM as a service manager would,
    and check it ended cleanly; yields its base URL."""
    server.start()
    try:
        yield server.base_url
    finally:
        assert server.stop() == 0, server.printed()


def libpq_url(database_url: str) -> str:
    """The plain libpq form of the fixture's URL, as people set DATABASE_URL."""
    return database_url.replace("postgresql+psycopg://", "postgresql://")


def test_python_m_app_serves_the_api_and_the_client_pages_on_database_url(
    database_url: str, tmp_path: Path
) -> None:
    with serve(app_server(libpq_url(database_url), tmp_path)) as base:
        games = httpx.get(f"{base}/api/games", verify=TLS).json()
        assert "holy-grail" in {g["id"] for g in games}
        for page in (
            "/",
            "/r/some-code",
            "/history",
            "/leaderboard",
            "/matches/3",
            "/rules/holy-grail",
            "/me",
        ):
            response = httpx.get(f"{base}{page}", verify=TLS)
            assert response.status_code in (200, 503) and "text/html" in response.headers["content-type"], (
                page
            )
        assert httpx.get(f"{base}/api/nothing-here", verify=TLS).status_code == 404
    engine = create_engine(database_url)
    with engine.connect() as conn:
        revision = conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
        catalog = conn.execute(text("SELECT count(*) FROM games")).scalar_one()
    engine.dispose()
    assert revision and catalog == len(games)


def test_without_database_url_an_embedded_postgresql_keeps_data_across_restarts(cluster_home: Path) -> None:
    settings = embedded_settings(cluster_home)
    with serve(app_server(None, cluster_home, settings)) as base:
        created = httpx.post(f"{base}/api/people", json={"name": "Persistent"}, verify=TLS)
        assert created.status_code == 201
        token = created.cookies["session"]
    pgdata = cluster_home / "data" / "pgdata"
    assert (pgdata / "PG_VERSION").exists()
    assert not (pgdata / "postmaster.pid").exists(), "the embedded PostgreSQL must stop with the server"

    with serve(app_server(None, cluster_home, settings)) as base:
        again = httpx.get(f"{base}/api/me", cookies={"session": token}, verify=TLS)
        assert again.status_code == 200 and again.json()["name"] == "Persistent"


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("useradd"), reason="making an account needs root")
def test_the_postgresql_account_is_made_once_when_several_processes_start_at_once() -> None:
    """Run as root on a machine without the account, every embedded PostgreSQL that starts makes
    it first; the suite's workers start theirs at the same moment, and all must get the one
    account (not an error from the `useradd` that lost the race). Eight at once, under a fresh
    name removed afterwards."""
    name = f"ct-race-{uuid.uuid4().hex[:8]}"
    start = threading.Barrier(8)

    def ensure() -> int:
        start.wait()
        return ensure_service_user(name).pw_uid

    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            uids = list(pool.map(lambda _: ensure(), range(8)))
        assert len(set(uids)) == 1 and uids[0] == pwd.getpwnam(name).pw_uid
    finally:
        subprocess.run(["userdel", name], capture_output=True)


def embedded_settings(cluster_home: Path) -> dict[str, str]:
    return {"CARDTABLE_DATA_DIR": str(cluster_home / "data"), "CARDTABLE_EMBEDDED_FSYNC": "false"}


def still_serves(base: str, token: str, code: str) -> None:
    """A request is answered and a move made through the room's socket is acknowledged."""
    room = httpx.get(f"{base}/api/rooms/{code}", cookies={"session": token}, timeout=30, verify=TLS)
    assert room.status_code == 200, room.text
    version = room.json()["match"]["version"]
    assert play_a_little(base, base.replace("http", "ws", 1), token, code, 2) > version


def wait_until_gone(pid: int, seconds: float = 5) -> bool:
    """Whether process `pid` ends within `seconds` (a postmaster removes its lock file just
    before it exits)."""
    deadline = time.monotonic() + seconds
    while Path(f"/proc/{pid}").exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def postmaster_of(cluster_home: Path) -> int:
    return PostmasterLock.read(cluster_home / "data" / "pgdata").pid  # type: ignore[union-attr]


def test_a_second_start_on_the_same_folder_and_port_says_so_and_leaves_the_first_serving(
    cluster_home: Path,
) -> None:
    settings = embedded_settings(cluster_home)
    first = app_server(None, cluster_home, settings)
    with serve(first) as base:
        token, code = table_with_bots(base, "Keeps playing")
        second = app_server(None, cluster_home, settings, port=first.port, name="second")
        status, printed = second.run_until_exit()
        assert status != 0
        # The engine's own notice (compiled modules stale, in a checkout being edited) may come
        # first; the server itself says one line.
        said = [line for line in printed.strip().splitlines() if not line.startswith("engine: ")]
        assert said == [f"port {first.port} is already in use: is another server running?"]
        still_serves(base, token, code)


def test_one_of_two_servers_on_one_embedded_postgresql_stopped_by_ctrl_c_leaves_the_other_serving(
    cluster_home: Path,
) -> None:
    """The first server starts the data folder's PostgreSQL, the second uses it too. Ctrl+C
    (SIGINT) on the first leaves PostgreSQL to the second, which keeps serving; the second,
    the last one using it, stops it when it stops."""
    settings = embedded_settings(cluster_home)
    first = app_server(None, cluster_home, settings, name="first")
    second = app_server(None, cluster_home, settings, name="second")
    try:
        first.start()
        postmaster = postmaster_of(cluster_home)
        second.start()
        assert postmaster_of(cluster_home) == postmaster  # one PostgreSQL, shared
        token, code = table_with_bots(first.base_url, "Keeps playing")
        assert first.stop(signal.SIGINT) == 0, first.printed()
        still_serves(second.base_url, token, code)
        assert Path(f"/proc/{postmaster}").exists()
        assert second.stop(signal.SIGINT) == 0, second.printed()
        assert not (cluster_home / "data" / "pgdata" / "postmaster.pid").exists()
        assert wait_until_gone(postmaster), "the last server must stop PostgreSQL"
    finally:
        killed = [server for server in (first, second) if server.process is not None]
        for server in killed:
            server.kill()
        if killed:  # a killed server leaves its PostgreSQL running: the last user (this) stops it
            cluster = EmbeddedPostgres(cluster_home / "data" / "pgdata")
            cluster.start()
            cluster.stop()


def test_python_m_app_has_a_command_line_whose_port_option_is_honoured(
    database_url: str, tmp_path: Path
) -> None:
    port = free_port()
    elsewhere = next(other for other in iter(free_port, None) if other != port)
    server = app_server(
        libpq_url(database_url),
        tmp_path,
        {"CARDTABLE_PORT": str(elsewhere)},  # the option, not the environment, must win
        port=port,
        spawn=python_m_app_with("--port", str(port)),
    )

    def command_line(*options: str) -> subprocess.CompletedProcess[str]:
        """A run that ends at once, its output and errors apart (neither starts a server)."""
        return subprocess.run(
            [sys.executable, "-m", "app", *options],
            cwd=PROJECT_ROOT,
            env=server.env,
            capture_output=True,
            text=True,
            timeout=30,
        )

    shown = command_line("--help")
    assert shown.returncode == 0 and shown.stdout.startswith("usage: python -m app")
    assert "--host" in shown.stdout and "--port" in shown.stdout
    wrong = command_line("--port", "nine")
    assert wrong.returncode == 2 and "--port" in wrong.stderr
    with serve(server) as base:  # it was ready on `port`, not on the environment's
        assert httpx.get(f"{base}/api/games", timeout=30, verify=TLS).status_code == 200


def test_an_embedded_postgresql_stops_with_its_last_user_and_a_killed_user_counts_for_nothing(
    cluster_home: Path,
) -> None:
    """A process that starts the cluster's PostgreSQL dies by SIGKILL (it never unregisters:
    the kernel drops its lock). Two users then share the server it left; the first to stop
    leaves it to the other, and the other, the last, stops it."""
    pgdata = cluster_home / "pgdata"
    killed = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from app.store.embedded_pg import EmbeddedPostgres; "
            "EmbeddedPostgres(Path(sys.argv[1]), fast_unsafe=True).start(); print('up', flush=True); "
            "time.sleep(600)",
            str(pgdata),
        ],
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
    )
    first = EmbeddedPostgres(pgdata, fast_unsafe=True)
    last = EmbeddedPostgres(pgdata, fast_unsafe=True)
    try:
        assert killed.stdout is not None and killed.stdout.readline() == b"up\n"
        postmaster = PostmasterLock.read(pgdata).pid  # type: ignore[union-attr]
        killed.kill()
        killed.wait()
        first.start()
        last.start()
        assert first.port == last.port
        first.stop()
        with psycopg.connect(last.libpq_url("postgres"), connect_timeout=5) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        last.stop()
        assert wait_until_gone(postmaster), "the last user must stop PostgreSQL"
    finally:
        if killed.poll() is None:
            killed.kill()
            killed.wait()
        for user in (first, last):
            user.stop()
        cleanup = EmbeddedPostgres(pgdata)  # stops whatever is left, whatever happened above
        cleanup.start()
        cleanup.stop()
