"""Replays and log exports of finished matches: built from the stored log, for members of the
match's room only, and only once the match is over (nothing about a running match's cards)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from app.live.replays import expand_steps
from engine import CHANCE, GAMES
from tests.api.harness import Person, Server, browser, make_room, running_server

pytestmark = pytest.mark.asyncio


def stored_log(database_url: str, match_id: int) -> list[tuple[int, dict[str, Any]]]:
    engine = create_engine(database_url)
    with engine.connect() as conn:
        rows = conn.execute(
            text("SELECT seat, action FROM match_actions WHERE match_id = :m ORDER BY seq"), {"m": match_id}
        ).all()
    engine.dispose()
    return [(seat, action) for seat, action in rows]


def dealt_cards(action: dict[str, Any]) -> Counter[str]:
    """Every card a chance action orders (a `deck`, and Familia's face-card piles)."""
    return Counter(
        card
        for value in action.values()
        if isinstance(value, list) and all(isinstance(c, str) for c in value)
        for card in value
    )


async def bots_play_one_hand(server: Server, host: Person, game_id: str, seats: int) -> int:
    """A one-hand match of basic bots in the host's room, played to its end; its id."""
    code = (await make_room(host, game_id, seats, hands=1))["code"]
    for n in range(seats):
        await host.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot", "level": "basic"})
    async with host.socket(code) as watcher:
        await watcher.recv()
        room = await host.post(f"/api/rooms/{code}/start")
        await watcher.wait_for(lambda m: m["type"] == "state" and m["spectator"]["to_act"] == [], 90)
    return int(room["match"]["id"])


@pytest.mark.parametrize("game_id", sorted(GAMES))
async def test_a_finished_match_replays_step_by_step_with_every_hand_shown_and_exports_its_log(
    database_url: str, game_id: str
) -> None:
    game = GAMES[game_id]
    seats = max(game.min_players, 4)
    async with running_server(database_url, bot_delay=0) as server, browser(server, "Host") as host:
        match_id = await bots_play_one_hand(server, host, game_id, seats)
        response = await host.http.get(f"/api/matches/{match_id}/replay")
        assert response.status_code == 200, response.text
        assert response.headers["content-encoding"] == "gzip"
        replay = response.json()
        export = await host.get(f"/api/matches/{match_id}/log")
    log = stored_log(database_url, match_id)

    # One step per logged action, in order, with the action as stored.
    assert [step["version"] for step in replay["steps"]] == list(range(1, len(log) + 1))
    assert [(step["seat"], step["action"]) for step in replay["steps"]] == log
    assert replay["game_id"] == game_id and [s["name"] for s in replay["seats"]] == ["Bot"] * seats
    steps = expand_steps(replay["steps"], replay["hands"])

    # Right after the first deal the observer sees every seat's cards and the undealt piles.
    first_deal = next(i for i, (seat, action) in enumerate(log) if seat == CHANCE and dealt_cards(action))
    view = steps[first_deal]["view"]
    assert view["observer"] is True and all(view["all_hands"])
    shown = Counter(card for hand in view["all_hands"] for card in hand)
    shown += Counter(card for pile in view["unseen"].values() for card in pile)
    assert shown == dealt_cards(log[first_deal][1])
    # Each step's view is the engine's observer view after that action, with the finished hands.
    check = game.new_match(seats, replay["options"])
    for step, (seat, action) in zip(steps, log, strict=True):
        check.apply(seat, action)
        if step["version"] in (1, first_deal + 1, len(log) // 2, len(log)):
            assert step["view"] == json.loads(json.dumps(check.view_all() | {"hands": check.hands}))
    assert steps[-1]["view"]["phase"] == "match_over"

    # The export replays to the stored results.
    assert export["log"] == [[seat, action] for seat, action in log]
    rebuilt = game.replay(export["players"], export["options"], export["log"])
    assert rebuilt.is_over
    assert [float(s) for s in rebuilt.scores] == [float(s) for s in export["scores"]]
    assert [h["scores"] for h in rebuilt.hands] == [h["scores"] for h in export["hands"]]
    assert replay["scores"] == export["scores"]


async def test_only_members_of_the_room_may_review_a_match(database_url: str) -> None:
    async with (
        running_server(database_url, bot_delay=0) as server,
        browser(server, "Host") as host,
        browser(server, "Guest") as guest,
        browser(server, "Stranger") as stranger,
        browser(server) as nobody,
    ):
        match_id = await bots_play_one_hand(server, host, "holy-grail", 3)
        room_code = (await host.get(f"/api/matches/{match_id}"))["room_code"]
        await guest.get(f"/api/rooms/{room_code}")  # joins as a member
        for path in (f"/api/matches/{match_id}/replay", f"/api/matches/{match_id}/log"):
            refused = await stranger.http.get(path)
            assert refused.status_code == 403 and "member" in refused.json()["detail"]
            assert set(refused.json()) == {"detail", "messages"}
            assert (await nobody.http.get(path)).status_code == 401
            assert (await guest.http.get(path)).status_code == 200
        assert (await host.http.get("/api/matches/999999/replay")).status_code == 404
        # A client that does not accept gzip gets the same replay uncompressed.
        plain = await host.http.get(
            f"/api/matches/{match_id}/replay", headers={"Accept-Encoding": "identity"}
        )
        assert "content-encoding" not in plain.headers and plain.json()["match_id"] == match_id


async def test_a_running_match_has_no_replay_and_its_refusal_names_no_card(database_url: str) -> None:
    async with (
        running_server(database_url, bot_delay=0) as server,
        browser(server, "Host") as host,
        browser(server, "Guest") as guest,
    ):
        code = (await make_room(host, "french-tarot", 4, hands=1))["code"]
        await guest.get(f"/api/rooms/{code}")
        await host.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        for n in (1, 2, 3):
            await host.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot", "level": "basic"})
        async with host.socket(code) as table:
            await table.recv()
            room = await host.post(f"/api/rooms/{code}/start")
            await table.wait_state(lambda m: m["views"]["0"]["hand"] != [])  # dealt; waits for the host
            match_id = room["match"]["id"]
            bodies = []
            for person in (host, guest):
                for path in (f"/api/matches/{match_id}/replay", f"/api/matches/{match_id}/log"):
                    response = await person.http.get(path)
                    assert response.status_code == 409, response.text
                    bodies.append(response.text)
            assert set(json.loads(bodies[0])) == {"detail", "messages"}
        log = stored_log(database_url, match_id)
    match = GAMES["french-tarot"].replay(4, room["options"], log)
    assert not match.is_over
    view = match.view_all()
    hidden = [card for hand in view["all_hands"] for card in hand]
    hidden += [card for pile in view["unseen"].values() for card in pile]
    assert len(hidden) == 78
    for body in bodies:
        for card in hidden:
            assert f'"{card}"' not in body and f" {card} " not in body, f"a 409 body names {card}"


async def test_a_deal_seed_deals_and_plays_every_match_of_a_table_alike(database_url: str) -> None:
    """CARDTABLE_DEAL_SEED (tests, demonstrations): shuffles and basic bots' moves come from the
    seed and the match's state, so two tables of one game and size see the very same match."""
    seeded = running_server(database_url, bot_delay=0, deal_seed=76)
    async with seeded as server, browser(server, "Ann") as ann, browser(server, "Ben") as ben:
        first = await bots_play_one_hand(server, ann, "yaya-fugou", 7)
        second = await bots_play_one_hand(server, ben, "yaya-fugou", 7)
    logs = [stored_log(database_url, match_id) for match_id in (first, second)]
    assert logs[0] == logs[1] and logs[0][0][0] == CHANCE
