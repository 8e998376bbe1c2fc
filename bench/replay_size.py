"""Bytes and build time of a finished match's replay (`GET /api/matches/{id}/replay`).

Basic bots play seeded matches through the engine; each match's replay is encoded exactly as
the server does (app/live/replays.py: one observer view per action, patch-encoded, gzip level 6) and
compared with the naive encoding (every step's whole `Match.view_all()` and finished hands). Bounded: a few
matches, seconds each.

    .venv/bin/python -m bench.replay_size
    .venv/bin/python -m bench.replay_size --table french-tarot:5 --table familia:10
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import time

from app.live.replays import encode_steps
from engine import CHANCE, GAMES, Match
from engine.bots import bot_action

DEFAULT_TABLES = ("french-tarot:5", "familia:4", "familia:10", "holy-grail:4", "yaya-fugou:8", "fairy-500:6")


def play(game_id: str, players: int, seed: int) -> Match:
    """A match of the game's default length, every seat a basic bot."""
    rng = random.Random(seed)
    match = GAMES[game_id].new_match(players, seed=seed)
    while not match.is_over:
        acting = match.to_act()
        if acting == [CHANCE]:
            match.deal_random(rng)
        else:
            match.apply(acting[0], bot_action(match, acting[0], rng))
    return match


def measure(game_id: str, players: int, seed: int) -> dict[str, float]:
    match = play(game_id, players, seed)
    game = match.game
    options = match.options.model_dump()
    started = time.process_time()
    steps, _ = encode_steps(game, players, options, list(match.log))
    build = time.process_time() - started
    body = steps.encode()
    started = time.process_time()
    packed = gzip.compress(body, 6)
    zip_time = time.process_time() - started
    naive_match = game.new_match(players, options)
    naive = []
    for seat, action in match.log:
        naive_match.apply(seat, action)
        naive.append(
            {
                "version": len(naive_match.log),
                "seat": seat,
                "action": action,
                "view": naive_match.view_all() | {"hands": naive_match.hands},
            }
        )
    naive_body = json.dumps(naive, separators=(",", ":")).encode()
    return {
        "actions": len(match.log),
        "hands": len(match.hands),
        "naive": len(naive_body),
        "naive_gz": len(gzip.compress(naive_body, 6)),
        "patch": len(body),
        "patch_gz": len(packed),
        "build_s": build,
        "gzip_s": zip_time,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--table", action="append", help="game:players (repeatable)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(
        "table            actions hands  naive JSON  naive gz  patch JSON  patch gz  build CPU s  gzip CPU s"
    )
    for table in args.table or DEFAULT_TABLES:
        game_id, players = table.split(":")
        r = measure(game_id, int(players), args.seed)
        print(
            f"{table:16} {r['actions']:7} {r['hands']:5} {r['naive']:11,} {r['naive_gz']:9,} "
            f"{r['patch']:11,} {r['patch_gz']:9,} {r['build_s']:12.2f} {r['gzip_s']:11.2f}"
        )


if __name__ == "__main__":
    main()
