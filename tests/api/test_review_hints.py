"""A fair review and hints: a move the server made for a person (their turn timer ran out) is
marked in the review and left out of their figures; a room whose host turned hints on answers a
seated person's ask, on their turn, with the strong bot's legal choice for their own seat (never
for spectators, off their turn, or in rooms without hints), and the review marks the decision."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import create_engine, text

from app.live.hints import HintLimiter
from tests.api.harness import Person, browser, make_room, play_until_over, running_server
from tests.api.test_analyses import QUICK, play_a_hand, until_done
from tests.api.test_away_players import FAST, _timer_room

pytestmark = pytest.mark.asyncio


async def test_a_move_made_when_the_timer_ran_out_is_marked_and_left_out_of_the_persons_figures(
    database_url: str,
) -> None:
    scale = 1 / 15  # a 15 s timer lasts 1 s
    async with (
        running_server(database_url, deadline_scale=scale, **FAST, **QUICK) as server,
        browser(server, "Ada") as ada,
    ):
        code, match_id = await _timer_room(ada, 15)
        async with ada.socket(code) as socket:
            timed = await socket.wait_state(lambda m: any(e["type"] == "auto" for e in m["events"]))
            versions = [e["version"] for e in timed["events"] if e["type"] == "auto"]
            await play_until_over([socket], match_id=match_id)
        review = await until_done(ada, match_id)
        record = await ada.get(f"/api/people/{ada.me['id']}/record")
    marked = [d for d in review["decisions"] if d["auto"]]
    assert {d["version"] for d in marked} >= set(versions)
    assert all(d["auto"] == "time" and d["seat"] == 0 for d in marked)
    own = [d for d in review["decisions"] if not d["auto"]]
    summary = review["summaries"]["0"]
    assert summary["auto"] == len(marked) > 0
    assert summary["decisions"] == len(own)
    assert summary["choices"] == sum(1 for d in own if d["legal"] > 1)
    assert summary["total_loss"] == pytest.approx(sum(d["loss"] for d in own))
    assert not {d["version"] for d in summary["costliest"]} & {d["version"] for d in marked}
    for decision in review["decisions"]:
        assert decision["hand"] == 1 and decision["phase"] == "play" and decision["trick"] >= 1
    (game,) = record["games"]
    choices = summary["choices"]
    assert game["average_loss"] == pytest.approx(summary["total_loss"] / choices if choices else None)


async def _hint(person: Person, match_id: int, seat: int, version: int, expect: int = 200) -> Any:
    body = {"seat": seat, "version": version}
    return await person.post(f"/api/matches/{match_id}/hint", body, expect=expect)


async def test_hints_answer_only_a_seated_person_on_their_turn_in_a_room_with_hints_on(
    database_url: str,
) -> None:
    async with (
        running_server(database_url, **QUICK) as server,
        browser(server, "Ada") as ada,
        browser(server, "Ben") as ben,
        browser(server, "Cy") as cy,
    ):
        body = {"game_id": "holy-grail", "seats": 3, "options": {"hands": 1}}
        plain = (await ada.post("/api/rooms", body, expect=201))["code"]
        room = await ada.post("/api/rooms", {**body, "hints": True}, expect=201)
        code = room["code"]
        assert room["hints"] is True
        assert (await ada.get(f"/api/rooms/{plain}"))["hints"] is False  # off by default
        changed = await ada.http.patch(f"/api/rooms/{plain}", json={"hints": True})
        assert changed.status_code == 200 and changed.json()["hints"] is True
        refused = await ada.http.patch(f"/api/rooms/{plain}", json={"hints": "yes"})
        assert refused.status_code == 422
        changed = await ada.http.patch(f"/api/rooms/{plain}", json={"hints": False})
        assert changed.json()["hints"] is False

        for person, where in ((ada, plain), (ada, code), (ben, code), (cy, code)):
            await person.get(f"/api/rooms/{where}")  # members
        await ada.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        await ben.post(f"/api/rooms/{code}/seats/1", {"as": "me"})
        await ada.post(f"/api/rooms/{code}/seats/2", {"as": "bot", "level": "basic"})
        await ada.post(f"/api/rooms/{plain}/seats/0", {"as": "me"})
        for n in (1, 2):
            await ada.post(f"/api/rooms/{plain}/seats/{n}", {"as": "bot", "level": "basic"})

        async with ada.socket(plain) as plain_ws:
            plain_id = int((await ada.post(f"/api/rooms/{plain}/start"))["match"]["id"])
            state = await plain_ws.wait_state(lambda m: bool(m["legal"].get("0")))
            off = await _hint(ada, plain_id, 0, state["version"], expect=403)
            assert off["messages"]["ja"]

        async with ada.socket(code) as ada_ws, ben.socket(code) as ben_ws:
            match_id = int((await ada.post(f"/api/rooms/{code}/start"))["match"]["id"])
            # Each socket is sent the legal actions of its own seat only.
            seen = await ada_ws.wait_state(lambda m: bool({0, 1} & set(m["views"]["0"]["to_act"])))
            turn = 0 if 0 in seen["views"]["0"]["to_act"] else 1
            player, other = (ada, ben) if turn == 0 else (ben, ada)
            socket = ada_ws if turn == 0 else ben_ws
            version = seen["version"]
            state = seen if turn == 0 else await ben_ws.wait_state(lambda m: m["version"] == version)
            await _hint(cy, match_id, turn, version, expect=403)  # a spectator
            await _hint(other, match_id, turn, version, expect=403)  # another seat's person
            await _hint(other, match_id, 1 - turn, version, expect=409)  # off their turn
            await _hint(player, match_id, turn, version + 1, expect=409)  # not the state they see
            await _hint(player, 999_999, turn, version, expect=404)

            hint = await _hint(player, match_id, turn, version)
            assert hint["seat"] == turn and hint["version"] == version and hint["match_id"] == match_id
            legal = state["legal"][str(turn)]
            (action,) = hint["actions"]
            assert action in legal
            assert await _hint(player, match_id, turn, version) == hint  # asked again: the same

            await socket.act(turn, version, action)
            await play_until_over([ada_ws, ben_ws], match_id=match_id)
        review = await until_done(player, match_id)
    (hinted,) = [d for d in review["decisions"] if d["hint"]]
    assert hinted["version"] == version + 1 and hinted["seat"] == turn
    assert hinted["hint"] == action and hinted["followed"] is True
    assert review["summaries"][str(turn)]["hinted"] == 1
    assert review["summaries"][str(1 - turn)]["hinted"] == 0


async def test_a_person_may_start_one_hint_search_at_a_time_and_ten_a_minute() -> None:
    limiter = HintLimiter(per_minute=10)
    assert limiter.retry_after(1) is None
    limiter.start(1)
    assert limiter.retry_after(1) == 1.0  # one search at a time
    assert limiter.retry_after(2) is None  # others are not held up
    limiter.done(1)
    for _ in range(9):
        assert limiter.retry_after(1) is None
        limiter.start(1)
        limiter.done(1)
    wait = limiter.retry_after(1)
    assert wait is not None and 0 < wait <= 60


async def test_a_review_of_an_older_analysis_is_not_counted_and_is_analysed_again_when_read(
    database_url: str,
) -> None:
    async with running_server(database_url, **QUICK) as server, browser(server, "Eve") as eve:
        code = (await make_room(eve, "holy-grail", 3, hands=1))["code"]
        match_id = await play_a_hand(eve, code)
        first = await until_done(eve, match_id)
        engine = create_engine(database_url)
        with engine.begin() as conn:  # as an earlier revision stored it
            conn.execute(
                text("UPDATE match_analyses SET result = result - 'revision' WHERE match_id = :m"),
                {"m": match_id},
            )
        engine.dispose()
        (game,) = (await eve.get(f"/api/people/{eve.me['id']}/record"))["games"]
        assert game["analysed"] == 0 and game["average_loss"] is None
        again = await eve.http.get(f"/api/matches/{match_id}/analysis")
        assert again.status_code == 202
        redone = await until_done(eve, match_id)
        (game,) = (await eve.get(f"/api/people/{eve.me['id']}/record"))["games"]
    assert redone["decisions"] == first["decisions"]
    assert game["analysed"] == 1
