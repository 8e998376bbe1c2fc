"""Peer benchmark: random legal hands per second of this engine against OpenSpiel, side by side.

Both sides play whole hands with uniformly random legal actions through their library's Python
API (this engine: `to_act`, `legal_actions`, `apply`, `deal_random`, exactly as bench/engine.py;
OpenSpiel: `legal_actions`, `apply_action`, chance drawn uniformly from `chance_outcomes`,
which is uniform in both games). Rounds are
interleaved so that a busy machine slows both sides alike; the ratio is what to read.

    pip install -e ".[peers]"       # OpenSpiel (pyspiel)
    .venv/bin/python -m bench.peers --seconds 1 --rounds 3 [--clock cpu]   # cpu: on a busy machine
    .venv/bin/python -m bench.peers --game holy-grail   # one pair (and the floor)

Pairs: Holy Grail 4p against OpenSpiel `hearts` (both hearts-like trick games, one hand = a deal
and every card played; hearts deals 52 cards one chance action at a time, Holy Grail shuffles
112 cards in one), Yaya Fugou 4p against OpenSpiel `dou_dizhu` (both climbing games; one hand =
the deal, dou_dizhu's bidding, and play until someone is out or, in Yaya Fugou, one seat is left).

Last, the same loop times a game with no rules at all (one shuffle and 112 plays a hand, as Holy
Grail 4p): no game behind this Python contract can play such hands faster.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable

from bench.engine import hands_per_second
from engine import GAMES
from engine._mode import describe as engine_mode
from engine.floor import PLAYS, NoRulesGame

PAIRS: tuple[tuple[str, int, str], ...] = (("holy-grail", 4, "hearts"), ("yaya-fugou", 4, "dou_dizhu"))
"""(game id, players, OpenSpiel game name)."""


def openspiel_hands_per_second(
    name: str, seconds: float, seed: int = 0, clock: Callable[[], float] = time.perf_counter
) -> float:
    """Whole random games (one hand each) of the OpenSpiel game `name` per second."""
    import pyspiel  # the optional `peers` dependency group

    game = pyspiel.load_game(name)
    rng = random.Random(seed)
    choice = rng.choice
    hands = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                # Every chance node of both games is uniform (deals, hearts' pass direction).
                state.apply_action(choice(state.chance_outcomes())[0])
            else:
                state.apply_action(choice(state.legal_actions()))
        hands += 1
    return hands / (clock() - start)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=1.0, help="time per side and round")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median reported)")
    parser.add_argument(
        "--clock", choices=("wall", "cpu"), default="wall", help="wall time, or this process's CPU time"
    )
    parser.add_argument("--game", choices=[game_id for game_id, _, _ in PAIRS], help="only this pair")
    args = parser.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"engine: {engine_mode()}")
    print(f"{'ours':<16}{'hands/s':>10}   {'OpenSpiel':<12}{'hands/s':>10}{'ratio':>9}")
    for game_id, players, peer in PAIRS:
        if args.game and game_id != args.game:
            continue
        ours: list[float] = []
        theirs: list[float] = []
        runs: list[tuple[list[float], Callable[[], float]]] = [
            (ours, lambda g=game_id, p=players: hands_per_second(GAMES[g], p, args.seconds, clock=clock)[0]),
            (theirs, lambda n=peer: openspiel_hands_per_second(n, args.seconds, clock=clock)),
        ]
        for index in range(args.rounds):
            for rates, run in runs if index % 2 == 0 else runs[::-1]:
                rates.append(run())
        mine, peer_rate = statistics.median(ours), statistics.median(theirs)
        label = f"{game_id} {players}p"
        print(f"{label:<16}{mine:>10.1f}   {peer:<12}{peer_rate:>10.1f}{mine / peer_rate:>8.2f}×", flush=True)
        rounds = ", ".join(f"{a / b:.2f}×" for a, b in zip(ours, theirs, strict=True))
        print(f"{'':<16}per round: {rounds}", flush=True)
    floor: list[float] = []
    for _ in range(args.rounds):
        floor.append(hands_per_second(NoRulesGame(), 4, args.seconds, clock=clock)[0])
    print(
        f"{'no rules 4p':<16}{statistics.median(floor):>10.1f}   (this contract's floor: the same loop over "
        f"{PLAYS} plays a hand of a game that does nothing)"
    )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
