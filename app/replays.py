"""Replays and log exports of finished matches, rebuilt from the stored action log.

Nothing is stored twice: the match store's log is replayed with the engine, step by step (what
`game.replay` does), and after every action the all-seeing observer's view (`Match.view_all`)
is taken. Only members of the match's room may read them, and only once the match is finished,
since the observer sees every hand: while it runs the answer is 409 and says nothing else.

A replay is big (one whole table per action: a ten-seat Familia match has about 4,000), so it is
encoded compactly, the way the live table's state messages are (docs/ARCHITECTURE.md):
- the finished hands' results travel once, in `hands`; a step's view has `hands_done` instead
  (its `hands` is `hands[:hands_done]`);
- `steps[0].view` is whole; every later step's view holds only the top-level keys whose value
  changed since the previous step (plus `"$removed": [keys]` for keys that went away), to be
  merged over the previous view (`expand_steps` here, `static/js/pages/replay.js` in the client);
- the body is gzip-compressed when the client accepts it.
A finished match never changes, so each process keeps the last few encoded replays.
"""

from __future__ import annotations

import asyncio
import gzip
import json
from collections import OrderedDict
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import ApiError
from app.match_store import MatchStore, StoredMatch
from app.models import HandResult, MatchResult, MatchRow, MatchSeat, Person, Room
from app.repository import BOT_NAME, is_member
from app.room_names import room_display_name
from engine import GAMES, Game, Match

CACHED_REPLAYS = 8
"""Encoded replays each process keeps (a gzip body is tens to a few hundred KB)."""

LOG_FORMAT = 1
"""Version of the exported log's shape (`GET /api/matches/{id}/log`)."""


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class FinishedMatch:
    """A finished match a member may review: the row's facts, its seats and its stored log."""

    row: MatchRow
    room_code: str | None
    room_name: dict[str, str] | None
    seats: list[dict[str, Any]]
    stored: StoredMatch

    @property
    def game(self) -> Game:
        return GAMES[self.row.game_id]


async def _seats(session: AsyncSession, match_id: int) -> list[dict[str, Any]]:
    """Each seat with the name of whoever was credited with it (bots as "Bot")."""
    seats = (
        (await session.execute(select(MatchSeat).where(MatchSeat.match_id == match_id).order_by(MatchSeat.n)))
        .scalars()
        .all()
    )
    ids = {s.person_id for s in seats if s.person_id is not None}
    names: dict[int, str] = {}
    if ids:
        rows = await session.execute(select(Person.id, Person.name).where(Person.id.in_(ids)))
        names = {person_id: name for person_id, name in rows}
    return [
        {
            "n": s.n,
            "kind": s.kind,
            "person_id": s.person_id,
            "name": names.get(s.person_id)
            if s.person_id is not None
            else (BOT_NAME if s.kind == "bot" else None),
        }
        for s in seats
    ]


async def finished_match(
    session: AsyncSession, store: MatchStore, match_id: int, person: Person
) -> FinishedMatch:
    """The match if `person` may review it: 404 when there is none, 403 for someone who was never
    a member of its room, 409 while it runs (checked before its log is read)."""
    row = await session.get(MatchRow, match_id)
    if row is None:
        raise ApiError(404, "no such match", "その対戦はありません")
    if not await is_member(session, row.room_id, person.id):
        raise ApiError(
            403,
            "only members of the match's room may review it",
            "この対戦を振り返れるのは、その部屋のメンバーだけです",
        )
    if row.status != "finished" or row.game_id not in GAMES:
        raise ApiError(
            409,
            "the match is not finished yet: its replay opens when it ends",
            "対戦はまだ終わっていません。リプレイは終了後に見られます",
        )
    room = await session.get(Room, row.room_id)
    room_name = None
    if room is not None:
        host = await session.get(Person, room.host_id)
        room_name = room_display_name(room.name, host.name if host else None, room.game_id)
    seats = await _seats(session, match_id)
    stored = await store.load(match_id)
    return FinishedMatch(
        row=row, room_code=room.code if room else None, room_name=room_name, seats=seats, stored=stored
    )


# ---- the replay ----------------------------------------------------------------------------------
def encode_steps(
    game: Game, players: int, options: dict[str, Any], log: list[tuple[int, Any]]
) -> tuple[str, Match]:
    """The `steps` array as JSON text (see the module docstring) and the replayed match."""
    match = game.new_match(players, options)
    previous: dict[str, str] = {}
    steps: list[str] = []
    for version, (seat, action) in enumerate(log, start=1):
        match.apply(int(seat), action)
        view = match.view_all()
        view["hands_done"] = match.hands_done
        encoded = {key: _compact(value) for key, value in view.items()}
        changed = [f'"{key}":{text}' for key, text in encoded.items() if previous.get(key) != text]
        removed = [key for key in previous if key not in encoded]
        if removed:
            changed.append(f'"$removed":{_compact(removed)}')
        previous = encoded
        steps.append(
            f'{{"version":{version},"seat":{int(seat)},"action":{_compact(action)},"view":{{{",".join(changed)}}}}}'
        )
    return f"[{','.join(steps)}]", match


def encode_replay(review: FinishedMatch) -> bytes:
    """The replay's JSON body, built by replaying the stored log. CPU-bound: run it in a thread."""
    stored, game = review.stored, review.game
    steps, match = encode_steps(game, stored.players, stored.options, stored.log)
    head = {
        "match_id": review.row.id,
        "room_code": review.room_code,
        "room_name": review.room_name,
        "number": review.row.number,
        "game_id": game.id,
        "game_names": dict(game.names),
        "players": stored.players,
        "options": stored.options,
        "seats": review.seats,
        "hands": match.hands,
        "scores": match.scores,
        "encoding": "patch",
    }
    return f'{_compact(head)[:-1]},"steps":{steps}}}'.encode()


def expand_steps(steps: list[dict[str, Any]], hands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The steps with whole views, each exactly `Match.view_all()` after its action plus the
    hands finished by then as `hands`, from the patch encoding: the reference reader, mirrored
    by the replay page."""
    whole: list[dict[str, Any]] = []
    view: dict[str, Any] = {}
    for step in steps:
        patch = dict(step["view"])
        removed = patch.pop("$removed", [])
        view = {key: value for key, value in view.items() if key not in removed} | patch
        done = view["hands_done"]
        whole.append(
            {**step, "view": {k: v for k, v in view.items() if k != "hands_done"} | {"hands": hands[:done]}}
        )
    return whole


class ReplayCache:
    """The last few encoded replays of this process (gzip), one build at a time: a long match
    takes seconds of CPU to replay, and a finished match never changes."""

    def __init__(
        self, size: int = CACHED_REPLAYS, job: Callable[[str], AbstractContextManager[None]] = nullcontext
    ) -> None:
        self.size = size
        self.bodies: OrderedDict[int, bytes] = OrderedDict()
        self.building = asyncio.Lock()
        self.job = job
        """Counts and times each build (app/metrics.py `Metrics.job`)."""

    async def gzipped(self, review: FinishedMatch) -> bytes:
        match_id = review.row.id
        body = self.bodies.get(match_id)
        if body is None:
            async with self.building:
                body = self.bodies.get(match_id)  # built while this request waited
                if body is None:
                    with self.job("replay"):
                        body = await asyncio.to_thread(lambda: gzip.compress(encode_replay(review), 6))
                    self.bodies[match_id] = body
                    while len(self.bodies) > self.size:
                        self.bodies.popitem(last=False)
        if match_id in self.bodies:
            self.bodies.move_to_end(match_id)
        return body


# ---- the log export ------------------------------------------------------------------------------
async def export_log(session: AsyncSession, review: FinishedMatch) -> dict[str, Any]:
    """Everything `game.replay(players, options, log)` needs, with the stored results to check
    it against: per-hand scores from `hand_results`, final scores from `match_results`."""
    match_id = review.row.id
    hands = (
        (
            await session.execute(
                select(HandResult).where(HandResult.match_id == match_id).order_by(HandResult.hand_no)
            )
        )
        .scalars()
        .all()
    )
    finals = (
        (
            await session.execute(
                select(MatchResult).where(MatchResult.match_id == match_id).order_by(MatchResult.seat)
            )
        )
        .scalars()
        .all()
    )
    stored = review.stored
    return {
        "format": LOG_FORMAT,
        "match_id": match_id,
        "room_code": review.room_code,
        "room_name": review.room_name,
        "number": review.row.number,
        "game_id": stored.game_id,
        "players": stored.players,
        "options": stored.options,
        "seats": review.seats,
        "log": [[seat, action] for seat, action in stored.log],
        "hands": [{"hand_no": hand.hand_no, "scores": hand.scores} for hand in hands],
        "scores": [final.score for final in finals],
        "created_at": review.row.created_at.isoformat(),
        "finished_at": review.row.finished_at.isoformat() if review.row.finished_at else None,
    }
