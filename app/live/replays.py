"""Replays and log exports of finished matches, rebuilt from the stored action log.

Nothing is stored twice: the stored log (read by app/store/history.py `finished_match`, which
also checks who may review it) is replayed with the engine, step by step (what
`game.replay` does), and after every action the all-seeing observer's view (`Match.view_all`)
is taken. Only members of the match's room may read them, and only once the match is finished,
since the observer sees every hand: while it runs the answer is a conflict and says nothing else.

A replay is big (one whole table per action: a ten-seat Familia match has about 4,000), so it is
encoded compactly, the way the live table's state messages are (docs/ARCHITECTURE.md):
- the finished hands' results travel once, in `hands`; a step's view has `hands_done` instead
  (its `hands` is `hands[:hands_done]`);
- `steps[0].view` is whole; every later step's view holds only the top-level keys whose value
  changed since the previous step (plus `"$removed": [keys]` for keys that went away), to be
  merged over the previous view: the live table's patches, from the one codec (app/live/wire.py;
  `expand_steps` here, `static/js/pages/replay.js` with static/js/wire.js in the client);
- the body is gzip-compressed when the client accepts it.
A finished match never changes, so each process keeps the last few encoded replays.
"""

from __future__ import annotations

import asyncio
import gzip
from collections import OrderedDict
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from app.live.wire import dumps, merge_patch, patch_text, view_parts
from app.store.history import FinishedMatch
from engine import Game, Match

CACHED_REPLAYS = 8
"""Encoded replays each process keeps (a gzip body is tens to a few hundred KB)."""

LOG_FORMAT = 1
"""Version of the exported log's shape (`GET /api/matches/{id}/log`)."""


# ---- the replay ----------------------------------------------------------------------------------
def encode_steps(
    game: Game, players: int, options: dict[str, Any], log: list[tuple[int, Any]]
) -> tuple[str, Match]:
    """The `steps` array as JSON text (see the module docstring) and the replayed match."""
    match = game.new_match(players, options)
    previous = view_parts({})
    steps: list[str] = []
    for version, (seat, action) in enumerate(log, start=1):
        match.apply(int(seat), action)
        view = match.view_all()
        view["hands_done"] = match.hands_done
        parts = view_parts(view)
        steps.append(
            f'{{"version":{version},"seat":{int(seat)},"action":{dumps(action)},'
            f'"view":{patch_text(previous, parts)}}}'
        )
        previous = parts
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
        # Moves the server made for a person (turn timer, stand-in), by version: the replay says so.
        "auto": {str(version): reason for version, (_, reason) in stored.auto_moves.items()},
        "hands": match.hands,
        "scores": match.scores,
        "encoding": "patch",
    }
    return f'{dumps(head)[:-1]},"steps":{steps}}}'.encode()


def expand_steps(steps: list[dict[str, Any]], hands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The steps with whole views, each exactly `Match.view_all()` after its action plus the
    hands finished by then as `hands`, from the patch encoding: the reference reader, mirrored
    by the replay page."""
    whole: list[dict[str, Any]] = []
    view: dict[str, Any] = {}
    for step in steps:
        view = merge_patch(view, step["view"])
        done = view["hands_done"]
        whole.append(
            {**step, "view": {k: v for k, v in view.items() if k != "hands_done"} | {"hands": hands[:done]}}
        )
    return whole


class ReplayCache:
    """The last few encoded replays of this process (gzip), one build at a time: a long match
    takes seconds of CPU to replay, and a finished match never changes."""

    def __init__(
        self, size: int = CACHED_REPLAYS, job: Callable[[str], AbstractContextManager[object]] = nullcontext
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
def export_log(review: FinishedMatch, hands: list[dict[str, Any]], scores: list[float]) -> dict[str, Any]:
    """Everything `game.replay(players, options, log)` needs, with the stored results to check
    it against: per-hand scores (`hand_results`) and final scores (`match_results`), as
    app/store/history.py `stored_scores` reads them."""
    stored = review.stored
    return {
        "format": LOG_FORMAT,
        "match_id": review.row.id,
        "room_code": review.room_code,
        "room_name": review.room_name,
        "number": review.row.number,
        "game_id": stored.game_id,
        "players": stored.players,
        "options": stored.options,
        "seats": review.seats,
        "log": [[seat, action] for seat, action in stored.log],
        "hands": hands,
        "scores": scores,
        "created_at": review.row.created_at.isoformat(),
        "finished_at": review.row.finished_at.isoformat() if review.row.finished_at else None,
    }
