"""Match review cost: CPU seconds to analyse a whole match (engine/analysis.py), per game.

Plays seeded matches with the basic bots (or `--random` legal actions) at the game's default
options, then analyses every seat's decisions at the default budget (or `--playouts N`) and
prints, per game, the actions of a match, the decisions by method (forced, exact, playouts),
this process's CPU seconds per match and per 450 actions (the issue's yardstick: a 4-player
match of about 450 actions within 60 CPU seconds), with the load average, since a loaded machine
slows even CPU time a little. Run:

    .venv/bin/python -m bench.analysis                         # every game, 4 players, 1 match
    .venv/bin/python -m bench.analysis --games familia --matches 3 --playouts 20
    CARDTABLE_PURE_PYTHON=1 .venv/bin/python -m bench.analysis # the engine's sources, not compiled
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections import Counter
from dataclasses import replace

from engine import CHANCE, GAMES, Match, _mode
from engine.analysis import DEFAULT_BUDGET, Budget, analyse_match
from engine.bots import get_chooser

YARDSTICK_ACTIONS = 450


def play_match(game_id: str, players: int, seed: int, random_play: bool) -> Match:
    """A seeded match played to its end by the basic bots, or by random legal actions."""
    match = GAMES[game_id].new_match(players, seed=seed)
    rng = random.Random(seed)
    choose = get_chooser(game_id)
    while not match.is_over:
        seat = match.to_act()[0]
        if seat == CHANCE:
            match.deal_random(rng)
            continue
        legal = match.legal_actions(seat)
        if len(legal) == 1 or random_play:
            match.apply(seat, rng.choice(legal))
        else:
            match.apply(seat, choose(match.view(seat), legal, rng))
    return match


def measure(game_id: str, players: int, matches: int, budget: Budget, random_play: bool) -> dict[str, float]:
    """Mean actions, decisions and CPU seconds per match over `matches` seeded matches."""
    actions = cpu = 0.0
    methods: Counter[str] = Counter()
    for seed in range(matches):
        match = play_match(game_id, players, seed, random_play)
        start = time.process_time()
        analysis = analyse_match(match.game, players, match.options, match.log, budget=budget, rng_seed=seed)
        cpu += time.process_time() - start
        actions += len(match.log)
        methods.update(decision.method for decision in analysis.decisions)
    return {
        "actions": actions / matches,
        "cpu": cpu / matches,
        "per_yardstick": cpu / actions * YARDSTICK_ACTIONS,
        **{method: count / matches for method, count in methods.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", nargs="*", default=sorted(GAMES))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--matches", type=int, default=1)
    parser.add_argument("--playouts", type=int, default=DEFAULT_BUDGET.playouts)
    parser.add_argument("--random", action="store_true", help="random legal play instead of the basic bots")
    args = parser.parse_args()
    budget = replace(DEFAULT_BUDGET, playouts=args.playouts)
    print(f"engine: {_mode.describe()}; budget {budget}; load average {os.getloadavg()[0]:.1f}")
    header = ("game", "actions", "forced", "exact", "playouts", "CPU s", "per 450")
    print(f"{header[0]:14} " + " ".join(f"{name:>8}" for name in header[1:]))
    for game_id in args.games:
        row = measure(game_id, args.players, args.matches, budget, args.random)
        print(
            f"{game_id:14} {row['actions']:8.0f} {row.get('forced', 0):8.0f} {row.get('exact', 0):8.0f} "
            f"{row.get('playouts', 0):8.0f} {row['cpu']:8.1f} {row['per_yardstick']:8.1f}",
            flush=True,
        )
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
