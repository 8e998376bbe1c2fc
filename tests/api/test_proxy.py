"""Scale-out: two `python -m app` processes behind nginx (Debian's package, running the shipped
deploy/nginx/default.conf and proxy.conf with Docker's names swapped for local ones:
bench/local_nginx.py). nginx sends every socket of one room to the same process and spreads the
rooms over both; a table whose people are on different processes anyway (a socket opened at a
process directly, or one that stayed where a failover moved it) is shared through PostgreSQL
LISTEN/NOTIFY."""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import httpx
import pytest
import websockets
from sqlalchemy import create_engine, text

from app.store.embedded_pg import free_loopback_port
from bench.local_nginx import (
    NGINX,
    SHIPPED_PROXY,
    UPSTREAM_HEADER,
    nginx_command,
    nginx_in_front,
    write_config,
)
from tests.api.harness import TLS, WAIT, Person, Server, TableSocket, make_room, play_until_over
from tests.servers import AppServer, stop_all


@contextmanager
def app_processes(database_url: str, count: int, workdir: Path) -> Iterator[list[int]]:
    """`count` server processes on one database, with the LISTEN/NOTIFY bus; yields their ports.
    Process n's output is in `workdir/app<n>-<port>.log`."""
    settings = {"CARDTABLE_BOT_DELAY": "0.02", "CARDTABLE_BOT_BUDGET": "0.01", "CARDTABLE_BOT_WORKERS": "1"}
    servers = [
        AppServer(database_url, workdir=workdir, pubsub="postgres", name=f"app{n}", env=settings)
        for n in range(count)
    ]
    try:
        for server in servers:
            server.start()
        yield [server.port for server in servers]
    finally:
        stop_all(servers)


@asynccontextmanager
async def socket_at(ws_url: str, person: Person, code: str) -> AsyncIterator[tuple[TableSocket, str]]:
    """A person's table socket opened at `ws_url` (the proxy or a process), with the process
    that serves it as the proxy names it (empty when opened at a process directly)."""
    headers = {"Cookie": f"session={person.token}", "Origin": ws_url.replace("ws", "http", 1)}
    async with websockets.connect(
        f"{ws_url}/ws/rooms/{code}", additional_headers=headers, open_timeout=WAIT
    ) as connection:
        assert connection.response is not None
        yield TableSocket(connection), connection.response.headers.get(UPSTREAM_HEADER, "")


@pytest.mark.asyncio
@pytest.mark.skipif(NGINX is None, reason="nginx is not installed (scripts/setup.sh --browser installs it)")
async def test_a_match_is_played_behind_nginx_with_players_on_different_processes(database_url: str) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="cardtable-proxy-"))
    try:
        with app_processes(database_url, 2, workdir) as ports, nginx_in_front(ports, workdir) as proxy:
            base = proxy.url
            server = Server(base_url=base, ws_url=f"ws://127.0.0.1:{proxy.port}", app=None)
            async with (
                httpx.AsyncClient(base_url=base, timeout=WAIT, verify=TLS) as aki_http,
                httpx.AsyncClient(base_url=base, timeout=WAIT, verify=TLS) as ben_http,
            ):
                aki, ben = Person(server, aki_http), Person(server, ben_http)
                # Operator metrics are read from each replica, never through the public entry.
                assert (await aki_http.get("/metrics")).status_code == 404
                direct = httpx.get(f"http://127.0.0.1:{ports[0]}/metrics", timeout=WAIT, verify=TLS)
                assert direct.status_code == 200 and "cardtable_live_tables" in direct.text
                aki.me = await aki.post("/api/people", {"name": "Aki"}, expect=201)
                ben.me = await ben.post("/api/people", {"name": "Ben"}, expect=201)
                code = (await make_room(aki, seats=3, hands=1))["code"]
                await ben.get(f"/api/rooms/{code}")
                async with socket_at(server.ws_url, aki, code) as (aki_ws, aki_upstream):
                    (other_port,) = [p for p in ports if aki_upstream != f"127.0.0.1:{p}"]
                    other_process = f"ws://127.0.0.1:{other_port}"
                    async with socket_at(other_process, ben, code) as (ben_ws, _):
                        await aki.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
                        # Ben's own requests go to his process too: each process commits a change.
                        seated = await ben.http.post(
                            f"http://127.0.0.1:{other_port}/api/rooms/{code}/seats/1", json={"as": "me"}
                        )
                        assert seated.status_code == 200, seated.text
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


ROOMS = 16
"""Rooms the pinning test opens: all of them hashing to one of two processes by chance has a
probability of 2 ** -15."""


@pytest.mark.asyncio
@pytest.mark.skipif(NGINX is None, reason="nginx is not installed (scripts/setup.sh --browser installs it)")
async def test_nginx_sends_every_socket_of_a_room_to_one_process_and_spreads_the_rooms(
    database_url: str,
) -> None:
    """Three sockets of each room, opened through the shipped site, all reach the same process,
    and so do the room's own requests; the rooms spread over both processes, and requests that
    belong to no room alternate between them."""
    workdir = Path(tempfile.mkdtemp(prefix="cardtable-pinning-"))
    try:
        with app_processes(database_url, 2, workdir) as ports, nginx_in_front(ports, workdir) as proxy:
            server = Server(base_url=proxy.url, ws_url=f"ws://127.0.0.1:{proxy.port}", app=None)
            everyone = {f"127.0.0.1:{p}" for p in ports}
            async with httpx.AsyncClient(base_url=proxy.url, timeout=WAIT, verify=TLS) as http:
                host = Person(server, http)
                host.me = await host.post("/api/people", {"name": "Host"}, expect=201)
                spread = {(await http.get("/api/games")).headers[UPSTREAM_HEADER] for _ in range(4)}
                assert spread == everyone, "requests that belong to no room must be balanced"
                homes: dict[str, str] = {}
                for _ in range(ROOMS):
                    code = (await make_room(host))["code"]
                    served: set[str] = set()
                    for _ in range(3):
                        async with socket_at(server.ws_url, host, code) as (socket, upstream):
                            await socket.wait_for(lambda m: m["type"] == "room")
                            served.add(upstream)
                    served.add((await http.get(f"/api/rooms/{code}")).headers[UPSTREAM_HEADER])
                    assert len(served) == 1 and served <= everyone, (code, served)
                    homes[code] = served.pop()
                assert set(homes.values()) == everyone, homes
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.mark.skipif(NGINX is None, reason="nginx is not installed (scripts/setup.sh --browser installs it)")
def test_the_shipped_site_rendered_for_local_processes_is_a_configuration_nginx_accepts(
    tmp_path: Path,
) -> None:
    """The rendering that this test and bench/load.py --processes run: `nginx -t` checks it as a
    whole (the shipped proxy.conf included), and each local process is one upstream server."""
    ports = [free_loopback_port(), free_loopback_port()]
    conf = write_config(ports, free_loopback_port(), tmp_path)
    checked = subprocess.run(nginx_command(conf, "-t"), capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr
    site = (tmp_path / "site.conf").read_text()
    assert [f"127.0.0.1:{p}" for p in ports] == re.findall(r"server (127\.0\.0\.1:\d+)", site)
    assert "app:8000" not in site and str(SHIPPED_PROXY) in site
