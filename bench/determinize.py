"""How often a strong bot's determinization finds a guess, per game and player count.

A strong bot searches over guesses of the hidden cards (engine/infoset.py); when no consistent
guess turns up within the attempts allowed, it falls back to the basic move. This plays seeded
matches with the basic bots and, at every other decision with a choice, asks the deciding seat's
information set for one guess (200 attempts, the default): the share of decisions with no guess,
the mean attempts a guess took, and the CPU time per decision. Run:

    .venv/bin/python -m bench.determinize                      # the default tables
    .venv/bin/python -m bench.determinize --tables french-tarot:3,french-tarot:5 --matches 8
"""

from __future__ import annotations

import argparse
import random
import time

from engine import CHANCE, GAMES
from engine.bots import bot_action
from engine.infoset import DeterminizeFailed, InfoSet

DEFAULT_TABLES = (
    "french-tarot:3,french-tarot:4,french-tarot:5,fairy-500:4,yaya-fugou:4,familia:4,holy-grail:4"
)


def measure(game_id: str, players: int, matches: int, attempts: int) -> tuple[int, int, float, float]:
    """(decisions, failed, mean attempts, CPU ms per decision) over `matches` seeded matches."""
    game = GAMES[game_id]
    decisions = failed = tried = 0
    cpu = 0.0
    for seed in range(matches):
        rng = random.Random(seed)
        match = game.new_match(players, seed=seed)
        step = 0
        while not match.is_over:
            seat = match.to_act()[0]
            if seat == CHANCE:
                match.deal_random(rng)
                continue
            if len(match.legal_actions(seat)) > 1 and step % 2 == 0:
                start = time.process_time()
                info = InfoSet(match, seat)
                try:
                    info.sample(random.Random(step), attempts)
                except DeterminizeFailed:
                    failed += 1
                cpu += time.process_time() - start
                decisions += 1
                tried += info.attempts
            match.apply(seat, bot_action(match, seat, rng))
            step += 1
    return decisions, failed, tried / max(decisions, 1), 1000 * cpu / max(decisions, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=DEFAULT_TABLES, help="comma-separated game:players")
    parser.add_argument("--matches", type=int, default=4, help="seeded matches per table")
    parser.add_argument("--attempts", type=int, default=200, help="guesses tried per decision")
    args = parser.parse_args()
    print(f"{'table':16} {'decisions':>9} {'no guess':>9} {'attempts':>9} {'CPU ms':>7}")
    for table in args.tables.split(","):
        game_id, players = table.split(":")
        decisions, failed, mean_attempts, ms = measure(game_id, int(players), args.matches, args.attempts)
        share = 100 * failed / max(decisions, 1)
        line = f"{table:16} {decisions:9d} {failed:4d} {share:3.1f}% {mean_attempts:9.1f} {ms:7.1f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
