"""Live tables while match reviews run: does a review in the background slow the tables?

One server (`python -m app`, basic bots, no bot delay, as bench/load.py runs it) holds T tables,
each a scripted person in seat 0 answering at once (bench/load.py's `Human`) in matches too long
to end during the run, so none of them queues a review. Rounds alternate: in a quiet round
nothing else happens; in a review round the server's analysis worker (the default: one worker,
niceness 19, the default budget) is kept busy by putting the reviews of a few finished one-hand
matches back in the queue as soon as they are done. Per kind of round it prints the person's
latency from action to new state (p50/p99/max), committed actions per second, the server
process's CPU seconds per second (its event loop; the worker is another process), the reviews
finished and their CPU seconds, and the load average.

    .venv/bin/python -m bench.analysis_load                            # 20 tables, 4 rounds of 15 s
    .venv/bin/python -m bench.analysis_load --tables 50 --seconds 20 --rounds 6
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import time

import psycopg

from bench.load import (
    BASIC_BOTS,
    Human,
    Processes,
    app_phase,
    close_tables,
    cpu_seconds,
    pct,
    processes,
    server_errors,
    start_humans,
)

LONG_MATCH = {"hands": 100}
"""The measured tables' matches: longer than any run, so they queue no review of their own."""
SHORT_MATCH = {"hands": 1}
"""The reviewed matches: one hand, played by a person in seat 0 and basic bots."""

REQUEUE = """
WITH again AS (
    UPDATE match_analyses SET status = 'queued', result = NULL, done = 0, total = NULL, attempts = 0,
        owner = NULL, lease_until = NULL, finished_at = NULL
    WHERE status = 'done' AND match_id = ANY(%(matches)s)
    RETURNING match_id
)
SELECT count(*) FROM again
"""
DONE = (
    "SELECT match_id, cpu_seconds FROM match_analyses WHERE status = 'done' AND match_id = ANY(%(matches)s)"
)


async def reviewed_matches(procs: Processes, game: str, count: int) -> list[int]:
    """Ids of `count` finished one-hand matches of a person, their reviews done once."""
    people = [Human(procs.app_url, game, seed=900 + i, options=SHORT_MATCH) for i in range(count)]
    tasks = await start_humans(people)
    for person in people:
        person.active = True
    try:
        async with await psycopg.AsyncConnection.connect(procs.libpq, autocommit=True) as conn:
            while True:  # every person's first match over (they start a second: left unfinished)
                cursor = await conn.execute(
                    "SELECT m.id FROM matches m JOIN rooms r ON r.id = m.room_id"
                    " WHERE m.status = 'finished' AND r.code = ANY(%(codes)s) AND m.number = 1",
                    {"codes": [person.code for person in people]},
                )
                finished = [row[0] for row in await cursor.fetchall()]
                if len(finished) == count:
                    break
                await asyncio.sleep(0.2)
            for person in people:
                person.active = False
            while len(await (await conn.execute(DONE, {"matches": finished})).fetchall()) < count:
                await asyncio.sleep(0.5)
    finally:
        await close_tables(people, tasks)
    return finished


async def keep_reviewing(libpq: str, matches: list[int], cpu: list[float]) -> None:
    """Put each finished review back in the queue (its CPU seconds noted), until cancelled."""
    async with await psycopg.AsyncConnection.connect(libpq, autocommit=True) as conn:
        while True:
            async with conn.transaction():
                done = await (await conn.execute(DONE, {"matches": matches})).fetchall()
                cpu.extend(float(seconds) for _, seconds in done)
                await conn.execute(REQUEUE, {"matches": matches})
            await asyncio.sleep(0.2)


async def measure(args: argparse.Namespace) -> dict[str, dict[str, list[float]]]:
    figures: dict[str, dict[str, list[float]]] = {
        kind: {"latency": [], "rate": [], "cpu": [], "reviews": [], "load": [], "round_p99": []}
        for kind in ("quiet", "reviews")
    }
    settings = {**BASIC_BOTS, "CARDTABLE_ANALYSIS_POLL": "0.2"}
    async with processes(args.port_base, bots=settings) as procs:
        matches = await reviewed_matches(procs, args.game, args.reviewed)
        print(f"... {len(matches)} reviewed matches ready", file=sys.stderr)
        humans = [Human(procs.app_url, args.game, seed=i, options=LONG_MATCH) for i in range(args.tables)]
        tasks = await start_humans(humans)
        try:
            for round_no in range(args.rounds):
                kind = ("quiet", "reviews")[round_no % 2]
                reviewed_cpu: list[float] = []
                requeue = None
                if kind == "reviews":
                    requeue = asyncio.create_task(keep_reviewing(procs.libpq, matches, reviewed_cpu))
                    await asyncio.sleep(1.0)  # the worker has taken a review
                used, clock = cpu_seconds(procs.app.pid), time.perf_counter()
                rate, latencies = await app_phase(procs, humans, args.seconds)
                figures[kind]["cpu"].append(
                    (cpu_seconds(procs.app.pid) - used) / (time.perf_counter() - clock)
                )
                figures[kind]["load"].append(os.getloadavg()[0])
                if requeue is not None:
                    requeue.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await requeue
                    await asyncio.sleep(args.seconds)  # the review under way ends before a quiet round
                figures[kind]["latency"].extend(latencies)
                figures[kind]["round_p99"].append(pct([v * 1000 for v in latencies], 0.99))
                figures[kind]["rate"].append(rate)
                figures[kind]["reviews"].extend(reviewed_cpu)
                print(f"... round {round_no + 1} ({kind}) done", file=sys.stderr)
        finally:
            await close_tables(humans, tasks)
        server_errors(procs)
    return figures


def report(args: argparse.Namespace, figures: dict[str, dict[str, list[float]]]) -> None:
    print(
        f"{args.tables} {args.game} tables (basic bots, no delay), {args.rounds} rounds of"
        f" {args.seconds:.0f} s, one analysis worker at the default budget:"
    )
    for kind, values in figures.items():
        ms = [v * 1000 for v in values["latency"]]
        reviews = values["reviews"]
        cost = f", {sum(reviews) / len(reviews):.1f} CPU s each" if reviews else ""
        print(
            f"  {kind:8s} {len(ms)} actions, p50 {pct(ms, 0.5):.1f} ms, p99 {pct(ms, 0.99):.1f} ms,"
            f" max {max(ms, default=float('nan')):.0f} ms; {sum(values['rate']) / len(values['rate']):.0f}"
            f" actions/s; server CPU {sum(values['cpu']) / len(values['cpu']):.2f} s/s;"
            f" reviews finished {len(reviews)}{cost}; load average {max(values['load']):.1f}"
        )
        print(f"           p99 per round (ms): {', '.join(f'{p99:.0f}' for p99 in values['round_p99'])}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=15, help="seconds per round")
    parser.add_argument("--rounds", type=int, default=4, help="quiet and review rounds, alternating")
    parser.add_argument("--game", default="holy-grail")
    parser.add_argument("--reviewed", type=int, default=2, help="finished matches whose reviews are redone")
    parser.add_argument("--port-base", type=int, default=None)
    args = parser.parse_args()
    report(args, asyncio.run(measure(args)))


if __name__ == "__main__":
    main()
