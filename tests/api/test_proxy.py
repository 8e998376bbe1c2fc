"""Scale-out: two `python -m app` processes behind nginx (Debian's package, running the shipped
deploy/nginx/default.conf and proxy.conf with Docker's names swapped for local ones) share one
table through PostgreSQL LISTEN/NOTIFY, with the two players' sockets landing on different
processes."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import httpx
import pytest
import websockets
from sqlalchemy import create_engine, text

from app.store.embedded_pg import free_loopback_port
from tests.api.harness import WAIT, Person, Server, TableSocket, make_room, play_until_over

pytestmark = pytest.mark.asyncio

PROJECT_ROOT = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)

NGINX_MAIN = """
worker_processes 1;
daemon off;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    include {site};
}}
"""
"""nginx's main file around the shipped site file, with temporary paths in the test's folder."""

SHIPPED_SITE = PROJECT_ROOT / "deploy" / "nginx" / "default.conf"


def replace_once(text: str, old: str, new: str) -> str:
    """Rewrite one line of the shipped file, failing loudly if that line is no longer there."""
    assert text.count(old) == 1, f"deploy/nginx/default.conf no longer has exactly one {old!r}"
    return text.replace(old, new)


def site_for_test(ports: list[int], port: int) -> str:
    """The shipped deploy/nginx/default.conf, pointed at this machine instead of Docker's network:
    the `app` replicas become the test's processes, port 80 a free loopback port, and the
    container path of proxy.conf the repository's file. Everything else runs as shipped."""
    site = SHIPPED_SITE.read_text()
    shipped = re.search(r"server app:8000([^;]*);", site)
    assert shipped is not None, "deploy/nginx/default.conf no longer has its `server app:8000` line"
    site = replace_once(
        site, shipped.group(0), " ".join(f"server 127.0.0.1:{p}{shipped.group(1)};" for p in ports)
    )
    site = replace_once(site, "listen 80;", f"listen 127.0.0.1:{port};")
    return replace_once(
        site,
        "include /etc/nginx/cardtable/proxy.conf;",
        f"include {PROJECT_ROOT / 'deploy' / 'nginx' / 'proxy.conf'};\n"
        # Test only: say which process answered, so the test can place its clients.
        "        add_header X-Upstream $upstream_addr always;",
    )



def wait_until_up(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        assert process.poll() is None, log.read_text(errors="replace")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, f"{url} did not come up"
        time.sleep(0.1)


@contextmanager
def app_processes(database_url: str, count: int, workdir: Path) -> Iterator[list[int]]:
    """`count` server processes on one database, with the LISTEN/NOTIFY bus; yields their ports."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update({"DATABASE_URL": database_url, "CARDTABLE_PUBSUB": "postgres", "CARDTABLE_BOT_DELAY": "0.02"})
    env.update({"CARDTABLE_BOT_BUDGET": "0.01", "CARDTABLE_BOT_WORKERS": "1"})
    processes, ports = [], []
    try:
        for n in range(count):
            port = free_loopback_port()
            log = workdir / f"app{n}.log"
            process = subprocess.Popen(
                [sys.executable, "-m", "app"],
                cwd=PROJECT_ROOT,
                env={**env, "CARDTABLE_PORT": str(port)},
                stdout=log.open("wb"),
                stderr=subprocess.STDOUT,
            )
            processes.append(process)
            wait_until_up(f"http://127.0.0.1:{port}/api/games", process, log)
            ports.append(port)
        yield ports
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


@contextmanager
def nginx_in_front(ports: list[int], workdir: Path) -> Iterator[int]:
    assert NGINX is not None
    port = free_loopback_port()
    site = workdir / "site.conf"
    site.write_text(site_for_test(ports, port))
    conf = workdir / "nginx.conf"
    conf.write_text(NGINX_MAIN.format(dir=workdir, site=site))
    process = subprocess.Popen(
        [NGINX, "-p", str(workdir), "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            assert process.poll() is None, (workdir / "error.log").read_text(errors="replace")
            try:
                httpx.get(f"http://127.0.0.1:{port}/api/games", timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "nginx did not come up"
                time.sleep(0.1)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


@asynccontextmanager
async def socket_on(person: Person, code: str, avoid: str | None) -> AsyncIterator[tuple[TableSocket, str]]:
    """A table socket through nginx, reconnecting until it lands on a process other than `avoid`."""
    headers = {"Cookie": f"session={person.token}", "Origin": person.server.base_url}
    for _ in range(10):
        connection = await websockets.connect(
            f"{person.server.ws_url}/ws/rooms/{code}", additional_headers=headers, open_timeout=WAIT
        )
        assert connection.response is not None
        upstream = connection.response.headers.get("X-Upstream", "")
        if upstream and upstream != avoid:
            try:
                yield TableSocket(connection), upstream
            finally:
                await connection.close()
            return
        await connection.close()
    raise AssertionError("every connection landed on the same process")


@pytest.mark.skipif(NGINX is None, reason="nginx is not installed (scripts/setup.sh --browser installs it)")
async def test_a_match_is_played_through_nginx_with_players_on_different_processes(database_url: str) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="cardtable-proxy-"))
    try:
        with app_processes(database_url, 2, workdir) as ports, nginx_in_front(ports, workdir) as port:
            base = f"http://127.0.0.1:{port}"
            server = Server(base_url=base, ws_url=f"ws://127.0.0.1:{port}", app=None)
            async with (
                httpx.AsyncClient(base_url=base, timeout=WAIT) as aki_http,
                httpx.AsyncClient(base_url=base, timeout=WAIT) as ben_http,
            ):
                aki, ben = Person(server, aki_http), Person(server, ben_http)
                # Operator metrics are read from each replica, never through the public entry.
                assert (await aki_http.get("/metrics")).status_code == 404
                direct = httpx.get(f"http://127.0.0.1:{ports[0]}/metrics", timeout=WAIT)
                assert direct.status_code == 200 and "cardtable_live_tables" in direct.text
                aki.me = await aki.post("/api/people", {"name": "Aki"}, expect=201)
                ben.me = await ben.post("/api/people", {"name": "Ben"}, expect=201)
                code = (await make_room(aki, seats=3, hands=1))["code"]
                await ben.get(f"/api/rooms/{code}")
                async with (
                    socket_on(aki, code, None) as (aki_ws, aki_upstream),
                    socket_on(ben, code, aki_upstream) as (ben_ws, ben_upstream),
                ):
                    assert {aki_upstream, ben_upstream} == {f"127.0.0.1:{p}" for p in ports}
                    await aki.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
                    await ben.post(f"/api/rooms/{code}/seats/1", {"as": "me"})
                    await aki.post(f"/api/rooms/{code}/seats/2", {"as": "bot"})
                    room = await aki.post(f"/api/rooms/{code}/start")
                    # A seat change made through either process reaches both sockets.
                    await aki_ws.wait_for(
                        lambda m: m["type"] == "room" and m["room"]["seats"][2]["kind"] == "bot"
                    )
                    await ben_ws.wait_for(
                        lambda m: m["type"] == "room" and m["room"]["seats"][2]["kind"] == "bot"
                    )
                    # Each player plays until their own socket shows the match over.
                    await asyncio.wait_for(play_until_over([aki_ws, ben_ws], timeout=90), 100)

        # Both processes wrote one log, in order, with no gap and no fork.
        engine = create_engine(database_url)
        try:
            with engine.connect() as conn:
                status, version = conn.execute(
                    text("SELECT status, version FROM matches WHERE id = :m"), {"m": room["match"]["id"]}
                ).one()
                seqs = conn.execute(
                    text("SELECT seq FROM match_actions WHERE match_id = :m ORDER BY seq"),
                    {"m": room["match"]["id"]},
                ).scalars()
                assert status == "finished"
                assert list(seqs) == list(range(version))
        finally:
            engine.dispose()
        aki_view = aki_ws.state["views"]["0"] if aki_ws.state else None
        ben_view = ben_ws.state["views"]["1"] if ben_ws.state else None
        assert aki_view is not None and ben_view is not None
        assert aki_view["phase"] == ben_view["phase"] == "match_over"
        assert aki_view["scores"] == ben_view["scores"]
        assert aki_view["hands"] == ben_view["hands"] and len(aki_view["hands"]) == 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
