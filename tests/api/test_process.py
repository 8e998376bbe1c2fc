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
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text

from app.store.embedded_pg import ensure_service_user, free_loopback_port
from tests.api.harness import TLS

PROJECT_ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def serve(env_overrides: dict[str, str]) -> Iterator[str]:
    """Run `python -m app` until the block ends, then stop it with SIGTERM as a service manager would."""
    port = free_loopback_port()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update({"CARDTABLE_PORT": str(port), "CARDTABLE_BOT_DELAY": "0.02", "CARDTABLE_BOT_BUDGET": "0.01"})
    env.update(env_overrides)
    process = subprocess.Popen(
        [sys.executable, "-m", "app"],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.stdout.read().decode() if process.stdout else ""
            try:
                if httpx.get(f"{base}/api/games", timeout=1, verify=TLS).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not come up"
            time.sleep(0.1)
        yield base
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            output, _ = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    assert process.returncode == 0, output.decode(errors="replace")


def test_python_m_app_serves_the_api_and_the_client_pages_on_database_url(database_url: str) -> None:
    with serve({"DATABASE_URL": database_url.replace("postgresql+psycopg://", "postgresql://")}) as base:
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
    settings = {"CARDTABLE_DATA_DIR": str(cluster_home / "data"), "CARDTABLE_EMBEDDED_FSYNC": "false"}
    with serve(settings) as base:
        created = httpx.post(f"{base}/api/people", json={"name": "Persistent"}, verify=TLS)
        assert created.status_code == 201
        token = created.cookies["session"]
    pgdata = cluster_home / "data" / "pgdata"
    assert (pgdata / "PG_VERSION").exists()
    assert not (pgdata / "postmaster.pid").exists(), "the embedded PostgreSQL must stop with the server"

    with serve(settings) as base:
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
