"""A match log written straight into the database, for browser checks that need a position no
deal reaches quickly (the server is stopped meanwhile and replays the log when it starts). The
ordinary seeded deals come from the server's CARDTABLE_DEAL_SEED (tests/browser/conftest.py)."""

from __future__ import annotations

import json

from sqlalchemy import create_engine
from sqlalchemy import text as sql


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
