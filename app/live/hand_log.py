"""The public events of the current hand, for a reader that has just connected (a page load or a
reconnect), so its play log is complete however long it was away; and the marks of moves a bot
made for a person's seat (their turn timer ran out, or they were away).

The events are not stored: they are the engine's own, replayed from the log on demand (once per
version, for every reader connecting at it). The marks are stored with the actions they mark
(`match_actions.auto`, written by the statement that appends the action), so a restart or another
server process rebuilding the match from its log reads them back with it. A mark is an event
`{"type": "auto", "seat", "reason": "time" | "away", "version", "events": k}` placed before the
`k` engine events of that move (`version`: the log length after it); like every event it is
public, and it names no card itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine import Match

AutoMoves = dict[int, tuple[int, str]]
"""Version after an automatic move of a person's seat -> (seat, reason)."""


def auto_mark(seat: int, reason: str, version: int, count: int) -> dict[str, Any]:
    """The event that says the next `count` events are a bot's move for a person's seat."""
    return {"type": "auto", "seat": seat, "reason": reason, "version": version, "events": count}


def current_hand_events(
    match: Match, version: int, auto_moves: Mapping[int, tuple[int, str]]
) -> list[dict[str, Any]]:
    """The events of the hand under way at `version` (the last one when the match is over then),
    rebuilt by replaying `match`'s log up to `version` on a fresh match of the same game (never an
    action whose commit is still in flight), with the marks of automatic moves."""
    log: Sequence[tuple[int, dict[str, Any]]] = match.log[:version]
    fresh = match.game.new_match(match.players, match.options)
    events: list[dict[str, Any]] = []
    for version, (seat, action) in enumerate(log, start=1):
        finished = fresh.hands_done
        batch = fresh.apply(seat, action)
        mark = auto_moves.get(version)
        if mark is not None:
            events.append(auto_mark(mark[0], mark[1], version, len(batch)))
        events.extend(batch)
        if fresh.hands_done > finished and version < len(log):
            events = []  # a hand ended and the match goes on: the next hand's log starts here
    return events
