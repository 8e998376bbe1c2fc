"""Seeded deals for browser checks that judge what a table looks like: the same cards every run,
so a layout or accessibility failure can be reproduced from its screenshot's name."""

from __future__ import annotations

import json
import random

from sqlalchemy import create_engine
from sqlalchemy import text as sql

from engine import get_game
from engine.core import CHANCE
from tests.browser.conftest import ServerProcess


def rewrite_log(database_url: str, log: list[tuple[int, dict]]) -> None:
    """With the server stopped: make `log` the only match's whole log, so the restarted server
    replays it."""
    engine = create_engine(database_url)
    try:
        with engine.begin() as conn:
            (match_id,) = conn.execute(sql("SELECT id FROM matches")).scalars().all()
            conn.execute(sql("DELETE FROM match_actions WHERE match_id = :m"), {"m": match_id})
            for seq, (seat, action) in enumerate(log):
                conn.execute(
                    sql(
                        "INSERT INTO match_actions (match_id, seq, seat, action)"
                        " VALUES (:m, :q, :s, CAST(:a AS jsonb))"
                    ),
                    {"m": match_id, "q": seq, "s": seat, "a": json.dumps(action)},
                )
            conn.execute(sql("UPDATE matches SET version = :v WHERE id = :m"), {"v": len(log), "m": match_id})
    finally:
        engine.dispose()


def seeded_deal(database_url: str, seed: int) -> list[tuple[int, dict]]:
    """The only match's first deal drawn from `random.Random(seed)`: every chance action up to
    the first decision of a seat, as log entries."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            query = sql("SELECT game_id, players, options FROM matches")
            ((game_id, players, options),) = conn.execute(query).all()
    finally:
        engine.dispose()
    match = get_game(game_id).new_match(players, options)
    rng = random.Random(seed)
    log: list[tuple[int, dict]] = []
    while match.to_act() == [CHANCE]:
        action = match.random_chance_action(rng)
        match.apply(CHANCE, action)
        log.append((CHANCE, action))
    return log


def deal_seeded(server_process: ServerProcess, database_url: str, seed: int) -> None:
    """Restart the server with the only match's log replaced by its seeded first deal."""
    server_process.stop()
    rewrite_log(database_url, seeded_deal(database_url, seed))
    server_process.start()
