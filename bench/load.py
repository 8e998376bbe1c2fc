"""Load benchmark: the real server on the embedded PostgreSQL against a bare WebSocket echo server.

For each table count T it drives T tables, each one scripted human (seat 0, answers at once with
a seeded random legal action) and basic bots in the other seats (CARDTABLE_BOT_LEVEL=basic,
CARDTABLE_BOT_DELAY=0: the server itself, not the bots' thinking), and in the same run as many
clients (one per person) of a bare FastAPI WebSocket echo server on the same machine; rounds
alternate app and echo so both see the same machine load. It prints, per T:

- committed actions/s (rows added to every match's log, bots and chance included),
- the human's latency from sending an action to receiving the state with the new version
  (p50/p99), the echo round trip (p50/p99) and the ratio of the two,
- memory per live table: the server's RSS growth over the phase divided by T (sockets, buffers
  and compression contexts included), and per game the Python heap of one live match as the
  table service holds it (tracemalloc, in this process),

and the CPU each committed action cost: the server's (its process and children) and
PostgreSQL's (the postmaster and its backends), from /proc, with the echo server's CPU per message
and the load average of each round. With `--people 4` every seat of a table is a person on a
socket of their own, each playing their first legal action the moment it is their turn (no bots);
`--people 1,4` runs both modes at every T on one server.

Then, per game, the bytes a client receives per state message (JSON text as sent, and after
permessage-deflate as estimated with the same zlib settings per connection): median and max,
and the median per hand number, which must not grow from hand to hand.

With `--strong-tables`, a second server (CARDTABLE_BOT_LEVEL=strong at the default pace,
CARDTABLE_BOT_DELAY=0.8, default budget and workers) gets T tables with strong bots and, as a
control, T tables with basic bots at the same pace; rounds alternate between the two kinds (one
plays while the other idles), so both see the same machine load. It prints per T and kind the
human's latency, the bots' pace (from the state before a bot's move to the state after it: 0.8 s
when the bots keep up) and the largest T tried whose strong-bot human p99 is at most 100 ms:
how many strong-bot tables one process holds.

    .venv/bin/python -m bench.load --tables 1,10,50 --seconds 20
    .venv/bin/python -m bench.load --tables 50 --seconds 15 --profile /tmp/load.svg   # py-spy
    .venv/bin/python -m bench.load --tables 10 --bytes-seconds 0 --strong-tables 5,10,20,40
    .venv/bin/python -m bench.load --tables "" --bytes-seconds 0 --storm-sockets 1000 --storm-tables 10
    .venv/bin/python -m bench.load --tables 1,10,50,200 --people 1,4 --seconds 10 --bytes-seconds 0
    .venv/bin/python -m bench.load --tables 50 --people 4 --cpu-profile /tmp/cpu.txt   # CPU-time samples
    .venv/bin/python -m bench.load --tables "" --bytes-seconds 0 --idle-sockets 1000

With `--idle-sockets N`, N people connect to rooms of their own (ten to a room) and stay idle: the
server's RSS growth divided by N is the memory one connected socket costs.

With `--storm-sockets N`, `--storm-tables` tables play (a quiet round first, as the control) while
N sockets of other people join rooms of their own, ten sockets a room, at an even pace over
`--storm-seconds`: a reconnect storm, as after a restart or a deploy. It prints the playing
humans' latency in both rounds.

With `--processes 2`, the table counts run on two deployments on one database, each behind nginx
running the shipped site (deploy/nginx, rendered for this machine by bench/local_nginx.py): one
process with the in-process bus, and two processes with CARDTABLE_PUBSUB=postgres. Every client
goes through its deployment's nginx, which sends every socket of a room to one process and
spreads the rooms over the processes (the bench prints how each table's sockets landed, from the
upstream nginx names in each handshake's answer, and each process's own socket count).
Rounds alternate between the deployments (one plays while the other's tables wait), and it
prints per deployment the server's CPU per committed action (every app process and its
children), PostgreSQL's and nginx's, and the ratio of two processes' server CPU to one's, per
round; no echo rounds. With `--cpu-profile FILE` each app process writes its own profile of the
first round (FILE's name with `.one-0`, `.two-0`, `.two-1` before the suffix).

    .venv/bin/python -m bench.load --tables 50 --people 4,1 --seconds 10 --bytes-seconds 0 --processes 2

The server and the echo server run as their own processes (`python -m app`, and this module with
`--serve-echo`), so the driver's CPU is not counted in theirs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import zlib
from collections import defaultdict
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg
import uvicorn
import websockets
from fastapi import FastAPI, WebSocket, WebSocketDisconnect

from app.live.wire import StateReader
from app.store.embedded_pg import EmbeddedPostgres, free_loopback_port
from bench.local_nginx import UPSTREAM_HEADER, LocalNginx, nginx_in_front, stop_processes
from engine import GAMES

GAME_SEATS = {"holy-grail": 4, "fairy-500": 4, "familia": 4, "yaya-fugou": 5, "french-tarot": 4}


# ---- the echo server ----------------------------------------------------------------------------
def serve_echo(port: int) -> None:
    """A bare FastAPI WebSocket endpoint that sends every text message straight back."""
    app = FastAPI()

    @app.websocket("/echo")
    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        with contextlib.suppress(WebSocketDisconnect):
            while True:
                await websocket.send_text(await websocket.receive_text())

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


# ---- processes ----------------------------------------------------------------------------------
async def wait_http(url: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient() as client:
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if (await client.get(url)).status_code < 500:
                    return
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not answer")
            await asyncio.sleep(0.2)


def cpu_seconds(pid: int) -> float:
    """User and system CPU time the process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_of(pid: int) -> list[int]:
    """Every live descendant of `pid` (from /proc/*/stat parent ids)."""
    parents: dict[int, list[int]] = defaultdict(list)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parents[int(fields[1])].append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of a process and its children: its own, its reaped children's (cutime, cstime)
    and each live descendant's. PostgreSQL's work is in its backends, one per connection."""
    total = 0.0
    for n, process in enumerate([pid, *children_of(pid)]):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{process}/stat").read_text().rsplit(")", 1)[1].split()
            used = int(fields[11]) + int(fields[12]) + (int(fields[13]) + int(fields[14]) if n == 0 else 0)
            total += used / os.sysconf("SC_CLK_TCK")
    return total


def postmaster_pid(pgdata: Path) -> int:
    return int((pgdata / "postmaster.pid").read_text().split()[0])


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


@dataclass
class Processes:
    app: subprocess.Popen[bytes]
    echo: subprocess.Popen[bytes]
    app_url: str
    echo_url: str
    libpq: str
    log: Path
    pg_pid: int = 0
    trace_heap: Path | None = None
    snapshots: int = 0
    cpu_profile: Path | None = None
    """Where the server (bench/cpu_server.py) writes its CPU profile of the profiled round."""

    def cpu_profiling(self, on: bool) -> None:
        """Start (or stop and write) the server's CPU profile, when it runs under one."""
        if self.cpu_profile is not None:
            self.app.send_signal(signal.SIGUSR1 if on else signal.SIGUSR2)

    async def heap_snapshot(self) -> None:
        """With --trace-heap, have the server write its heap snapshots (bench/heap_server.py)."""
        if self.trace_heap is None:
            return
        done = self.trace_heap / f"{self.snapshots}.done"
        self.app.send_signal(signal.SIGUSR1)
        for _ in range(1200):
            if done.exists():
                break
            await asyncio.sleep(0.1)
        self.snapshots += 1


BASIC_BOTS = {"CARDTABLE_BOT_DELAY": "0", "CARDTABLE_BOT_LEVEL": "basic"}
STRONG_DELAY = 0.8
STRONG_BOTS = {"CARDTABLE_BOT_DELAY": str(STRONG_DELAY), "CARDTABLE_BOT_LEVEL": "strong"}
STAGGER = 0.01
"""Seconds between two people's first moves of a timed round (0.5 s for 50 tables)."""
HOLD_P99 = 0.100
"""A process holds T tables when the human's p99 latency stays at or under this (seconds)."""


def server_env(database_url: str, port: int, bots: dict[str, str], **settings: str) -> dict[str, str]:
    """The environment every benchmarked server runs with (one process's settings besides)."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        **bots,
        "CARDTABLE_PORT": str(port),
        "CARDTABLE_HOST": "127.0.0.1",
        # As scripts/serve.sh and the Dockerfile run the server (two malloc arenas).
        "MALLOC_ARENA_MAX": os.environ.get("MALLOC_ARENA_MAX", "2"),
        # Finished matches' reviews (app/live/reviews.py) run in the server's worker processes,
        # whose CPU would count as the play's; their cost has its own benchmark (bench/analysis.py).
        "CARDTABLE_ANALYSIS_WORKERS": os.environ.get("CARDTABLE_ANALYSIS_WORKERS", "0"),
        **settings,
    }


def start_server(
    env: dict[str, str],
    log: Path,
    app_root: Path | None = None,
    trace_heap: Path | None = None,
    cpu_profile: Path | None = None,
) -> subprocess.Popen[bytes]:
    """`python -m app` of this checkout (or of `app_root`, with its own .venv), or the same server
    under tracemalloc or the CPU-time sampler."""
    root = Path(__file__).resolve().parent.parent
    server_root = app_root or root
    python = server_root / ".venv" / "bin" / "python" if app_root else Path(sys.executable)
    command = [str(python), "-m", "app"]
    if trace_heap is not None:  # the same server under tracemalloc (bench/heap_server.py)
        command = [str(python), str(root / "bench" / "heap_server.py")]
        env = env | {"CARDTABLE_HEAP_DIR": str(trace_heap), "PYTHONPATH": str(server_root)}
    elif cpu_profile is not None:  # the same server, sampled by CPU time (bench/cpu_server.py)
        command = [str(python), str(root / "bench" / "cpu_server.py")]
        env = env | {"CARDTABLE_CPU_PROFILE": str(cpu_profile.resolve()), "PYTHONPATH": str(server_root)}
    return subprocess.Popen(
        command, env=env, cwd=server_root, stdout=log.open("wb"), stderr=subprocess.STDOUT
    )


@contextlib.asynccontextmanager
async def processes(
    port_base: int | None,
    app_root: Path | None = None,
    bots: dict[str, str] = BASIC_BOTS,
    trace_heap: Path | None = None,
    cpu_profile: Path | None = None,
) -> AsyncIterator[Processes]:
    workdir = Path(tempfile.mkdtemp(prefix="cardtable-load-"))
    pg = EmbeddedPostgres(workdir / "pgdata")
    app_port = port_base or free_loopback_port()
    echo_port = port_base + 1 if port_base else free_loopback_port()
    started: list[subprocess.Popen[bytes]] = []
    try:
        env = server_env(pg.start(), app_port, bots)
        app = start_server(env, workdir / "app.log", app_root, trace_heap, cpu_profile)
        started.append(app)
        echo = subprocess.Popen(
            [sys.executable, "-m", "bench.load", "--serve-echo", str(echo_port)],
            cwd=Path(__file__).resolve().parent.parent,
            env=os.environ,
        )
        started.append(echo)
        await wait_http(f"http://127.0.0.1:{app_port}/api/games")
        await asyncio.sleep(1.0)
        yield Processes(
            app=app,
            echo=echo,
            app_url=f"http://127.0.0.1:{app_port}",
            echo_url=f"ws://127.0.0.1:{echo_port}/echo",
            libpq=pg.libpq_url("cardtable"),
            log=workdir / "app.log",
            pg_pid=postmaster_pid(workdir / "pgdata"),
            trace_heap=trace_heap,
            cpu_profile=cpu_profile,
        )
    finally:
        stop_processes(started, timeout=15)
        pg.stop()
        shutil.rmtree(workdir, ignore_errors=True)


# ---- one process against several, behind nginx (--processes N) ------------------------------
@dataclass
class Deployment:
    """App processes on the shared database behind nginx running the shipped site
    (bench/local_nginx.py), as docker-compose.yml deploys them."""

    name: str
    apps: list[subprocess.Popen[bytes]]
    ports: list[int]
    proxy: LocalNginx
    logs: list[Path]
    profiled: bool = False
    """Each app runs under bench/cpu_server.py and writes its profile when told to stop."""

    @property
    def url(self) -> str:
        return self.proxy.url

    def server_cpu(self) -> float:
        """CPU seconds of every app process of the deployment, with their children (bot workers)."""
        return sum(tree_cpu_seconds(app.pid) for app in self.apps)

    def proxy_cpu(self) -> float:
        """CPU seconds of nginx (its master and worker)."""
        return tree_cpu_seconds(self.proxy.process.pid)

    def cpu_profiling(self, on: bool) -> None:
        if self.profiled:
            for app in self.apps:
                app.send_signal(signal.SIGUSR1 if on else signal.SIGUSR2)

    async def connected_sockets(self) -> list[int]:
        """Each process's own count of open room sockets (its /metrics gauge, read directly)."""
        counts = []
        async with httpx.AsyncClient(timeout=30) as http:
            for port in self.ports:
                text = (await http.get(f"http://127.0.0.1:{port}/metrics")).text
                found = re.search(r"^cardtable_connected_sockets\{[^}]*\} (\S+)$", text, re.MULTILINE)
                counts.append(int(float(found.group(1))) if found else -1)
        return counts


@dataclass
class Compared:
    """The deployments compared on one embedded PostgreSQL."""

    libpq: str
    pg_pid: int
    deployments: list[Deployment]


def profile_path(base: Path, name: str) -> Path:
    """Where one compared process writes its CPU profile: /tmp/cpu.txt -> /tmp/cpu.two-0.txt."""
    return base.with_name(f"{base.stem}.{name}{base.suffix}")


@contextlib.asynccontextmanager
async def compared_deployments(
    count: int, sockets: int, app_root: Path | None = None, cpu_profile: Path | None = None
) -> AsyncIterator[Compared]:
    """One process with the in-process bus (the one-process deployment) and `count` processes
    with CARDTABLE_PUBSUB=postgres, on one database, each deployment behind its own nginx
    running the shipped site; `sockets`: the most room sockets one deployment will hold."""
    workdir = Path(tempfile.mkdtemp(prefix="cardtable-compare-"))
    pg = EmbeddedPostgres(workdir / "pgdata")
    started: list[subprocess.Popen[bytes]] = []
    try:
        url = pg.start()
        deployments = []
        with contextlib.ExitStack() as proxies:
            for name, processes_here in (("one", 1), ("two" if count == 2 else str(count), count)):
                bus = (
                    {"CARDTABLE_PUBSUB": "postgres"} if processes_here > 1 else {"CARDTABLE_PUBSUB": "memory"}
                )
                folder = workdir / name
                folder.mkdir()
                apps, ports, logs = [], [], []
                for n in range(processes_here):
                    port, log = free_loopback_port(), folder / f"app{n}.log"
                    profile = profile_path(cpu_profile, f"{name}-{n}") if cpu_profile else None
                    apps.append(
                        start_server(server_env(url, port, BASIC_BOTS, **bus), log, app_root, None, profile)
                    )
                    started.append(apps[-1])
                    ports.append(port)
                    logs.append(log)
                for port in ports:
                    await wait_http(f"http://127.0.0.1:{port}/api/games")
                # Each proxied socket holds two of nginx's connections: the client's and the app's.
                proxy = proxies.enter_context(nginx_in_front(ports, folder, connections=2 * sockets + 256))
                deployments.append(Deployment(name, apps, ports, proxy, logs, cpu_profile is not None))
            await asyncio.sleep(1.0)
            yield Compared(pg.libpq_url("cardtable"), postmaster_pid(workdir / "pgdata"), deployments)
    finally:
        stop_processes(started, timeout=15)
        pg.stop()
        shutil.rmtree(workdir, ignore_errors=True)


# ---- the scripted human ---------------------------------------------------------------------
@dataclass
class Sizes:
    """Bytes per state message as sent (JSON) and after permessage-deflate (estimated)."""

    raw: list[int] = field(default_factory=list)
    deflated: list[int] = field(default_factory=list)
    by_hand: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    hands_seen: int = 0


class Deflate:
    """The bytes permessage-deflate puts on the wire for a message, with the server's setting
    (CARDTABLE_WS_COMPRESSION): one zlib stream per socket with uvicorn's parameters (a 4 KB
    window, memLevel 5), or none."""

    def __init__(self) -> None:
        self.mode = os.environ.get("CARDTABLE_WS_COMPRESSION", "off")
        self.stream = zlib.compressobj(6, zlib.DEFLATED, -12, 5)

    def size(self, data: bytes) -> int:
        if self.mode == "off":
            return len(data)
        sent = self.stream.compress(data) + self.stream.flush(zlib.Z_SYNC_FLUSH)
        return len(sent) - 4  # RFC 7692 drops the tail


class Human:
    """One table: a person in seat 0 who answers at once, bots elsewhere; rematches when over."""

    def __init__(
        self,
        base: str,
        game_id: str,
        seed: int,
        level: str | None = None,
        options: dict | None = None,
        seat: int = 0,
        host: bool = True,
    ) -> None:
        self.base = base
        self.game_id = game_id
        self.level = level  # the bots' level; None: the server's default
        self.options = options or {}  # the room's options; none: the game's defaults
        self.seat = seat
        self.host = host
        """The host sets the table up and starts each rematch; the other people only play."""
        self.first_legal = False
        """Play the first legal action (the --people mode) instead of a seeded random one."""
        self.mates: list[Human] = []
        """The host's fellow people at the table (the --people mode), seated by its set-up."""
        self.rng = random.Random(seed)
        self.http = httpx.AsyncClient(base_url=base, timeout=30)
        self.code = ""
        self.go = asyncio.Event()
        """Set while the human plays (a timed round); cleared, it waits at its next move."""
        self.latencies: list[float] = []
        self.received: list[float] = []
        """perf_counter() when each timed state arrived (for --latency-log)."""
        self.started = 0.0
        """perf_counter() when the current timed round began."""
        self.sizes = Sizes()
        self.upstream = ""
        """The app process that took this person's socket, as nginx named it (behind nginx)."""
        self.ready = asyncio.Event()
        self.waiting = asyncio.Event()
        """Set once the table waits for this person (a state with a move for seat 0 arrived)."""
        self.wanted_hands = 0
        self.bot_gaps: list[float] = []
        """Seconds from the state after the human's move (or a bot's) to the next bot's move."""
        self.limit: int | None = None
        """With a limit, the person stops for good after this many actions (memory phase)."""
        self.moves = 0
        self.spent = asyncio.Event()
        """Set once the person made `limit` actions."""

    @property
    def active(self) -> bool:
        return self.go.is_set()

    @active.setter
    def active(self, value: bool) -> None:
        if value:
            self.go.set()
        else:
            self.go.clear()

    async def setup(self) -> None:
        """The host makes the room, sits in seat 0, seats its mates (each a person of their own)
        and bots in the rest, and starts; a mate has nothing to set up."""
        if not self.host:
            return
        await self.http.post("/api/people", json={"name": "Load"})
        seats = GAME_SEATS.get(self.game_id, GAMES[self.game_id].min_players)
        body = {"game_id": self.game_id, "seats": seats, "options": self.options}
        room = (await self.http.post("/api/rooms", json=body)).json()
        self.code = room["code"]
        await self.http.post(f"/api/rooms/{self.code}/seats/0", json={"as": "me"})
        for mate in self.mates:
            mate.code = self.code
            await mate.http.post("/api/people", json={"name": f"Load {mate.seat}"})
            seated = await mate.http.post(f"/api/rooms/{self.code}/seats/{mate.seat}", json={"as": "me"})
            seated.raise_for_status()
        bot = {"as": "bot", "level": self.level} if self.level else {"as": "bot"}
        for n in range(1 + len(self.mates), seats):
            await self.http.post(f"/api/rooms/{self.code}/seats/{n}", json=bot)
        response = await self.http.post(f"/api/rooms/{self.code}/start")
        response.raise_for_status()

    @staticmethod
    def _bot_moved(last: tuple[int, int, float], state: dict) -> bool:
        """A newer version of the same match that the human did not cause (a new match is not timed)."""
        return last[0] == state["match_id"] and state["version"] > last[1]

    async def run(self) -> None:
        headers = {"Cookie": f"session={self.http.cookies['session']}"}
        ws_url = self.base.replace("http", "ws", 1) + f"/ws/rooms/{self.code}"
        async with websockets.connect(ws_url, additional_headers=headers, max_size=None) as ws:
            if ws.response is not None:
                self.upstream = ws.response.headers.get(UPSTREAM_HEADER, "")
            reader = StateReader()
            deflate = Deflate()
            pending: tuple[int, float] | None = None
            acted: set[tuple[int, int]] = set()
            last_state: tuple[int, int, float] | None = None  # match, version, when
            self.ready.set()
            while True:
                text = await ws.recv()
                if isinstance(text, bytes):
                    text = text.decode()
                now = time.perf_counter()
                message = json.loads(text)
                if message["type"] == "error" and pending is not None:
                    # Refused (e.g. stale): the whole state follows; act again on it.
                    acted.discard((last_state[0], pending[0]) if last_state else (0, 0))
                    pending = None
                if message["type"] != "state":
                    continue
                state = reader.read(message)
                data = text.encode()
                self.sizes.raw.append(len(data))
                self.sizes.deflated.append(deflate.size(data))
                view = state["views"].get(str(self.seat)) or {}
                self.sizes.by_hand[int(view.get("hand_no") or 0)].append(len(data))
                self.sizes.hands_seen = len(view.get("hands") or [])
                if pending is not None and state["version"] > pending[0]:
                    if self.active:
                        self.latencies.append(now - pending[1])
                        self.received.append(now)
                    pending = None
                elif self.active and last_state is not None and self._bot_moved(last_state, state):
                    self.bot_gaps.append(now - last_state[2])
                last_state = (state["match_id"], state["version"], now)
                if view.get("phase") == "match_over":
                    if self.host:
                        self.waiting.set()
                        await self.go.wait()
                        await self.http.post(f"/api/rooms/{self.code}/start")
                    continue
                legal = state["legal"].get(str(self.seat)) or []
                key = (state["match_id"], state["version"])
                if legal and pending is None and key not in acted:
                    self.waiting.set()
                    await self.go.wait()
                    if self.limit is not None and self.moves >= self.limit:
                        self.spent.set()
                        await asyncio.Event().wait()  # done: the table stays open, idle
                    self.moves += 1
                    acted.add(key)
                    action = legal[0] if self.first_legal else self.rng.choice(legal)
                    pending = (state["version"], time.perf_counter())
                    await ws.send(
                        json.dumps(
                            {"type": "action", "match_id": state["match_id"], "seat": self.seat,
                             "version": state["version"], "action": action}
                        )
                    )  # fmt: skip


async def committed(libpq: str) -> int:
    async with await psycopg.AsyncConnection.connect(libpq) as conn:
        row = await (await conn.execute("SELECT coalesce(sum(version), 0) FROM matches")).fetchone()
        return int(row[0]) if row else 0


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ---- the echo clients -------------------------------------------------------------------------
async def echo_phase(url: str, clients: int, seconds: float) -> list[float]:
    latencies: list[float] = []
    payload = json.dumps({"type": "action", "match_id": 1, "seat": 0, "version": 12,
                          "action": {"type": "play", "cards": ["H5"]}})  # fmt: skip
    stop = time.perf_counter() + seconds

    async def client() -> None:
        async with websockets.connect(url) as ws:
            while time.perf_counter() < stop:
                start = time.perf_counter()
                await ws.send(payload)
                await ws.recv()
                latencies.append(time.perf_counter() - start)

    await asyncio.gather(*(client() for _ in range(clients)))
    return latencies


# ---- phases -----------------------------------------------------------------------------------
@dataclass
class Result:
    tables: int
    actions_per_s: list[float] = field(default_factory=list)
    human: list[float] = field(default_factory=list)
    echo: list[float] = field(default_factory=list)
    memory_kb_per_table: float = 0.0
    bot_gaps: list[float] = field(default_factory=list)
    timeline: list[tuple[int, float, float, int]] = field(default_factory=list)
    """(round, seconds since the round began, human latency in seconds, table) per timed action."""
    people: int = 1
    server_ms: list[float] = field(default_factory=list)
    """Server CPU ms per committed action, per round (the app process and its children)."""
    postgres_ms: list[float] = field(default_factory=list)
    """PostgreSQL CPU ms per committed action, per round (the postmaster and its backends)."""
    echo_ms: list[float] = field(default_factory=list)
    """The echo server's CPU ms per message echoed, per round."""
    loads: list[float] = field(default_factory=list)
    """The one-minute load average at the end of each round."""
    processes: int = 1
    proxy_ms: list[float] = field(default_factory=list)
    """nginx's CPU ms per committed action, per round (--processes: every client goes through it)."""
    states_per_action: list[float] = field(default_factory=list)
    """State messages the people received per committed action, per round (--processes; fewer
    than one per person when a socket was sent one message for several versions)."""


def states_received(humans: list[Human]) -> int:
    """State messages these people's sockets have received so far."""
    return sum(len(human.sizes.raw) for human in humans)


async def app_phase(libpq: str, humans: list[Human], seconds: float) -> tuple[float, list[float]]:
    for human in humans:
        human.latencies.clear()
        human.received.clear()
        human.bot_gaps.clear()
    before, start = await committed(libpq), time.perf_counter()
    for human in humans:
        human.started = start
    # The tables begin one by one over the round's first STAGGER * T seconds, in a fixed
    # random order: with every one of them answering at the same instant, the round began with
    # one burst of T moves (and their bots' replies) whose queue was most of its tail.
    order = [[h, *h.mates] for h in humans if h.host]
    random.Random(len(order)).shuffle(order)
    for table in order:
        for human in table:
            human.active = True
        await asyncio.sleep(STAGGER)
    await asyncio.sleep(max(0.0, seconds - STAGGER * len(order)))
    for human in humans:
        human.active = False
    after, elapsed = await committed(libpq), time.perf_counter() - start
    await asyncio.sleep(0.5)  # let the bots settle before the echo round
    return (after - before) / elapsed, [x for h in humans for x in h.latencies]


async def start_humans(humans: list[Human]) -> list[asyncio.Task[None]]:
    """Set up each human's room (ten at a time), connect them all and wait until every table
    waits for its person; their playing tasks.

    Timing starts only then: T sockets connecting at once (each reads its session and room,
    writes its presence and gets its first state) and T matches' bots playing up to the
    person's first turn keep the server busy for a while, and actions sent meanwhile wait
    behind that backlog (at 50 tables the first ~0.4 s gave 300-400 ms latencies, the whole
    tail of the first round), which is the cost of the benchmark's own setup, not of play."""
    for chunk in range(0, len(humans), 10):
        await asyncio.gather(*(h.setup() for h in humans[chunk : chunk + 10]))
    tasks = [asyncio.create_task(h.run()) for h in humans]
    # Sockets open two at a time (app/routes/ws.py OPENING_SLOTS): 800 of them take minutes on a
    # busy machine.
    patience = max(60.0, 0.5 * len(humans))
    await asyncio.wait_for(asyncio.gather(*(h.ready.wait() for h in humans)), patience)
    await asyncio.wait_for(asyncio.gather(*(h.waiting.wait() for h in humans)), patience)
    await asyncio.sleep(0.5)  # the last first states and room events go out
    return tasks


def seat_people(base: str, game: str, seed: int, people: int) -> list[Human]:
    """One table's people: a host in seat 0 and `people - 1` mates in the next seats, all
    playing the first legal action and sharing one `waiting` event (the table waits for any of
    them). With one person, the person-and-bots table of the default mode."""
    host = Human(base, game, seed=seed)
    if people <= 1:
        return [host]
    host.first_legal = True
    host.mates = [Human(base, game, seed=seed, seat=n, host=False) for n in range(1, people)]
    for mate in host.mates:
        mate.first_legal = True
        mate.waiting = host.waiting
    return [host, *host.mates]


async def open_tables(
    procs: Processes, game: str, tables: int, seed: int, people: int = 1
) -> tuple[list[Human], list[asyncio.Task[None]]]:
    humans = [h for i in range(tables) for h in seat_people(procs.app_url, game, seed + i, people)]
    return humans, await start_humans(humans)


async def close_tables(humans: Iterable[Human], tasks: list[asyncio.Task[None]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for human in humans:
        await human.http.aclose()


async def run_tables(
    procs: Processes,
    tables: int,
    seconds: float,
    rounds: int,
    game: str,
    profile: str | None = None,
    people: int = 1,
) -> Result:
    result = Result(tables, people=people)
    rss_before = rss_kb(procs.app.pid)
    humans, tasks = await open_tables(procs, game, tables, seed=tables * 1000, people=people)
    try:
        for round_no in range(rounds):
            profiler = None
            if profile and round_no == 0 and procs.cpu_profile is None:
                profiler = subprocess.Popen(
                    [str(Path(sys.executable).parent / "py-spy"), "record", "-p", str(procs.app.pid),
                     "-o", profile, "-d", str(max(1, int(seconds / rounds))), "-r", "200",
                     "--format", "raw" if profile.endswith(".txt") else "flamegraph"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )  # fmt: skip
            moves, server, postgres = (
                await committed(procs.libpq),
                tree_cpu_seconds(procs.app.pid),
                tree_cpu_seconds(procs.pg_pid),
            )
            procs.cpu_profiling(profile is not None and round_no == 0)
            rate, lat = await app_phase(procs.libpq, humans, seconds / rounds)
            if profile is not None and round_no == 0:
                procs.cpu_profiling(False)
            moves = await committed(procs.libpq) - moves
            result.server_ms.append((tree_cpu_seconds(procs.app.pid) - server) * 1e3 / max(1, moves))
            result.postgres_ms.append((tree_cpu_seconds(procs.pg_pid) - postgres) * 1e3 / max(1, moves))
            result.timeline.extend(
                (round_no, at - h.started, latency, table)
                for table, h in enumerate(humans)
                for at, latency in zip(h.received, h.latencies, strict=True)
            )
            if profiler is not None:
                profiler.wait(timeout=60)
            result.actions_per_s.append(rate)
            result.human.extend(lat)
            result.bot_gaps.extend(gap for h in humans for gap in h.bot_gaps)
            echo_cpu = cpu_seconds(procs.echo.pid)
            echoed = await echo_phase(procs.echo_url, len(humans), seconds / rounds)
            result.echo_ms.append((cpu_seconds(procs.echo.pid) - echo_cpu) * 1e3 / max(1, len(echoed)))
            result.echo.extend(echoed)
            result.loads.append(os.getloadavg()[0])
        result.memory_kb_per_table = (rss_kb(procs.app.pid) - rss_before) / tables
    finally:
        await close_tables(humans, tasks)
    return result


async def run_paced(procs: Processes, tables: int, seconds: float, rounds: int, game: str) -> list[Result]:
    """T strong-bot tables against T basic-bot tables on the same server at the same pace, in
    alternating rounds (only one kind plays at a time), so both see the same machine load: the
    basic tables are the control for what the machine's own noise does to the human's p99."""
    kinds = ("strong", "basic")
    results = [Result(tables) for _ in kinds]
    humans = {
        kind: [Human(procs.app_url, game, seed=tables * 1000 + i, level=kind) for i in range(tables)]
        for kind in kinds
    }
    everyone = [h for group in humans.values() for h in group]
    tasks = await start_humans(everyone)
    seats = GAME_SEATS.get(game, GAMES[game].min_players)
    try:
        for _ in range(rounds):
            for kind, result in zip(kinds, results, strict=True):
                rate, lat = await app_phase(procs.libpq, humans[kind], seconds / rounds)
                result.actions_per_s.append(rate)
                result.human.extend(lat)
                result.bot_gaps.extend(gap for h in humans[kind] for gap in h.bot_gaps)
                await asyncio.sleep(STRONG_DELAY * (seats - 1))  # the idle tables' bots finish
    finally:
        await close_tables(everyone, tasks)
    return results


def placement(humans: list[Human], ports: list[int]) -> str:
    """How each table's sockets were spread over the processes, e.g. `2+2: 49 tables, 3+1: 1
    table` (the counts per process, largest first): the process each socket reached, as nginx
    named it in the handshake's answer."""
    tables: dict[str, int] = defaultdict(int)
    for host in (h for h in humans if h.host):
        table = [host, *host.mates]
        counts = sorted((sum(h.upstream == f"127.0.0.1:{p}" for h in table) for p in ports), reverse=True)
        unknown = sum(h.upstream not in {f"127.0.0.1:{p}" for p in ports} for h in table)
        tables["+".join(map(str, counts)) + (f" (+{unknown} unplaced)" if unknown else "")] += 1
    return ", ".join(
        f"{k}: {n} table{'s' * (n != 1)}" for k, n in sorted(tables.items(), key=lambda x: -x[1])
    )


async def run_compared(
    compared: Compared, tables: int, seconds: float, rounds: int, game: str, people: int, profile: bool
) -> list[Result]:
    """The same T tables on each deployment, in alternating rounds (one deployment plays while
    the others' tables wait), so each sees the same machine load; every client goes through that
    deployment's nginx, which places the sockets as it does in production. Per round: server CPU
    (every app process of the deployment with its children), PostgreSQL's and nginx's CPU per
    committed action. With `profile`, each app process's CPU profile of the first round."""
    results = [Result(tables, people=people, processes=len(d.apps)) for d in compared.deployments]
    opened: list[tuple[list[Human], list[asyncio.Task[None]]]] = []
    try:
        for deployment in compared.deployments:
            humans = [
                h for i in range(tables) for h in seat_people(deployment.url, game, tables * 1000 + i, people)
            ]
            opened.append((humans, []))
            opened[-1][1].extend(await start_humans(humans))
            sockets = await deployment.connected_sockets()
            print(
                f"{deployment.name} ({len(deployment.apps)} process{'es' * (len(deployment.apps) > 1)}), "
                f"{people} people x {tables} tables: sockets per process {sockets}; per table "
                f"{placement(humans, deployment.ports)}",
                file=sys.stderr,
            )
        for round_no in range(rounds):
            for deployment, (humans, _), result in zip(compared.deployments, opened, results, strict=True):
                moves, server, proxy, postgres = (
                    await committed(compared.libpq),
                    deployment.server_cpu(),
                    deployment.proxy_cpu(),
                    tree_cpu_seconds(compared.pg_pid),
                )
                states = states_received(humans)
                deployment.cpu_profiling(profile and round_no == 0)
                rate, lat = await app_phase(compared.libpq, humans, seconds / rounds)
                if profile and round_no == 0:
                    deployment.cpu_profiling(False)
                moves = max(1, await committed(compared.libpq) - moves)
                result.server_ms.append((deployment.server_cpu() - server) * 1e3 / moves)
                result.proxy_ms.append((deployment.proxy_cpu() - proxy) * 1e3 / moves)
                result.postgres_ms.append((tree_cpu_seconds(compared.pg_pid) - postgres) * 1e3 / moves)
                result.states_per_action.append((states_received(humans) - states) / moves)
                result.actions_per_s.append(rate)
                result.human.extend(lat)
                result.loads.append(os.getloadavg()[0])
    finally:
        for humans, tasks in opened:
            await close_tables(humans, tasks)
    return results


def report_compared(results: list[Result]) -> None:
    """Per deployment: throughput, latency and CPU per committed action; per T and people, the
    several processes' server CPU per action against the one process's, round by round."""
    load = os.getloadavg()
    print(
        f"one process (in-process bus) against several (CARDTABLE_PUBSUB=postgres), each behind nginx "
        f"running the shipped site, one database, alternating rounds; load average at the end: "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cores)"
    )
    print("people | tables | processes | committed actions/s (per round) | human p50 / p99 ms | "
          "server CPU ms per action (per round) | PostgreSQL CPU ms per action (per round) | "
          "nginx CPU ms per action | states received per action | load average per round")  # fmt: skip
    for r in results:

        def rounds(values: list[float]) -> str:
            return f"{statistics.mean(values):5.3f} ({', '.join(f'{x:.3f}' for x in values)})"

        print(
            f"{r.people:6d} | {r.tables:6d} | {r.processes:9d} | {statistics.mean(r.actions_per_s):7.0f} "
            f"({', '.join(f'{x:.0f}' for x in r.actions_per_s)}) | {pct(r.human, 0.5) * 1e3:7.2f} / "
            f"{pct(r.human, 0.99) * 1e3:7.2f} | {rounds(r.server_ms)} | {rounds(r.postgres_ms)} | "
            f"{rounds(r.proxy_ms)} | {rounds(r.states_per_action)} | {', '.join(f'{x:.2f}' for x in r.loads)}"
        )
    for one, several in zip(results[::2], results[1::2], strict=True):
        per_round = ", ".join(f"{b / a:.2f}" for a, b in zip(one.server_ms, several.server_ms, strict=True))
        with_pg = statistics.mean(several.server_ms) + statistics.mean(several.postgres_ms)
        with_pg /= statistics.mean(one.server_ms) + statistics.mean(one.postgres_ms)
        print(
            f"  {one.people} people x {one.tables} tables: server CPU per action, {several.processes} "
            f"processes / 1: {statistics.mean(several.server_ms) / statistics.mean(one.server_ms):.2f} "
            f"(per round {per_round}); server and PostgreSQL together: {with_pg:.2f}"
        )


async def compare_processes(args: argparse.Namespace, counts: list[int]) -> None:
    """--processes N: every table count and people mode on one process and on N, side by side."""
    people_counts = [int(x) for x in args.people.split(",") if x]
    sockets = max(counts) * max(people_counts)
    results: list[Result] = []
    async with compared_deployments(args.processes, sockets, args.app_root, args.cpu_profile) as compared:
        for tables in counts:
            for people in people_counts:
                largest = tables == max(counts) and people == max(people_counts)
                try:
                    pair = await run_compared(
                        compared, tables, args.seconds, args.rounds, args.game, people,
                        largest and args.cpu_profile is not None,
                    )  # fmt: skip
                except Exception:  # reported, and the rows measured so far are still printed
                    traceback.print_exc()
                    continue
                results.extend(pair)
                print(f"... {people} people x {tables} tables done", file=sys.stderr)
                report_compared(pair)  # as it comes: a later failure keeps it
        for deployment in compared.deployments:
            for app, log in zip(deployment.apps, deployment.logs, strict=True):
                log_errors(log, app)
    report_compared(results)


async def bytes_phase(procs: Processes, seconds: float) -> dict[str, Sizes]:
    """One table per game, played for `seconds`: the bytes its human receives per state."""
    humans = {game: Human(procs.app_url, game, seed=7) for game in GAMES}
    tasks = await start_humans(list(humans.values()))
    for human in humans.values():
        human.active = True
    await asyncio.sleep(seconds)
    await close_tables(humans.values(), tasks)
    return {game: human.sizes for game, human in humans.items()}


def live_heap_kb(game_id: str, tables: int = 20, actions: int = 60) -> float:
    """Python heap per live match as the table service holds it (engine match, legal actions,
    events, encoded hands and the shared snapshot of one seat and the spectators), measured with
    tracemalloc in this process; the server's RSS growth per table also counts its sockets."""
    import gc
    import tracemalloc

    from app.live.tables import LiveMatch
    from app.store.matches import Controller
    from engine import CHANCE
    from engine.bots import bot_action

    game, rng = GAMES[game_id], random.Random(5)
    players = GAME_SEATS.get(game_id, game.min_players)
    gc.collect()
    tracemalloc.start()
    try:
        kept = []
        for n in range(tables):
            match = game.new_match(players, game.default_options(players))
            done = 0
            while not match.is_over and done < actions:
                acting = match.to_act()
                if CHANCE in acting:
                    match.deal_random(rng)
                    continue
                match.apply(acting[0], bot_action(match, acting[0], rng))
                done += 1
            live = LiveMatch(n, n, game, match, {0: Controller("person", 1)}, 0, False)
            live.current_snapshot((0, None))
            kept.append(live)
        gc.collect()
        used, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return used / tables / 1024


async def memory_phase(procs: Processes, game: str, tables: int, seconds: float, actions: int) -> float:
    """RSS per live table at steady state: T tables are opened and played for a while (warming
    the process: pools, caches, allocator arenas), then T more; the second batch's growth divided
    by T is what one more live table costs (its match, socket, room and session state).

    Each person makes `actions` actions (0: plays for `seconds`), so every server compared
    holds matches as far advanced: played for a fixed time, a faster server's matches got
    further (a longer log, more finished hands) and it looked worse for it."""
    humans: list[Human] = []
    tasks: list[asyncio.Task[None]] = []
    rss: list[int] = []
    try:
        for batch in range(2):
            opened, started = await open_tables(procs, game, tables, seed=90_000 + batch * tables)
            humans += opened
            tasks += started
            for human in opened:
                human.limit = actions or None
                human.active = True
            if actions:
                spent = asyncio.gather(*(h.spent.wait() for h in opened))
                try:
                    await asyncio.wait_for(spent, max(180.0, seconds))
                except TimeoutError:  # measured anyway: a table that stalled is still live
                    stuck = [(h.code, h.moves) for h in opened if not h.spent.is_set()]
                    print(f"tables short of their actions (room, actions): {stuck}", file=sys.stderr)
            else:
                await asyncio.sleep(seconds)
            for human in opened:
                human.active = False
            await asyncio.sleep(1.0)  # let the bots settle
            rss.append(rss_kb(procs.app.pid))
            await procs.heap_snapshot()
    finally:
        await close_tables(humans, tasks)
    return (rss[1] - rss[0]) / tables


def report_memory(memory: dict[str, float], tables: int, actions: int) -> None:
    played = f"each person made {actions} actions" if actions else "played for --memory-seconds"
    print(f"server RSS per live table (the second batch of {tables} live tables, after a first batch "
          f"warmed the process; {played}; CARDTABLE_WS_COMPRESSION={Deflate().mode}):")  # fmt: skip
    for game, kb in memory.items():
        print(f"  {game:13s} {kb:7.1f} KB per table, live match heap {live_heap_kb(game):5.1f} KB")


def write_timeline(path: Path, results: list[Result]) -> None:
    """Every timed human action as a JSON line, to see when a tail happens (one stall of every
    table, a burst, or spread over the round)."""
    with path.open("w") as out:
        for r in results:
            for round_no, at, latency, table in r.timeline:
                entry = {"tables": r.tables, "round": round_no, "at_s": round(at, 4),
                         "latency_ms": round(latency * 1e3, 3), "table": table}  # fmt: skip
                out.write(json.dumps(entry) + "\n")


def report(results: list[Result], sizes: dict[str, Sizes]) -> None:
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cores)")
    print("people | tables | committed actions/s (per round) | human p50 / p99 ms | echo p50 / p99 ms | "
          "p50 ratio | p99 ratio | memory/table KB")  # fmt: skip
    for r in results:
        rates = ", ".join(f"{x:.0f}" for x in r.actions_per_s)
        h50, h99 = pct(r.human, 0.5) * 1e3, pct(r.human, 0.99) * 1e3
        e50, e99 = pct(r.echo, 0.5) * 1e3, pct(r.echo, 0.99) * 1e3
        print(
            f"{r.people:6d} | {r.tables:6d} | {statistics.mean(r.actions_per_s):7.0f} ({rates}) | "
            f"{h50:7.2f} / {h99:7.2f} | {e50:6.2f} / {e99:6.2f} | {h50 / e50:6.1f} | {h99 / e99:6.1f} | "
            f"{r.memory_kb_per_table:6.1f}"
        )
    print("people | tables | server CPU ms per action (per round) | PostgreSQL CPU ms per action | "
          "echo CPU ms per message | server/echo CPU | load average per round")  # fmt: skip
    for r in results:
        server, postgres, echo = (statistics.mean(x) for x in (r.server_ms, r.postgres_ms, r.echo_ms))
        print(
            f"{r.people:6d} | {r.tables:6d} | {server:5.3f} ({', '.join(f'{x:.3f}' for x in r.server_ms)}) | "
            f"{postgres:5.3f} ({', '.join(f'{x:.3f}' for x in r.postgres_ms)}) | {echo:5.3f} | "
            f"{server / echo if echo else float('nan'):5.1f} | {', '.join(f'{x:.2f}' for x in r.loads)}"
        )
    for r in results:
        rounds = sorted({entry[0] for entry in r.timeline})
        per_round = ", ".join(
            f"{pct([e[2] for e in r.timeline if e[0] == n], 0.99) * 1e3:.1f}" for n in rounds
        )
        print(f"  {r.people} people x {r.tables} tables: human p99 per round {per_round} ms")
    if sizes:
        print("game | state messages | JSON bytes median / max | deflated median / max | "
              "median JSON bytes by hand number | live match heap KB")  # fmt: skip
        for game, s in sizes.items():
            if not s.raw:
                print(f"{game} | no messages")
                continue
            by_hand = " ".join(
                f"{n}:{statistics.median(v):.0f}" for n, v in sorted(s.by_hand.items()) if n > 0
            )
            heap = live_heap_kb(game)
            print(
                f"{game} | {len(s.raw)} | {statistics.median(s.raw):.0f} / {max(s.raw)} | "
                f"{statistics.median(s.deflated):.0f} / {max(s.deflated)} | {by_hand} | {heap:.1f}"
            )


def report_strong(results: list[tuple[Result, Result]]) -> None:
    """The strong-bot figure: human latency and bot pace per T (strong, and the basic control at
    the same pace), and the T one process holds."""
    load = os.getloadavg()
    print(
        f"bots at the default pace (CARDTABLE_BOT_DELAY={STRONG_DELAY}), strong vs basic control in "
        f"alternating rounds; load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print("tables | bots   | committed actions/s | human p50 / p99 ms (actions) | "
          "bot move every p50 / p90 s | human p99 <= 100 ms")  # fmt: skip
    held = 0
    for strong, control in results:
        for kind, r in (("strong", strong), ("basic", control)):
            h50, h99 = pct(r.human, 0.5) * 1e3, pct(r.human, 0.99) * 1e3
            b50, b90 = pct(r.bot_gaps, 0.5), pct(r.bot_gaps, 0.9)
            ok = bool(r.human) and h99 <= HOLD_P99 * 1e3
            verdict = "yes" if ok else "no"
            if ok and kind == "strong":
                held = max(held, r.tables)
            print(
                f"{r.tables:6d} | {kind:6s} | {statistics.mean(r.actions_per_s):7.1f} | "
                f"{h50:7.2f} / {h99:7.2f} ({len(r.human)}) | {b50:5.2f} / {b90:5.2f} | {verdict}"
            )
    print(f"strong-bot tables one process holds with human p99 <= 100 ms: {held} (largest T tried that did)")


def server_errors(procs: Processes) -> None:
    log_errors(procs.log, procs.app)


def log_errors(log: Path, app: subprocess.Popen[bytes]) -> None:
    """Print a server's last logged errors, or that it died."""
    errors = [line for line in log.read_text(errors="replace").splitlines() if "ERROR" in line]
    if errors or app.poll() is not None:
        print("server errors:", *errors[-20:], sep="\n", file=sys.stderr)


STORM_ROOM_SOCKETS = 10


async def guests(procs: Processes, game: str, sockets: int) -> tuple[list[str], list[str]]:
    """Rooms for `sockets` people, STORM_ROOM_SOCKETS to a room, and a session per person:
    (the rooms' codes, the sessions' tokens)."""
    codes, tokens = [], []
    async with httpx.AsyncClient(base_url=procs.app_url, timeout=60) as http:
        for n in range(-(-sockets // STORM_ROOM_SOCKETS)):
            http.cookies.clear()
            await http.post("/api/people", json={"name": f"Host {n}"})
            room = await http.post("/api/rooms", json={"game_id": game, "seats": 4})
            codes.append(room.json()["code"])
        for n in range(sockets):
            http.cookies.clear()
            person = await http.post("/api/people", json={"name": f"Guest {n}"})
            tokens.append(person.cookies["session"])
    return codes, tokens


async def join(procs: Processes, token: str, code: str, connected: list[str]) -> None:
    """One person's socket to a room: noted in `connected` once its first message came, then
    open (and reading) until cancelled."""
    url = procs.app_url.replace("http", "ws", 1) + f"/ws/rooms/{code}"
    async with websockets.connect(
        url, additional_headers={"Cookie": f"session={token}"}, max_size=None, open_timeout=120
    ) as ws:
        await ws.recv()
        connected.append(token)
        async for _ in ws:
            pass


async def idle_phase(procs: Processes, sockets: int, game: str) -> tuple[float, float]:
    """(server RSS KB per idle connected socket, seconds the joins took): `sockets` people
    connect to rooms of their own, ten to a room, fifty at a time, and stay idle; the server's
    RSS growth from before the first socket to a second after the last, divided by `sockets`."""
    codes, tokens = await guests(procs, game, sockets)
    connected: list[str] = []
    joiners: list[asyncio.Task[None]] = []
    await asyncio.sleep(1.0)
    before, started = rss_kb(procs.app.pid), time.perf_counter()
    try:
        for n, token in enumerate(tokens):
            joiners.append(asyncio.create_task(join(procs, token, codes[n // STORM_ROOM_SOCKETS], connected)))
            if n % 50 == 49:
                while len(connected) < n + 1 and time.perf_counter() - started < 120:
                    await asyncio.sleep(0.05)
        while len(connected) < sockets and time.perf_counter() - started < 300:
            await asyncio.sleep(0.1)
        took = time.perf_counter() - started
        await asyncio.sleep(1.0)
        return (rss_kb(procs.app.pid) - before) / max(1, len(connected)), took
    finally:
        for task in joiners:
            task.cancel()
        await asyncio.gather(*joiners, return_exceptions=True)


async def storm_phase(
    procs: Processes, tables: int, sockets: int, seconds: float, game: str, profile: str | None = None
) -> tuple[list[float], list[float], float, tuple[float, float]]:
    """(latencies of a quiet round, latencies during the storm, seconds the joins took, the
    server's CPU seconds per second in each round: near 1, its one event loop is saturated); with
    `profile`, a py-spy profile of the server during the storm."""
    humans, tasks = await open_tables(procs, game, tables, seed=7000)
    joiners: list[asyncio.Task[None]] = []
    try:
        codes, tokens = await guests(procs, game, sockets)
        cpu, clock = cpu_seconds(procs.app.pid), time.perf_counter()
        _, quiet = await app_phase(procs.libpq, humans, seconds / 2)
        quiet_cpu = (cpu_seconds(procs.app.pid) - cpu) / (time.perf_counter() - clock)
        connected: list[str] = []

        async def storm() -> float:
            started = time.perf_counter()
            if profile:
                subprocess.Popen(
                    [str(Path(sys.executable).parent / "py-spy"), "record", "-p", str(procs.app.pid),
                     "-o", profile, "-d", str(int(seconds)), "-r", "100",
                     "--format", "raw" if profile.endswith(".txt") else "flamegraph"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )  # fmt: skip
            for n, token in enumerate(tokens):
                joiners.append(
                    asyncio.create_task(join(procs, token, codes[n // STORM_ROOM_SOCKETS], connected))
                )
                await asyncio.sleep(seconds / sockets)
            while len(connected) < sockets and time.perf_counter() - started < seconds * 4:
                await asyncio.sleep(0.1)
            return time.perf_counter() - started

        cpu, clock = cpu_seconds(procs.app.pid), time.perf_counter()
        (_, stormy), took = await asyncio.gather(app_phase(procs.libpq, humans, seconds + 2), storm())
        storm_cpu = (cpu_seconds(procs.app.pid) - cpu) / (time.perf_counter() - clock)
        return quiet, stormy, took, (quiet_cpu, storm_cpu)
    finally:
        for task in joiners:
            task.cancel()
        await asyncio.gather(*joiners, return_exceptions=True)
        await close_tables(humans, tasks)


def report_storm(
    tables: int, sockets: int, quiet: list[float], stormy: list[float], took: float, cpu: tuple[float, float]
) -> None:
    print(f"\n{tables} playing tables, {sockets} sockets joining (took {took:.1f} s):")
    for name, values, used in (("quiet", quiet, cpu[0]), ("storm", stormy, cpu[1])):
        ms = [v * 1000 for v in values]
        print(
            f"  {name}: {len(ms)} actions, p50 {pct(ms, 0.5):.0f} ms, p99 {pct(ms, 0.99):.0f} ms, "
            f"max {max(ms, default=float('nan')):.0f} ms; server CPU {used:.2f} s/s"
        )


async def main_async(args: argparse.Namespace) -> None:
    counts = [int(x) for x in args.tables.split(",") if x]
    results: list[Result] = []
    sizes: dict[str, Sizes] = {}
    if args.processes > 1 and counts:
        await compare_processes(args, counts)
        counts = []  # the phases below run on one process, as without --processes
    if counts or args.bytes_seconds > 0:
        async with processes(args.port_base, args.app_root, cpu_profile=args.cpu_profile) as procs:
            people_counts = [int(x) for x in args.people.split(",") if x]
            for tables in counts:
                for people in people_counts:
                    largest = tables == max(counts) and people == max(people_counts)
                    profile = str(args.profile or args.cpu_profile or "") if largest else ""
                    try:
                        results.append(
                            await run_tables(
                                procs, tables, args.seconds, args.rounds, args.game, profile or None, people
                            )
                        )
                    except Exception:  # reported, and the rows measured so far are still printed
                        traceback.print_exc()
                        continue
                    print(f"... {people} people x {tables} tables done", file=sys.stderr)
                    report([results[-1]], {})  # as it comes: a later failure keeps it
            sizes = await bytes_phase(procs, args.bytes_seconds) if args.bytes_seconds > 0 else {}
            server_errors(procs)
        report(results, sizes)
        if args.latency_log is not None:
            write_timeline(args.latency_log, results)
    if args.memory_tables > 0:
        memory: dict[str, float] = {}
        for game in args.memory_games.split(","):
            trace = args.trace_heap / game if args.trace_heap else None
            async with processes(args.port_base, args.app_root, trace_heap=trace) as procs:
                memory[game] = await memory_phase(
                    procs, game, args.memory_tables, args.memory_seconds, args.memory_actions
                )
                server_errors(procs)
            print(f"... memory of {game} tables done", file=sys.stderr)
        report_memory(memory, args.memory_tables, args.memory_actions)
    if args.storm_sockets > 0:
        async with processes(args.port_base, args.app_root) as procs:
            quiet, stormy, took, cpu = await storm_phase(
                procs, args.storm_tables, args.storm_sockets, args.storm_seconds, args.game, args.profile
            )
            server_errors(procs)
        report_storm(args.storm_tables, args.storm_sockets, quiet, stormy, took, cpu)
    if args.idle_sockets > 0:
        async with processes(args.port_base, args.app_root) as procs:
            per_socket, took = await idle_phase(procs, args.idle_sockets, args.game)
            server_errors(procs)
        load = os.getloadavg()
        print(
            f"\n{args.idle_sockets} idle connected sockets (joined in {took:.1f} s): server RSS "
            f"{per_socket:.1f} KB per socket; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
        )
    strong_counts = [int(x) for x in args.strong_tables.split(",") if x]
    if strong_counts:
        strong: list[tuple[Result, Result]] = []
        async with processes(args.port_base, args.app_root, STRONG_BOTS) as procs:
            for tables in strong_counts:
                pair = await run_paced(procs, tables, args.seconds, args.rounds, args.game)
                strong.append((pair[0], pair[1]))
                print(f"... {tables} strong-bot tables done", file=sys.stderr)
            server_errors(procs)
        report_strong(strong)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", default="1,10,50", help="comma-separated table counts")
    parser.add_argument("--seconds", type=float, default=20, help="app time per table count (echo: the same)")
    parser.add_argument("--rounds", type=int, default=2, help="app/echo alternations per table count")
    parser.add_argument("--game", default="holy-grail", choices=sorted(GAMES))
    parser.add_argument(
        "--people",
        default="1",
        help="people per table, comma-separated modes (1: a person and bots; 4: every seat a person "
        "playing its first legal action)",
    )
    parser.add_argument(
        "--bytes-seconds", type=float, default=20, help="per-game message size phase (0: skip)"
    )
    parser.add_argument(
        "--strong-tables",
        default="",
        help="comma-separated table counts for the strong-bot figure (a second server; empty: skip)",
    )
    parser.add_argument("--memory-tables", type=int, default=0, help="live tables per batch (RSS per table)")
    parser.add_argument(
        "--memory-games", default="holy-grail", help="games for --memory-tables, comma-separated"
    )
    parser.add_argument(
        "--memory-actions",
        type=int,
        default=30,
        help="actions each person of a memory batch makes (0: play for --memory-seconds instead)",
    )
    parser.add_argument(
        "--memory-seconds", type=float, default=4, help="a memory batch's play time with --memory-actions 0"
    )
    parser.add_argument(
        "--idle-sockets", type=int, default=0, help="idle connected sockets: RSS per socket (0: skip)"
    )
    parser.add_argument("--storm-sockets", type=int, default=0, help="sockets joining in the storm (0: skip)")
    parser.add_argument("--storm-tables", type=int, default=10, help="tables playing through the storm")
    parser.add_argument("--storm-seconds", type=float, default=30, help="seconds over which the storm joins")
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="with N > 1, the table counts run on one process and on N (CARDTABLE_PUBSUB=postgres) "
        "on one database, each behind nginx with the shipped site, in alternating rounds",
    )
    parser.add_argument("--port-base", type=int, default=None, help="app on this port, echo on the next")
    parser.add_argument(
        "--profile", default=None, help="py-spy profile of the largest T, or of the storm (.txt: stacks)"
    )
    parser.add_argument(
        "--cpu-profile",
        type=Path,
        default=None,
        help="sample the server by its CPU time (bench/cpu_server.py) and write the first round "
        "of the largest T (and the most people) to this file as collapsed stacks",
    )
    parser.add_argument(
        "--latency-log",
        type=Path,
        default=None,
        help="write each timed human action (table count, round, seconds into it, latency) as JSON lines",
    )
    parser.add_argument(
        "--app-root",
        type=Path,
        default=None,
        help="serve another checkout (with its own .venv), e.g. a baseline",
    )
    parser.add_argument(
        "--trace-heap",
        type=Path,
        default=None,
        help="memory phase: serve under tracemalloc and write heap snapshots per game into this "
        "folder at each RSS sample (bench/heap_server.py; compare with bench/heap_diff.py)",
    )
    parser.add_argument("--serve-echo", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_echo is not None:
        serve_echo(args.serve_echo)
        return
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
