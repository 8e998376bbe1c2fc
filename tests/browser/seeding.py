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


def deal_seeded(server_process: ServerProcess, database_url: str, seed: int) -> None:
    """Restart the server with the only match's log replaced by its first deal drawn from
    `random.Random(seed)` (every chance action up to the first person's or bot's decision)."""
    server_process.stop()
    engine = create_engine(database_url)
    try:
        with engine.begin() as conn:
            ((match_id, game_id, players, options),) = conn.execute(
                sql("SELECT id, game_id, players, options FROM matches")
            ).all()
            match = get_game(game_id).new_match(players, options)
            rng = random.Random(seed)
            log = []
            while match.to_act() == [CHANCE]:
                action = match.random_chance_action(rng)
                match.apply(CHANCE, action)
                log.append(action)
            conn.execute(sql("DELETE FROM match_actions WHERE match_id = :m"), {"m": match_id})
            for seq, action in enumerate(log):
                conn.execute(
                    sql(
                        "INSERT INTO match_actions (match_id, seq, seat, action)"
                        " VALUES (:m, :q, :s, CAST(:a AS jsonb))"
                    ),
                    {"m": match_id, "q": seq, "s": CHANCE, "a": json.dumps(action)},
                )
            conn.execute(sql("UPDATE matches SET version = :v WHERE id = :m"), {"v": len(log), "m": match_id})
    finally:
        engine.dispose()
    server_process.start()
