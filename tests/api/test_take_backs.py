"""Take-backs over the WebSocket (`{"type": "take_back", "match_id", "seat", "version"}`): the
room setting, a take-back allowed and refused in every game, the race against the next action
on two server processes, a restart in between, and replays, log exports and match pages after
take-backs."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from engine import GAMES, TAKE_BACK, get_game
from tests.api.harness import Person, TableSocket, browser, running_server

pytestmark = pytest.mark.asyncio

BOT_DELAY = 0.6
"""Long enough for a take-back to arrive before the bot after the person moves, even on a busy machine."""
PERSON_SEAT = 1
"""Ada's seat: in French Tarot seat 0 deals, so seat 1 bids first (its bid never turns the dog over)."""


async def _room(
    host: Person, game_id: str, seats: int, bots: bool = True, take_backs: str | None = None
) -> str:
    """A one-hand room with the host in PERSON_SEAT and bots elsewhere (when `bots`)."""
    body: dict[str, Any] = {"game_id": game_id, "seats": seats, "options": {"hands": 1}}
    if take_backs is not None:
        body["take_backs"] = take_backs
    room = await host.post("/api/rooms", body, expect=201)
    code = room["code"]
    await host.post(f"/api/rooms/{code}/seats/{PERSON_SEAT}", {"as": "me"})
    for n in range(seats):
        if bots and n != PERSON_SEAT:
            await host.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot", "level": "basic"})
    return code


async def _ask_take_back(socket: TableSocket, seat: int, version: int) -> None:
    """Send the take-back of the action that made `version` (in the match of the latest state)."""
    assert socket.state is not None
    match_id = socket.state["match_id"]
    await socket.send({"type": TAKE_BACK, "match_id": match_id, "seat": seat, "version": version})


async def _take_back(socket: TableSocket, seat: int, version: int) -> dict[str, Any]:
    """Ask to take back the action that made `version`; the answer: the state with the take-back
    event, or the error."""
    await _ask_take_back(socket, seat, version)
    return await socket.wait_for(
        lambda m: (
            m["type"] == "error"
            or (m["type"] == "state" and any(e["type"] == TAKE_BACK for e in m["events"]))
        )
    )


async def _my_turn(socket: TableSocket, seat: int, after: int = -1, or_over: bool = False) -> dict[str, Any]:
    """The first state after version `after` (the latest one received included) in which `seat`
    may act (or, with `or_over`, the match is over)."""

    def wanted(message: dict[str, Any]) -> bool:
        over = or_over and message["views"][str(seat)]["phase"] == "match_over"
        return message["version"] > after and (bool(message["legal"].get(str(seat))) or over)

    if socket.state is not None and wanted(socket.state):
        return socket.state
    return await socket.wait_state(wanted)


@pytest.mark.parametrize("game_id", sorted(GAMES))
async def test_a_person_takes_back_their_last_action_until_the_next_one_in_every_game(
    database_url: str, game_id: str
) -> None:
    """Ada plays the first legal action until one may be taken back (the engine refuses, with
    its reason, those that showed hidden cards); everyone then sees it undone at a higher
    version; once a bot has acted after her next action, taking that one back is refused."""
    game = get_game(game_id)
    seat = PERSON_SEAT
    async with (
        running_server(database_url, bot_delay=BOT_DELAY) as server,
        browser(server, "Ada") as ada,
        browser(server, "Ben") as ben,
    ):
        code = await _room(ada, game_id, game.min_players)
        async with ada.socket(code) as ada_ws, ben.socket(code) as ben_ws:
            await ada.post(f"/api/rooms/{code}/start")
            engine_refusals: list[str] = []
            for _ in range(40):
                turn = await _my_turn(ada_ws, seat)
                action = turn["legal"][str(seat)][0]
                await ada_ws.act(seat, turn["version"], action)
                played = await ada_ws.wait_state(lambda m, v=turn["version"]: m["version"] > v)
                answer = await _take_back(ada_ws, seat, played["version"])
                if answer["type"] == "error":
                    assert "take_back" not in played, "the state offered a take-back the engine refuses"
                    assert answer["code"] == "take_back_refused"
                    assert answer["messages"]["ja"] and answer["messages"]["ja"] != answer["messages"]["en"]
                    engine_refusals.append(answer["message"])
                    continue
                break
            else:
                pytest.fail(f"no action could be taken back; refusals: {engine_refusals}")
            assert played["version"] == turn["version"] + 1
            assert played["take_back"] == seat, "the state says who may take back now"
            assert "take_back" not in answer, "a take-back cannot itself be taken back"
            assert answer["version"] == played["version"] + 1, "a take-back raises the version"
            assert answer["legal"][str(seat)] == turn["legal"][str(seat)]
            assert answer["views"][str(seat)]["hand"] == turn["views"][str(seat)]["hand"]
            event = next(e for e in answer["events"] if e["type"] == TAKE_BACK)
            assert event == {"type": TAKE_BACK, "seat": seat, "action": action}
            seen = await ben_ws.wait_state(lambda m: m["version"] == answer["version"])
            assert seen["spectator"]["hand_counts"] == turn["views"][str(seat)]["hand_counts"]
            assert any(e["type"] == TAKE_BACK for e in seen["events"])

            # The same action again; the next one (a bot's, or Ada's own when the action gave her
            # the turn again, e.g. she won the trick) means it is no longer the last action.
            await ada_ws.act(seat, answer["version"], action)
            again = await ada_ws.wait_state(lambda m: m["version"] > answer["version"])
            if again["legal"].get(str(seat)):
                await ada_ws.act(seat, again["version"], again["legal"][str(seat)][0])
            moved_on = await ada_ws.wait_state(lambda m: m["version"] > again["version"])
            assert moved_on["version"] > again["version"]
            refused = await _take_back(ada_ws, seat, again["version"])
            assert refused["type"] == "error" and refused["code"] == "take_back_refused"
            assert "moved on" in refused["message"] and refused["messages"]["ja"]


async def test_the_take_back_setting_is_validated_shown_and_fixed_during_a_match(database_url: str) -> None:
    async with running_server(database_url, bot_delay=BOT_DELAY) as server, browser(server, "Ada") as ada:
        default = await ada.post("/api/rooms", {"game_id": "holy-grail", "seats": 3}, expect=201)
        assert default["take_backs"] == "until_next"
        bad = await ada.http.post(
            "/api/rooms", json={"game_id": "holy-grail", "seats": 3, "take_backs": "always"}
        )
        assert bad.status_code == 422
        code = await _room(ada, "holy-grail", 3, take_backs="off")
        room = await ada.get(f"/api/rooms/{code}")
        assert room["take_backs"] == "off"
        bad_patch = await ada.http.patch(f"/api/rooms/{code}", json={"take_backs": None})
        assert bad_patch.status_code == 422
        patched = await ada.http.patch(f"/api/rooms/{code}", json={"take_backs": "until_next"})
        assert patched.status_code == 200 and patched.json()["take_backs"] == "until_next"
        patched = await ada.http.patch(f"/api/rooms/{code}", json={"take_backs": "off"})
        assert patched.json()["take_backs"] == "off"
        async with ada.socket(code) as ada_ws:
            await ada.post(f"/api/rooms/{code}/start")
            during = await ada.http.patch(f"/api/rooms/{code}", json={"take_backs": "until_next"})
            assert during.status_code == 409
            assert "take_backs" in during.json()["detail"] and during.json()["messages"]["ja"]
            turn = await _my_turn(ada_ws, PERSON_SEAT)
            await ada_ws.act(PERSON_SEAT, turn["version"], turn["legal"][str(PERSON_SEAT)][0])
            played = await ada_ws.wait_state(lambda m: m["version"] > turn["version"])
            answer = await _take_back(ada_ws, PERSON_SEAT, played["version"])
            assert answer["type"] == "error" and answer["code"] == "take_back_refused"
            assert answer["message"] == "this room does not allow take-backs"
            assert answer["messages"]["ja"] == "この部屋では待ったはできません"


async def _play_until(sockets: dict[int, TableSocket], observer: TableSocket, wanted: Any) -> dict[str, Any]:
    """Each seat's person plays their first legal action in turn until the observer's state
    satisfies `wanted`; returns that state."""
    state = observer.state or await observer.wait_state()
    while not wanted(state):
        acting = state["views"]["0"]["to_act"]
        if acting and acting[0] >= 0:
            mover = acting[0]
            turn = await _my_turn(sockets[mover], mover, after=state["version"] - 1)
            if turn["version"] == state["version"]:
                await sockets[mover].act(mover, turn["version"], turn["legal"][str(mover)][0])
        state = await observer.wait_state(lambda m, v=state["version"]: m["version"] > v)
    return state


def _log(database_url: str, match_id: int) -> list[tuple[int, int, dict[str, Any]]]:
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text("SELECT seq, seat, action FROM match_actions WHERE match_id = :m ORDER BY seq"),
                {"m": match_id},
            ).all()
    finally:
        engine.dispose()
    return [(seq, seat, action) for seq, seat, action in rows]


async def test_a_take_back_racing_the_next_players_action_on_two_servers_lets_exactly_one_win(
    database_url: str,
) -> None:
    """Ada (on one process) plays and takes back while Ben (on the other) answers her play:
    whichever commits first wins, the other is refused, and the log holds exactly one of them."""
    async with (
        running_server(database_url, pubsub="postgres") as one,
        running_server(database_url, pubsub="postgres") as two,
        browser(one, "Ada") as ada,
        browser(two, "Ben") as ben,
        browser(one, "Cy") as cy,
    ):
        code = await _room(ada, "holy-grail", 3, bots=False)
        await ben.get(f"/api/rooms/{code}")
        await cy.get(f"/api/rooms/{code}")
        for person, n in ((ben, 2), (cy, 0)):
            await person.post(f"/api/rooms/{code}/seats/{n}", {"as": "me"})
        async with ada.socket(code) as ada_ws, ben.socket(code) as ben_ws, cy.socket(code) as cy_ws:
            await ada.post(f"/api/rooms/{code}/start")
            sockets = {0: cy_ws, 1: ada_ws, 2: ben_ws}
            winners = []
            while len(winners) < 4:
                seen = await _play_until(sockets, cy_ws, lambda m: m["views"]["0"]["to_act"] == [1])
                turn = await _my_turn(ada_ws, 1, after=seen["version"] - 1)
                await ada_ws.act(1, turn["version"], turn["legal"]["1"][0])
                after = await cy_ws.wait_state(lambda m, v=turn["version"]: m["version"] > v)
                if after["version"] != turn["version"] + 1 or after["views"]["0"]["to_act"] != [2]:
                    continue  # a trick ended with a deal, or someone else leads: nothing to race
                version = after["version"]
                ben_turn = await _my_turn(ben_ws, 2, after=version - 1)
                await asyncio.gather(
                    _ask_take_back(ada_ws, 1, version),
                    ben_ws.act(2, version, ben_turn["legal"]["2"][0]),
                )
                await cy_ws.wait_state(lambda m, v=version: m["version"] > v)
                log = _log(database_url, turn["match_id"])
                assert [seq for seq, _, _ in log] == list(range(len(log))), "nothing lost or doubled"
                winner = log[version][1]
                assert winner in (1, 2) and (winner == 1) == (log[version][2]["type"] == TAKE_BACK)
                if version + 1 < len(log):
                    assert log[version + 1][1] != 3 - winner, "the loser's message was applied too"
                winners.append(winner)
                loser = ada_ws if winner == 2 else ben_ws
                error = await loser.wait_for(lambda m: m["type"] == "error")
                assert error["code"] == ("take_back_refused" if winner == 2 else "stale")
                assert error["messages"]["ja"]
            assert winners, "no race was run"


async def test_a_take_back_survives_a_restart_and_the_next_action_follows_it(database_url: str) -> None:
    async with running_server(database_url, bot_delay=BOT_DELAY) as server, browser(server, "Ada") as ada:
        code = await _room(ada, "holy-grail", 3)
        async with ada.socket(code) as ada_ws:
            await ada.post(f"/api/rooms/{code}/start")
            while True:
                turn = await _my_turn(ada_ws, PERSON_SEAT)
                await ada_ws.act(PERSON_SEAT, turn["version"], turn["legal"][str(PERSON_SEAT)][0])
                played = await ada_ws.wait_state(lambda m, v=turn["version"]: m["version"] > v)
                answer = await _take_back(ada_ws, PERSON_SEAT, played["version"])
                if answer["type"] == "state":
                    break
        token = ada.token
    async with running_server(database_url, bot_delay=BOT_DELAY) as server, browser(server) as ada:
        ada.http.cookies.set("session", token)
        async with ada.socket(code) as ada_ws:
            back = await ada_ws.wait_state()
            assert back["version"] == answer["version"]
            assert back["legal"][str(PERSON_SEAT)] == turn["legal"][str(PERSON_SEAT)]
            assert back["views"][str(PERSON_SEAT)] == answer["views"][str(PERSON_SEAT)]
            second = back["legal"][str(PERSON_SEAT)][-1]
            await ada_ws.act(PERSON_SEAT, back["version"], second)
            moved = await ada_ws.wait_state(lambda m: m["version"] > back["version"])
            assert moved["views"][str(PERSON_SEAT)]["hand_counts"][PERSON_SEAT] == (
                back["views"][str(PERSON_SEAT)]["hand_counts"][PERSON_SEAT] - 1
            )


async def test_replay_export_and_match_page_after_take_backs(database_url: str) -> None:
    """A one-hand match in which Ada takes back every action she may: its replay shows each
    take-back as a step, its log export replays to the stored scores, and its page counts them."""
    async with running_server(database_url, bot_delay=0.3) as server, browser(server, "Ada") as ada:
        code = await _room(ada, "holy-grail", 3)
        async with ada.socket(code) as ada_ws:
            await ada.post(f"/api/rooms/{code}/start")
            taken = 0
            state = await _my_turn(ada_ws, PERSON_SEAT)
            while state["legal"].get(str(PERSON_SEAT)):
                action = state["legal"][str(PERSON_SEAT)][0]
                await ada_ws.act(PERSON_SEAT, state["version"], action)
                played = await ada_ws.wait_state(lambda m, v=state["version"]: m["version"] > v)
                if taken < 3:
                    answer = await _take_back(ada_ws, PERSON_SEAT, played["version"])
                    if answer["type"] == "state":
                        taken += 1
                        await ada_ws.act(PERSON_SEAT, answer["version"], action)
                        played = await ada_ws.wait_state(lambda m, v=answer["version"]: m["version"] > v)
                state = await _my_turn(ada_ws, PERSON_SEAT, after=played["version"] - 1, or_over=True)
            match_id = state["match_id"]
        assert taken > 0
        replay = await ada.get(f"/api/matches/{match_id}/replay")
        steps = [step for step in replay["steps"] if step["action"]["type"] == TAKE_BACK]
        assert len(steps) == taken and all(step["seat"] == PERSON_SEAT for step in steps)
        exported = await ada.get(f"/api/matches/{match_id}/log")
        assert sum(1 for _, action in exported["log"] if action["type"] == TAKE_BACK) == taken
        rebuilt = get_game(exported["game_id"]).replay(
            exported["players"], exported["options"], exported["log"]
        )
        assert rebuilt.is_over and list(rebuilt.scores) == exported["scores"]
        page = await ada.get(f"/api/matches/{match_id}")
        assert [seat["take_backs"] for seat in page["seats"]] == [
            taken if seat["n"] == PERSON_SEAT else 0 for seat in page["seats"]
        ]
