"""Bot strength benchmark: duplicate hands, strong bot against the basic bot.

Every deal is played twice from the same shuffles (the k-th chance action of both runs comes
from the same seed): once with the test seat played by the `strong` bot, once by the `basic`
bot; the other seats are basic bots in both runs, with the same random streams. The test seat
moves round the table from deal to deal (deal d: seat d mod players), so every position counts.
The score compared is the test seat's score for the hand (in Familia: its team's, which every
seat of the team shows). Per game it prints the mean difference strong − basic per hand with
its standard error, and the sign test: how often strong did better / worse on the same deal,
with the two-sided binomial p-value (ties left out).

    .venv/bin/python -m bench.bots --games holy-grail --deals 20 --budget 0.05   # a quick look
    .venv/bin/python -m bench.bots --deals 400 --workers 2 --time-limit 3600     # idle machine
    .venv/bin/python -m bench.bots --games holy-grail --deals 2000 --clock cpu \
        --seed 7 --time-limit 4000 --report-every 600                          # shared machine

Bounded: `--time-limit` (seconds, default 170) stops the run and reports the deals finished;
`--report-every` also prints the table so far. A deal costs about (the test seat's decisions
with a choice, 9–21 a hand) × budget plus the basic run: 2–5 s of CPU at the default 0.2 s
(Holy Grail and French Tarot, with the most decisions, cost most), so 400 deals of each of the
five games take about an hour on an idle 2-core machine with 2 workers (one worker per core:
the budget is wall-clock time by default, so an overloaded machine weakens the strong bot). On a shared,
loaded machine `--clock cpu` counts the strong bot's budget in its process's CPU time instead
(`time.process_time`), so the bot thinks as much as it would on an idle machine; the table
itself always counts wall-clock time. The header line names the clock and the load averages.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import multiprocessing
import os
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass

from engine import CHANCE, GAMES
from engine.bots import CLOCKS, DEFAULT_BUDGET, bot_action

PLAYERS = 4


@dataclass(frozen=True, slots=True)
class DealResult:
    game_id: str
    deal: int
    strong: float
    basic: float
    searched: int
    seconds: float
    slowest: float  # the longest strong decision of the deal, in seconds


def play_hand(
    game_id: str, seed: int, test_seat: int, level: str, budget: float, clock: str = "wall"
) -> tuple[float, int, float]:
    """One hand from `seed`'s shuffles with `test_seat` at `level`: (its hand score, decisions
    searched, the longest of them in seconds)."""
    game = GAMES[game_id]
    match = game.new_match(PLAYERS, {"hands": 1}, seed=seed)
    seat_rngs = [random.Random(f"{seed}:seat:{s}") for s in range(PLAYERS)]
    chance_count = searched = 0
    slowest = 0.0
    while not match.is_over:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(random.Random(f"{seed}:chance:{chance_count}"))
            chance_count += 1
            continue
        seat_level = level if seat == test_seat else "basic"
        if seat_level == "strong" and len(match.legal_actions(seat)) > 1:
            searched += 1
        started = time.perf_counter()
        action = bot_action(match, seat, seat_rngs[seat], level=seat_level, budget=budget, clock=clock)  # type: ignore[arg-type]
        if seat_level == "strong":
            slowest = max(slowest, time.perf_counter() - started)
        match.apply(seat, action)
    return float(match.hands[0]["scores"][test_seat]), searched, slowest


Task = tuple[str, int, int, float, str]


def play_deal(task: Task) -> DealResult:
    """Both runs of one deal (the worker's job)."""
    game_id, deal, base_seed, budget, clock = task
    seed = base_seed * 1_000_003 + deal
    seat = deal % PLAYERS
    start = time.perf_counter()
    strong, searched, slowest = play_hand(game_id, seed, seat, "strong", budget, clock)
    basic, _, _ = play_hand(game_id, seed, seat, "basic", budget, clock)
    return DealResult(game_id, deal, strong, basic, searched, time.perf_counter() - start, slowest)


def sign_test_p(wins: int, losses: int) -> float:
    """Two-sided exact binomial test of wins against losses at p = 1/2."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(1.0, 2 * tail / 2**n)


def summarize(results: list[DealResult]) -> dict[str, float]:
    diffs = [r.strong - r.basic for r in results]
    n = len(diffs)
    mean = sum(diffs) / n if n else 0.0
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    se = sd / math.sqrt(n) if n else 0.0
    wins = sum(d > 0 for d in diffs)
    losses = sum(d < 0 for d in diffs)
    return {
        "n": n,
        "mean": mean,
        "se": se,
        "z": mean / se if se else 0.0,
        "wins": wins,
        "losses": losses,
        "ties": n - wins - losses,
        "p": sign_test_p(wins, losses),
        "strong": sum(r.strong for r in results) / n if n else 0.0,
        "basic": sum(r.basic for r in results) / n if n else 0.0,
        "searched": sum(r.searched for r in results) / n if n else 0.0,
        "seconds": sum(r.seconds for r in results) / n if n else 0.0,
        "slowest": max((r.slowest for r in results), default=0.0),
    }


def tasks(games: list[str], deals: int, seed: int, budget: float, clock: str = "wall") -> Iterator[Task]:
    """Deals interleaved across games, so a run cut short still covers every game evenly."""
    for deal in range(deals):
        for game_id in games:
            yield game_id, deal, seed, budget, clock


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", nargs="+", default=sorted(GAMES), choices=sorted(GAMES))
    parser.add_argument("--deals", type=int, default=40, help="duplicate deals per game")
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET, help="strong seconds a decision")
    parser.add_argument("--workers", type=int, default=1, help="processes playing deals in parallel")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="count the strong budget in wall-clock time (as at the table) or in the worker's CPU time "
        "(a loaded machine then does not weaken the strong bot)",
    )
    parser.add_argument("--time-limit", type=float, default=170.0, help="stop handing out deals after this")
    parser.add_argument("--jsonl", help="also append every deal's result to this file, one JSON line each")
    parser.add_argument(
        "--summarize",
        nargs="+",
        metavar="JSONL",
        help="play nothing: print the table of the deals saved in these files (runs pooled)",
    )
    parser.add_argument(
        "--report-every", type=float, default=0.0, help="also print the table so far every this many seconds"
    )
    args = parser.parse_args()
    if args.summarize:
        pooled, runs = load_results(args.summarize)
        print(f"pooled from {' '.join(args.summarize)}: {'; '.join(sorted(runs))}", flush=True)
        print_table(args.games, pooled)
        return

    start = time.perf_counter()
    load_start = _load()
    results: dict[str, list[DealResult]] = {g: [] for g in args.games}
    work = tasks(args.games, args.deals, args.seed, args.budget, args.clock)
    cut = False
    last_report = start
    with multiprocessing.Pool(args.workers) as pool:
        pending = pool.imap_unordered(play_deal, work)
        while True:
            left = args.time_limit - (time.perf_counter() - start)
            try:
                result = pending.next(timeout=max(left, 0.001))
            except StopIteration:
                break
            except multiprocessing.TimeoutError:
                cut = True
                pool.terminate()
                break
            results[result.game_id].append(result)
            if args.jsonl:
                with open(args.jsonl, "a", encoding="utf-8") as out:
                    run = {"seed": args.seed, "budget": args.budget, "clock": args.clock}
                    out.write(json.dumps({**dataclasses.asdict(result), **run}) + "\n")
            if args.report_every and time.perf_counter() - last_report >= args.report_every:
                last_report = time.perf_counter()
                report(args, results, last_report - start, "so far", load_start)
    report(args, results, time.perf_counter() - start, "time limit reached" if cut else "", load_start)


RUN_KEYS = ("seed", "budget", "clock")
"""What `--jsonl` saves with every deal besides its result, to tell the pooled runs apart."""


def load_results(paths: list[str]) -> tuple[dict[str, list[DealResult]], set[str]]:
    """Deals saved by `--jsonl` runs, per game (a deal saved twice counts once), and the runs'
    settings (seed, budget, clock) found."""
    fields = {f.name for f in dataclasses.fields(DealResult)}
    seen: dict[tuple[str, object, int], DealResult] = {}
    runs: set[str] = set()
    for path in paths:
        with open(path, encoding="utf-8") as saved:
            for line in saved:
                if line.strip():
                    row = json.loads(line)
                    result = DealResult(**{k: v for k, v in row.items() if k in fields})
                    seen[(result.game_id, row.get("seed"), result.deal)] = result
                    runs.add(", ".join(f"{k} {row.get(k)}" for k in RUN_KEYS))
    pooled: dict[str, list[DealResult]] = {}
    for result in seen.values():
        pooled.setdefault(result.game_id, []).append(result)
    return pooled, runs


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def report(
    args: argparse.Namespace, results: dict[str, list[DealResult]], elapsed: float, note: str, load_start: str
) -> None:
    """The header (budget, clock, workers, load averages) and one line per game."""
    print(
        f"{PLAYERS} seats, budget {args.budget} s ({args.clock} clock), {args.workers} worker(s),"
        f" seed {args.seed}, {elapsed:.0f} s{f' ({note})' if note else ''},"
        f" load avg {load_start} at start, {_load()} now",
        flush=True,
    )
    print_table(args.games, results)


def print_table(games: list[str], results: dict[str, list[DealResult]]) -> None:
    """One line per game: deals, mean scores, the difference with its SE and z, the sign test."""
    print(
        f"{'game':<14}{'deals':>6}{'strong':>9}{'basic':>9}{'diff':>8}{'SE':>7}{'z':>6}"
        f"{'better':>8}{'worse':>7}{'tied':>6}{'sign p':>9}{'searches':>9}{'s/deal':>8}{'max s':>7}"
    )
    for game_id in games:
        if not results.get(game_id):
            continue
        s = summarize(results[game_id])
        print(
            f"{game_id:<14}{s['n']:>6}{s['strong']:>9.1f}{s['basic']:>9.1f}{s['mean']:>8.2f}{s['se']:>7.2f}"
            f"{s['z']:>6.1f}{s['wins']:>8}{s['losses']:>7}{s['ties']:>6}{s['p']:>9.2g}{s['searched']:>9.1f}"
            f"{s['seconds']:>8.1f}{s['slowest']:>7.2f}",
            flush=True,
        )

if __name__ == "__main__":
    main()
