"""Bots that say what they did (issue 22): a move the server makes for a person's seat (their turn
timer ran out, or they are away) is marked among the public events, and a socket that connects
mid-hand is sent the whole hand's events, marks included, so its play log is complete. The marks
are stored with the actions, so a restart or another server process keeps them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.harness import browser, make_room, running_server
from tests.api.test_away_players import FAST, _eventually, _rows, _timer_room, autoplay

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


def stored_marks(database_url: str, match_id: int) -> set[tuple[int, int, str]]:
    """(version after the move, seat, reason) of every marked move in the match's stored log."""
    rows = _rows(
        database_url,
        "SELECT seq + 1, seat, auto FROM match_actions WHERE match_id = :m AND auto IS NOT NULL",
        m=match_id,
    )
    return {(version, seat, auto) for version, seat, auto in rows}


def logged_marks(state: dict[str, Any]) -> set[tuple[int, int, str]]:
    """The marks of a socket's first state's hand log, each checked to cover a play of its seat."""
    found = set()
    for mark, covered in marks(state["hand_log"]):
        assert any(e["type"] == "play" and e["seat"] == mark["seat"] for e in covered), (mark, covered)
        found.add((mark["version"], mark["seat"], mark["reason"]))
    return found


async def test_the_away_marks_survive_a_restart_between_the_stand_ins_moves_and_the_persons_return(
    database_url: str,
) -> None:
    settings = {"deadline_scale": 0.05, **FAST}  # Ben's 10 s grace lasts 0.5 s
    async with (
        running_server(database_url, **settings) as server,
        browser(server, "Ada") as ada,
        browser(server, "Ben") as ben,
    ):
        code = (await make_room(ada, seats=3, hands=1))["code"]
        await ada.http.patch(f"/api/rooms/{code}", json={"away_grace": 10})
        await ada.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        await ben.post(f"/api/rooms/{code}/seats/1", {"as": "me"})
        await ada.post(f"/api/rooms/{code}/seats/2", {"as": "bot", "level": "basic"})
        ben_cookie = ben.token
        async with ada.socket(code) as ada_ws:
            async with ben.socket(code) as ben_ws:
                await ben_ws.wait_for(lambda m: m["type"] == "room")
                match_id = (await ada.post(f"/api/rooms/{code}/start"))["match"]["id"]
                await ben_ws.wait_state()
            async with autoplay(ada_ws):  # Ben has left; a stand-in plays for him
                before_restart = await _eventually(lambda: stored_marks(database_url, match_id), 10)
    assert {(seat, reason) for _, seat, reason in before_restart} == {(1, "away")}

    async with running_server(database_url, **settings) as restarted, browser(restarted) as ben:
        ben.http.cookies.set("session", ben_cookie)
        async with ben.socket(code) as ben_ws:
            state = await ben_ws.wait_state(lambda m: m["match_id"] == match_id)
    stored = {mark for mark in stored_marks(database_url, match_id) if mark[0] <= state["version"]}
    assert before_restart <= stored
    # The hand log the returning person reads (the away summary and the play log's marks) has
    # every marked move, the ones made before the restart included.
    assert logged_marks(state) == stored


async def test_the_timer_marks_are_read_by_a_socket_on_the_other_process(database_url: str) -> None:
    """Two processes sweep the deadlines: a mark made by one is in the hand log a socket on the
    other one reads (from the stored log, not the memory of the process that made it)."""
    scale = 1 / 15  # a 15 s timer lasts 1 s
    settings = {"pubsub": "postgres", "deadline_scale": scale, **FAST}
    async with (
        running_server(database_url, **settings) as one,
        running_server(database_url, **settings) as two,
        browser(one, "Ada") as ada,
    ):
        code, match_id = await _timer_room(ada, 15)
        async with ada.socket(code) as ada_ws:  # connected, but she never plays
            await ada_ws.wait_state()
            timed = await _eventually(lambda: len(stored_marks(database_url, match_id)) >= 2, 20)
            assert timed
        one_claimed, two_claimed = (
            {c[3] for c in server.services.tables.clock.claims if c[0] == "turn" and c[1] == match_id}
            for server in (one, two)
        )
        # A socket on a process that did not play some of the timed-out moves.
        reader, made_elsewhere = (two, one_claimed) if one_claimed else (one, two_claimed)
        async with browser(reader) as tab:
            tab.http.cookies.set("session", ada.token)
            async with tab.socket(code) as late:
                state = await late.wait_state(lambda m: m["match_id"] == match_id)
    stored = {mark for mark in stored_marks(database_url, match_id) if mark[0] <= state["version"]}
    assert {(seat, reason) for _, seat, reason in stored} == {(0, "time")}
    assert any(version - 1 in made_elsewhere for version, _, _ in stored)  # seq = version - 1
    assert logged_marks(state) == stored


async def test_a_socket_on_the_other_process_is_sent_the_moves_made_there_with_their_events(
    database_url: str,
) -> None:
    """Ada's socket is on the process that neither plays the bots nor (looking at deadlines
    every 10 s) times her out: the states it is sent still carry the events of the moves the
    other process made, time's-up mark included, so her table moves the cards and says what was
    played for her just as on the process that made the move."""
    scale = 1 / 15  # a 15 s timer lasts 1 s
    settings = {"pubsub": "postgres", "deadline_scale": scale, **FAST}
    async with (
        running_server(database_url, **settings) as one,
        running_server(database_url, **{**settings, "deadline_poll": 10}) as two,
        browser(one, "Ada") as ada,
        browser(two) as ada_elsewhere,
    ):
        ada_elsewhere.http.cookies.set("session", ada.token)
        code, match_id = await _timer_room(ada, 15)
        async with ada_elsewhere.socket(code) as ada_ws:  # connected, but she never plays
            await ada_ws.wait_state(lambda m: m["match_id"] == match_id)
            timed = await ada_ws.wait_for(
                lambda m: m["type"] == "state" and any(e["type"] == "auto" for e in m["events"]), 20
            )
        claimed_by_one = {c[3] for c in one.services.tables.clock.claims if c[0] == "turn"}
    ((mark, covered),) = marks(timed["events"])
    assert (mark["seat"], mark["reason"]) == (0, "time")
    assert mark["version"] - 1 in claimed_by_one, "the other process made this move"  # seq = version - 1
    assert covered and all(event.get("seat") in (0, None) for event in covered)
