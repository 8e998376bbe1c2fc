"""Strong bots think in worker processes, so a search never holds up the server's event loop.

A strong decision searches for up to its budget (0.2 s by default) of pure CPU; in the event
loop that would freeze every table of the process, and in a thread it would still hold the GIL.
So `BotPool` sends each decision to a `ProcessPoolExecutor` of `CARDTABLE_BOT_WORKERS`
processes (started at the first strong decision, in a thread, by a `forkserver` that has
imported the engine once: no worker inherits the server's sockets or threads, and none is
started from the event loop).

A worker outlives nothing: it watches its server's process (a pidfd) and exits as soon as the
server is gone, even when the server died by SIGKILL or the out-of-memory killer and never shut
the pool down. Each worker holds the write end of the pool's job queue and the forkserver's
"alive" pipe, so a worker blocked on its next job would otherwise wait forever, and with it the
forkserver and the resource tracker (4 processes and 50-100 MB per crash); once the workers are
gone those two see their pipes close and exit by themselves.

What travels: the match's id, game, player count, options and log, not the pickled match.
Measured on this machine (load ~7) for logs of 200-400 actions: pickling the log costs the
event loop 0.07-0.25 ms against 0.13-0.56 ms for the pickled match (which the worker then
needs 0.14-0.51 ms to unpickle). Each worker keeps the matches it has seen and applies only the
actions it has not (a full replay, 3-5 ms, only when it meets a match for the first time or
the log is not an extension of its copy), so the log is the cheaper message on both sides.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import random
import select
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from engine import Match, get_game
from engine.bots import bot_action, suggestion

log = logging.getLogger(__name__)

WORKER_NICENESS = 10
"""Workers run at a lower CPU priority than the server, so when searches fill the cores the
event loop (people's actions, every table's messages) is still served first."""

DECISION_TIMEOUT = 10.0
"""Seconds a decision may take in the workers, queueing included (a search stops itself at
0.5 s). A worker that has not answered by then is taken as stuck: the pool's processes are
killed, every decision waiting on them is played by the basic bot, and the next one starts a
fresh pool, so no table waits on a stuck worker."""
WORKER_MATCHES = 64
"""Matches each worker keeps between decisions (least recently used ones are dropped)."""

_cache: OrderedDict[int, Match] = OrderedDict()
"""Per worker process: match id -> the worker's copy of that match."""


def _exit_with(server_pid: int) -> None:
    """Exit this worker as soon as process `server_pid` has ended, however it ended."""
    try:
        server = os.pidfd_open(server_pid)
    except ProcessLookupError:
        os._exit(0)

    def watch() -> None:
        select.select([server], [], [])  # a pidfd turns readable when its process has exited
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-server", daemon=True).start()


def prepare_worker(server_pid: int, niceness: int, own_group: bool = False) -> None:
    """Tie this worker's life to its server's; lower its priority to `niceness`; import every
    game once, before the first real job.

    With `own_group` the worker also leaves the server's session for one of its own, whose
    scheduling group (Linux's autogroup, one per session) it gives the same niceness: a niceness
    only ranks tasks inside one group, and the machine's CPU is shared between groups, so a
    busy worker in the server's group was charged to the server's share (bench/analysis_load.py:
    a review running cost live tables a third of their throughput on a loaded machine)."""
    from engine import GAMES

    _exit_with(server_pid)
    if os.nice(0) < niceness:
        os.nice(niceness - os.nice(0))
    if own_group:
        os.setsid()
        with contextlib.suppress(OSError):  # no autogroups (a kernel without them): nothing to do
            Path("/proc/self/autogroup").write_text(str(niceness))

    for game in GAMES.values():
        game.new_match(game.min_players)


FORKSERVER_PRELOAD = ["app.live.bot_pool", "app.live.review_worker"]
"""What the forkserver imports once for every worker it forks. A process has one forkserver,
started with the first pool (bots' or reviews'), so it preloads what the workers of both run:
this module and app/live/review_worker.py, not the server's side of reviews (app/live/reviews.py,
with SQLAlchemy and the metrics)."""


def start_workers(workers: int, niceness: int, own_group: bool = False) -> ProcessPoolExecutor:
    """Runs in a thread: a pool of `workers` processes forked by the forkserver, every one started
    before this returns, each at `niceness` (in a scheduling group of its own with `own_group`)
    and ending with this process (`prepare_worker`, run before its first job)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(FORKSERVER_PRELOAD)
    executor = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=prepare_worker,
        initargs=(os.getpid(), niceness, own_group),
    )
    for started in [executor.submit(os.getpid) for _ in range(workers)]:
        started.result()  # each submit finds no idle worker and starts one
    return executor


def kill_workers(executor: ProcessPoolExecutor) -> None:
    """End a pool's processes now, busy or not (Python 3.11's executor has no public way to do it,
    hence its process table), and let the executor go."""
    for process in list(getattr(executor, "_processes", {}).values()):
        process.kill()
    executor.shutdown(wait=False, cancel_futures=True)


def _match_for(
    match_id: int, game_id: str, players: int, options: Any, log: list[tuple[int, dict[str, Any]]]
) -> Match:
    """This worker's copy of the match at `log`: its cached copy brought up to date when the log
    extends it, else a replay."""
    match = _cache.pop(match_id, None)
    if match is not None:
        known = len(match.log)
        if known > len(log) or match.game.id != game_id or match.log != log[:known]:
            match = None
    if match is None:
        match = get_game(game_id).new_match(players, options)
    for seat, action in log[len(match.log) :]:
        match.apply(seat, action)
    _cache[match_id] = match
    while len(_cache) > WORKER_MATCHES:
        _cache.popitem(last=False)
    return match


def think(
    match_id: int,
    game_id: str,
    players: int,
    options: Any,
    log: list[tuple[int, dict[str, Any]]],
    seat: int,
    seed: int,
    budget: float,
) -> dict[str, Any]:
    """Runs in a worker: the strong bot's action for `seat` of the match at `log`."""
    match = _match_for(match_id, game_id, players, options, log)
    return bot_action(match, seat, random.Random(seed), level="strong", budget=budget)


def suggest(
    match_id: int,
    game_id: str,
    players: int,
    options: Any,
    log: list[tuple[int, dict[str, Any]]],
    seat: int,
    seed: int,
    budget: float,
) -> list[dict[str, Any]]:
    """Runs in a worker: a hint for `seat` of the match at `log`, the strong bot's choice from
    that seat's knowledge (engine/bots.py `suggestion`; the match itself is not changed)."""
    match = _match_for(match_id, game_id, players, options, log)
    return suggestion(match, seat, random.Random(seed), budget=budget)


class BotPool:
    """The worker processes of one server process, started (off the event loop) at the first
    strong decision: a process start costs the caller's thread tens of milliseconds."""

    def __init__(self, workers: int, budget: float, timeout: float = DECISION_TIMEOUT) -> None:
        self.workers = workers
        self.budget = budget
        self.timeout = timeout
        self._starting: asyncio.Future[ProcessPoolExecutor] | None = None
        self.sent = 0
        """Decisions sent to the workers so far (tests and operators read it)."""

    def _start(self) -> ProcessPoolExecutor:
        """Runs in a thread: every worker forked before the first decision is sent."""
        return start_workers(self.workers, WORKER_NICENESS)

    async def _executor(self) -> ProcessPoolExecutor:
        if self._starting is None:
            self._starting = asyncio.ensure_future(asyncio.to_thread(self._start))
        return await asyncio.shield(self._starting)

    def decide(self, match_id: int, match: Match, seat: int, seed: int) -> asyncio.Future[dict[str, Any]]:
        """The strong bot's action for `seat` of the match as it is now, thought out in a worker.
        The log is copied before this returns, so the caller may release the match at once."""
        game_id, log = match.game.id, list(match.log)
        args = (match_id, game_id, match.players, match.options, log, seat, seed, self.budget)
        self.sent += 1
        return asyncio.ensure_future(self._think(args))

    async def _think(self, args: tuple[Any, ...]) -> dict[str, Any]:
        return await self._in_worker("a strong bot's", think, args)

    async def _in_worker(self, whose: str, work: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        """`work(*args)` in a worker, within the pool's timeout. A worker that gives no answer in
        time is killed with its pool, and one that died (killed, out of memory) leaves a broken
        pool: either way the next call starts a fresh pool."""
        executor = await self._executor()
        answer = asyncio.get_running_loop().run_in_executor(executor, work, *args)
        try:
            return await asyncio.wait_for(answer, self.timeout)
        except TimeoutError:
            log.warning("%s worker gave no answer in %.1f s: new workers", whose, self.timeout)
            self._retire(executor, kill=True)
            raise
        except BrokenProcessPool:
            self._retire(executor, kill=False)
            raise

    async def suggest(
        self,
        match_id: int,
        game_id: str,
        players: int,
        options: Any,
        entries: list[Any],
        seat: int,
        seed: int,
    ) -> list[dict[str, Any]]:
        """A hint for `seat` of the match whose log is `entries` (app/live/hints.py), thought out
        in a worker as a strong decision is, one budget per action of it."""
        args = (match_id, game_id, players, options, entries, seat, seed, self.budget)
        hint: list[dict[str, Any]] = await self._in_worker("a hint's", suggest, args)
        return hint

    def _retire(self, executor: ProcessPoolExecutor, kill: bool) -> None:
        """Stop using `executor` (if it is still the current pool): the next decision starts a
        fresh one. `kill` ends its processes too, since a stuck worker never ends by itself."""
        starting = self._starting
        if starting is None or not starting.done() or starting.cancelled() or starting.exception():
            return
        if starting.result() is not executor:
            return
        self._starting = None
        if kill:
            kill_workers(executor)
        else:
            executor.shutdown(wait=False, cancel_futures=True)

    async def close(self) -> None:
        starting, self._starting = self._starting, None
        if starting is None:
            return
        try:
            executor = await starting
        except Exception:
            return
        await asyncio.to_thread(executor.shutdown, True, cancel_futures=True)
