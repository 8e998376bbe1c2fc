"""Hints: on their turn, a seated person of a room with hints on may ask for the strong bot's
choice for their own seat.

The search runs in the strong bots' worker processes (app/live/bot_pool.py), never on the event
loop, and from the seat's own knowledge only: engine/bots.py's `suggestion` draws the other hands
anew from what the seat has seen (engine/infoset.py), so the answer cannot tell anything about
another hand. The hint is kept per match, state version and seat (app/store/hints.py): asking
again in the same state reads it back, so at most one search runs per decision, and the match
review marks the decision that followed it. Beyond that, `HintLimiter` lets each person have one
search at a time and `PER_MINUTE` a minute, so nobody can keep the workers busy for a table.
"""

from __future__ import annotations

import asyncio
import time
import zlib
from collections import deque
from typing import Any

from app.errors import ApiError, Conflict, Forbidden
from app.services import Services
from app.store import hints as store
from engine import get_game

PER_MINUTE = 10
"""Searches one person may start in a minute (hints read back from the database are free)."""


class HintLimiter:
    """Per person: one search at a time, and at most `PER_MINUTE` started in any minute."""

    def __init__(self, per_minute: int = PER_MINUTE) -> None:
        self.per_minute = per_minute
        self.started: dict[int, deque[float]] = {}
        self.busy: set[int] = set()

    def retry_after(self, person_id: int) -> float | None:
        """Seconds to wait before this person may start a search, or None: now."""
        if person_id in self.busy:
            return 1.0
        now = time.monotonic()
        times = self.started.setdefault(person_id, deque())
        while times and now - times[0] >= 60:
            times.popleft()
        if len(times) >= self.per_minute:
            return 60 - (now - times[0])
        return None

    def start(self, person_id: int) -> None:
        self.started.setdefault(person_id, deque()).append(time.monotonic())
        self.busy.add(person_id)

    def done(self, person_id: int) -> None:
        self.busy.discard(person_id)
        if not self.started.get(person_id):
            self.started.pop(person_id, None)


async def give_hint(
    services: Services, limiter: HintLimiter, person_id: int, match_id: int, seat: int, version: int
) -> dict[str, Any]:
    """The hint for `seat` in the state of `version`: `{match_id, seat, version, actions}`.
    Refused (domain errors) unless the room has hints on, the match runs at that version, the
    person holds the seat and the seat is to act; 429 when the person asks too fast."""
    async with services.db.session() as session:
        await store.check_asker(session, match_id, person_id)
        kept = await store.stored_hint(session, match_id, version, seat)
    if kept is not None:
        return {"match_id": match_id, "seat": seat, "version": version, "actions": kept}
    stored = await services.tables.store.load(match_id)
    controller = stored.controllers.get(seat)
    if controller is None or controller.kind != "person" or controller.person_id != person_id:
        raise Forbidden(
            "only the person playing this seat may ask for its hint",
            "ヒントを見られるのは、その席でプレイしている人だけです",
        )
    if stored.finished or version != len(stored.log):
        raise Conflict(
            "the table has moved on since; ask again in the state you see now",
            "卓の状況が変わりました。今の状況でもう一度お試しください",
        )
    awaited = await asyncio.to_thread(_awaited, stored.game_id, stored.players, stored.options, stored.log)
    if seat not in awaited:
        raise Conflict("it is not your turn", "あなたの手番ではありません")
    wait = limiter.retry_after(person_id)
    if wait is not None:
        seconds = str(max(1, round(wait)))
        raise ApiError(
            429,
            f"too many hints: try again in {seconds} s",
            f"ヒントの要求が多すぎます。{seconds}秒後にもう一度どうぞ",
            {"Retry-After": seconds},
        )
    limiter.start(person_id)
    try:
        seed = zlib.crc32(f"{match_id}:{version}:{seat}".encode())
        actions = await services.tables.bots.suggest(
            match_id, stored.game_id, stored.players, stored.options, stored.log, seat, seed
        )
    finally:
        limiter.done(person_id)
    async with services.db.session() as session:
        actions = await store.save_hint(session, match_id, version, seat, person_id, actions)
    return {"match_id": match_id, "seat": seat, "version": version, "actions": actions}


def _awaited(game_id: str, players: int, options: dict[str, Any], log: list[Any]) -> list[int]:
    """The seats the match at `log` waits for (a replay: in a thread, off the event loop)."""
    return list(get_game(game_id).replay(players, options, log).to_act())
