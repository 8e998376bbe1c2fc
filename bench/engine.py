"""Engine benchmark: random full hands per second for every registered game and player count.

Random play goes through the contract only (legal_actions + apply, chance through deal_random),
exactly as a searching bot would use it. Run:

    .venv/bin/python -m bench.engine            # every game, every player count
    .venv/bin/python -m bench.engine --game holy-grail --players 4 --seconds 5
    .venv/bin/python -m bench.engine --bots     # also time each game's bot per decision

Numbers are for one core (the loop is single-threaded).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from engine import CHANCE, GAMES, Game, Match
from engine.bots import get_chooser


def hand_counter(match: Match) -> Callable[[], int]:
    """Counts `match`'s finished hands without building their records (`Match.hands_done`); with
    an earlier engine that lacks it (bench/compare.py runs this file against one), `match.hands`."""
    if hasattr(match, "hands_done"):
        return lambda: match.hands_done
    return lambda: len(match.hands)


def hands_per_second(
    game: Game, players: int, seconds: float, seed: int = 0, clock: Callable[[], float] = time.perf_counter
) -> tuple[float, int]:
    """Play random hands for about `seconds` of `clock`; returns (hands per second, hands played).

    On a busy machine `time.process_time` (this process's CPU time) is the steadier clock."""
    rng = random.Random(seed)
    choice = rng.choice
    hands = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        match = game.new_match(players, seed=rng.randrange(1 << 30))
        to_act, legal_actions, apply = match.to_act, match.legal_actions, match.apply
        hands_done = hand_counter(match)
        finished = 0
        while clock() < deadline:
            # One hand: to_act is [] once the match is over; a hand is counted when it is scored.
            while hands_done() == finished:
                acting = to_act()
                if not acting:
                    break
                seat = acting[0]
                if seat == CHANCE:
                    match.deal_random(rng)
                else:
                    apply(seat, choice(legal_actions(seat)))
            if hands_done() == finished:
                break
            finished = hands_done()
            hands += 1
    elapsed = clock() - start
    return hands / elapsed, hands


def bot_decision_times(game: Game, players: int, decisions: int = 300, seed: int = 0) -> tuple[float, float]:
    """(mean, max) seconds per bot decision over random matches played by the bot itself."""
    rng = random.Random(seed)
    choose = get_chooser(game.id)
    times: list[float] = []
    while len(times) < decisions:
        match = game.new_match(players, seed=rng.randrange(1 << 30))
        while not match.is_over and len(times) < decisions:
            seat = match.to_act()[0]
            if seat == CHANCE:
                match.deal_random(rng)
                continue
            view, legal = match.view(seat), match.legal_actions(seat)
            start = time.perf_counter()
            action = choose(view, legal, rng)
            times.append(time.perf_counter() - start)
            match.apply(seat, action)
    return sum(times) / len(times), max(times)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", choices=sorted(GAMES), help="only this game")
    parser.add_argument("--players", type=int, help="only this player count")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per game and player count")
    parser.add_argument("--bots", action="store_true", help="also time the bots' decisions")
    parser.add_argument(
        "--clock", choices=("wall", "cpu"), default="wall", help="wall time, or this process's CPU time"
    )
    args = parser.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    print(
        f"{'game':<14}{'players':>8}{'hands/s':>12}{'hands':>8}"
        + ("   bot mean ms   bot max ms" if args.bots else "")
    )
    for game_id in sorted(GAMES):
        if args.game and game_id != args.game:
            continue
        game = GAMES[game_id]
        for players in range(game.min_players, game.max_players + 1):
            if args.players and players != args.players:
                continue
            rate, hands = hands_per_second(game, players, args.seconds, clock=clock)
            line = f"{game_id:<14}{players:>8}{rate:>12.1f}{hands:>8}"
            if args.bots:
                mean, worst = bot_decision_times(game, players)
                line += f"{mean * 1000:>14.2f}{worst * 1000:>13.2f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
