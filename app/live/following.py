"""Following the commits another server process made to a match this process holds: the
entries travel with the bus's state message (`logged_since_published` writes them, `follow`
applies them), or else are read back from the log (app/live/table.py decides which)."""

from __future__ import annotations

import logging
from typing import Any

from app.live.hand_log import auto_mark
from app.live.live_match import LiveMatch

log = logging.getLogger("app.live.tables")


def follow(live: LiveMatch, entries: list[tuple[int, Any, str | None]], at_least: int) -> bool:
    """Apply `entries`, committed by another process from our copy's version on, keeping their
    engine events and auto-move marks, so that this process's sockets see those moves as the
    other's do (a card that travels, the play log's line, "Time's up"). False, with the copy
    untouched, when they do not reach `at_least`; False when the copy cannot follow them,
    which may leave it half changed: it must then be rebuilt from the log. No await: nothing
    else can touch the copy meanwhile."""
    if live.committed + len(entries) < at_least:
        return False
    events: list[dict[str, Any]] = []
    try:
        for seat, action, auto in entries:
            applied = live.match.apply(seat, action)
            if auto is not None:
                applied = [auto_mark(seat, auto, live.version, len(applied)), *applied]
                live.auto_moves[live.version] = (seat, auto)
            events.extend(applied)
    except Exception:
        log.exception("match %s could not follow the log another process wrote", live.match_id)
        return False
    live.hands_stored = live.match.hands_done
    live.finished = live.match.is_over
    live.now_committed(events)
    live.published = live.committed  # announced already, by the process that committed it
    return True


def logged_since_published(live: LiveMatch) -> tuple[int, list[list[Any]]] | None:
    """The entries committed since the last state message, as stored (`[seat, action, auto]`),
    for other processes to follow without reading them back (`follow`)."""
    first, end = live.published, live.committed
    if not first < end <= len(live.match.log):
        return None
    entries: list[list[Any]] = []
    for position in range(first, end):
        seat, action = live.match.log[position]
        mark = live.auto_moves.get(position + 1)
        entries.append([seat, action, mark[1] if mark is not None else None])
    return first, entries
