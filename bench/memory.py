"""Engine memory benchmark: the Python heap one match holds after N random legal actions.

A live table keeps its engine match in memory for as long as the table is open, so the match's
size (state, log, cached legal actions) is the engine's share of a table's memory. Measured with
tracemalloc: matches are built and played (chance included) while tracing, kept alive, and the
traced heap is divided by their number. Run:

    .venv/bin/python -m bench.memory                    # every game, 150 actions, 20 matches
    .venv/bin/python -m bench.memory --game familia --actions 300 --matches 10
    .venv/bin/python -m bench.memory --warmup 1      # count process-wide caches' growth too
"""

from __future__ import annotations

import argparse
import gc
import random
import tracemalloc

from bench.load import GAME_SEATS  # the same tables as the server load benchmark
from engine import CHANCE, GAMES, Game, Match


def play(game: Game, players: int, actions: int, rng: random.Random) -> Match:
    """A match after `actions` random legal actions (chance included), or at its end."""
    match = game.new_match(players, seed=rng.randrange(1 << 30))
    for _ in range(actions):
        acting = match.to_act()
        if not acting:
            break
        seat = acting[0]
        if seat == CHANCE:
            match.deal_random(rng)
        else:
            match.apply(seat, rng.choice(match.legal_actions(seat)))
    return match


def match_kb(
    game: Game, players: int, actions: int, matches: int, seed: int = 0, warmup: int = 200
) -> float:
    """Mean traced heap per match, in KB (1024 bytes), of `matches` matches kept alive.

    `warmup` matches are played and dropped first, untraced: module tables and the caches a
    long-running server fills once per process (Yaya Fugou's shared plays: about 5 MB after a
    few hundred matches, bounded) are then in place, so what is traced is each match's own."""
    rng = random.Random(seed)
    warm = random.Random(seed + 1)
    for _ in range(max(warmup, 1)):
        play(game, players, actions, warm)
    gc.collect()
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        kept = [play(game, players, actions, rng) for _ in range(matches)]
        gc.collect()
        used, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(kept) == matches
    return (used - base) / matches / 1024


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", choices=sorted(GAMES), help="only this game")
    parser.add_argument("--actions", type=int, default=150, help="actions applied to each match")
    parser.add_argument("--matches", type=int, default=20, help="matches kept alive and averaged")
    parser.add_argument("--warmup", type=int, default=200, help="matches played untraced first")
    args = parser.parse_args()
    print(f"{'game':<14}{'players':>8}{'actions':>9}{'KB/match':>10}")
    for game_id in sorted(GAMES):
        if args.game and game_id != args.game:
            continue
        players = GAME_SEATS.get(game_id, GAMES[game_id].min_players)
        kb = match_kb(GAMES[game_id], players, args.actions, args.matches, warmup=args.warmup)
        print(f"{game_id:<14}{players:>8}{args.actions:>9}{kb:>10.1f}", flush=True)


if __name__ == "__main__":
    main()
