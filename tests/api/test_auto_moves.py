"""Bots that say what they did (issue 22): a move the server makes for a person's seat (their turn
timer ran out, or they are away) is marked among the public events, and a socket that connects
mid-hand is sent the whole hand's events, marks included, so its play log is complete."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.harness import browser, running_server
from tests.api.test_away_players import FAST, _timer_room

pytestmark = pytest.mark.asyncio


def marks(events: list[dict[str, Any]]) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each `auto` mark with the events it covers."""
    found = []
    for index, event in enumerate(events):
        if event["type"] == "auto":
            found.append((event, events[index + 1 : index + 1 + event["events"]]))
    return found


async def test_a_timed_out_move_is_marked_and_a_late_socket_reads_the_whole_hand(database_url: str) -> None:
    scale = 1 / 15  # a 15 s timer lasts 1 s
    async with (
        running_server(database_url, deadline_scale=scale, **FAST) as server,
        browser(server, "Ada") as ada,
    ):
        code, match_id = await _timer_room(ada, 15)
        async with ada.socket(code) as ada_ws:  # connected, but she never plays
            first = await ada_ws.wait_state()
            assert "hand_log" in first  # a socket's first state carries the hand so far
            timed = await ada_ws.wait_state(lambda m: any(e["type"] == "auto" for e in m["events"]))
        ((mark, covered),) = marks(timed["events"])
        assert (mark["seat"], mark["reason"]) == (0, "time")
        assert mark["version"] <= timed["version"]
        plays = [e for e in covered if e["type"] == "play"]
        assert [e["seat"] for e in plays] == [0], covered  # the one card played for her
        played = plays[0]
        assert played["card"] not in timed["views"]["0"]["hand"]

        async with ada.socket(code) as late:  # another tab, opened after the move
            state = await late.wait_state()
        assert "hand_log" in state and state["events"] == []
        log = state["hand_log"]
        assert any(m["version"] == mark["version"] and m["seat"] == 0 for m, _ in marks(log))
        assert any(e == played for _, covered_late in marks(log) for e in covered_late)
        # Every card played this hand is in it: every finished trick's and the current one's.
        view = state["views"]["0"]
        tricks = len([e for e in log if e["type"] == "trick"])
        on_felt = len((view.get("trick") or {}).get("cards") or [])
        assert len([e for e in log if e["type"] == "play"]) == tricks * view["players"] + on_felt
        assert state["match_id"] == match_id
