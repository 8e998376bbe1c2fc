"""Same-deal rematches (the source's shuffles, optionally rotated one seat), room names and
per-room match numbers, through the real server and database."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from app.store.matches import MatchStore
from app.store.rematch import DealPlan, plan_deals
from engine import CHANCE, get_game
from engine.bots import bot_action
from tests.api.harness import TLS, WAIT, Person, Server, browser, make_room, running_server

pytestmark = pytest.mark.asyncio

Log = list[tuple[int, dict[str, Any]]]


async def bot_match(host: Person, code: str, body: dict[str, Any] | None = None, finish: bool = True) -> int:
    """Fill the empty seats with bots, start (with `body`), and wait until the match is over."""
    room = await host.get(f"/api/rooms/{code}")
    for seat in room["seats"]:
        if seat["kind"] is None:
            await host.post(f"/api/rooms/{code}/seats/{seat['n']}", {"as": "bot"})
    room = await host.post(f"/api/rooms/{code}/start", body)
    match_id = room["match"]["id"]
    if finish:
        await wait_finished(host, match_id)
    return int(match_id)


async def wait_finished(person: Person, match_id: int, timeout: float = 90) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        detail = await person.get(f"/api/matches/{match_id}")
        if detail["status"] == "finished":
            return detail
        assert asyncio.get_running_loop().time() < deadline, f"match {match_id} did not finish"
        await asyncio.sleep(0.05)


async def stored(server: Server, match_id: int) -> Any:
    return await server.services.tables.store.load(match_id)


def deals(
    game_id: str, players: int, options: dict[str, Any], log: Log
) -> list[tuple[Any, Any, list[Counter[str]]]]:
    """Per chance action of the log: the hand number, the dealer and the cards each seat got."""
    match = get_game(game_id).new_match(players, options)
    found = []
    for seat, action in log:
        if seat != CHANCE:
            match.apply(seat, action)
            continue
        before = [Counter(match.view(s)["hand"]) for s in range(players)]
        match.apply(seat, action)
        view = match.view(None)
        found.append(
            (
                view.get("hand_no"),
                view.get("dealer"),
                [Counter(match.view(s)["hand"]) - before[s] for s in range(players)],
            )
        )
    return found


def assert_same_cards(old: Any, new: Any, rotate: bool) -> int:
    """Every deal of the rematch made at the same point of the game (same hand, same dealer) as the
    source's gave each seat the cards the source gave the same seat (rotate: the seat before).
    Returns how many deals were compared."""
    players = old.players
    before, after = (
        deals(old.game_id, players, old.options, old.log),
        deals(new.game_id, players, new.options, new.log),
    )
    compared = 0
    for (hand_a, dealer_a, dealt_a), (hand_b, dealer_b, dealt_b) in zip(before, after, strict=False):
        if (hand_a, dealer_a) != (hand_b, dealer_b):
            break  # the rematch went differently (e.g. a redeal the source did not need)
        expected = [dealt_a[(s - 1) % players] for s in range(players)] if rotate else dealt_a
        assert dealt_b == expected
        compared += 1
    return compared


@pytest.mark.parametrize(
    ("game_id", "seats", "options"),
    [
        ("holy-grail", 4, {"hands": 2}),  # a chance draw for the first player, then a shuffle per hand
        ("french-tarot", 4, {"hands": 3}),  # all-pass and petit-sec redeals are extra shuffles
        ("familia", 5, {"hands": 1}),  # a shuffle per deal, two decks (repeated codes), face-card piles
    ],
)
async def test_a_same_deal_rematch_deals_the_source_matchs_cards_again_and_rotated(
    database_url: str, game_id: str, seats: int, options: dict[str, Any]
) -> None:
    async with (
        running_server(database_url, bot_delay=0, bot_level="basic") as server,
        browser(server, "Hana") as host,
    ):
        code = (await make_room(host, game_id, seats, **options))["code"]
        source_id = await bot_match(host, code)
        same_id = await bot_match(host, code, {"same_deals_as": source_id})
        rotated_id = await bot_match(host, code, {"same_deals_as": source_id, "rotate": True})

        source, same, rotated = [await stored(server, m) for m in (source_id, same_id, rotated_id)]
        assert (same.same_deals_as, same.rotate_deals) == (source_id, False)
        assert (rotated.same_deals_as, rotated.rotate_deals) == (source_id, True)
        old_chance = [a for s, a in source.log if s == CHANCE]
        same_chance = [a for s, a in same.log if s == CHANCE]
        # Without rotation the rematch's chance actions are the source's, in order, while they last.
        shared = min(len(old_chance), len(same_chance))
        assert shared >= 1 and same_chance[:shared] == old_chance[:shared]
        assert assert_same_cards(source, same, rotate=False) >= 1
        assert assert_same_cards(source, rotated, rotate=True) >= 1

        # Both match pages compare the same deals hand by hand.
        detail = await host.get(f"/api/matches/{same_id}")
        assert detail["same_deals_as"] == source_id and detail["rotate_deals"] is False
        [versus] = detail["same_deals"]
        assert versus["relation"] == "replay_of" and versus["match_id"] == source_id
        source_hands = (await host.get(f"/api/matches/{source_id}"))["hands"]
        for row, mine, theirs in zip(versus["hands"], detail["hands"], source_hands, strict=False):
            assert row["scores"] == mine["scores"] and row["other_scores"] == theirs["scores"]
        source_page = await host.get(f"/api/matches/{source_id}")
        relations = {c["match_id"]: c for c in source_page["same_deals"]}
        assert set(relations) == {same_id, rotated_id}
        assert relations[rotated_id]["relation"] == "replayed_by" and relations[rotated_id]["rotate"] is True
        # Seat s of the source held the cards seat s+1 holds in the rotated rematch.
        assert relations[rotated_id]["seat_map"] == [(s + 1) % seats for s in range(seats)]
        rotated_hands = (await host.get(f"/api/matches/{rotated_id}"))["hands"]
        for row, theirs in zip(relations[rotated_id]["hands"], rotated_hands, strict=False):
            assert row["other_scores"] == [theirs["scores"][(s + 1) % seats] for s in range(seats)]


async def test_a_rematch_that_needs_more_shuffles_than_its_source_deals_fresh_cards_and_says_so(
    database_url: str,
) -> None:
    async with (
        running_server(database_url, bot_delay=0, bot_level="basic") as server,
        browser(server, "Hana") as host,
    ):
        code = (await make_room(host, "holy-grail", 3, hands=1))["code"]
        source_id = await bot_match(host, code)
        await host.http.patch(f"/api/rooms/{code}", json={"options": {"hands": 3}})
        rematch_id = await bot_match(host, code, {"same_deals_as": source_id, "rotate": True})
        source, rematch = await stored(server, source_id), await stored(server, rematch_id)
        assert len([1 for s, _ in rematch.log if s == CHANCE]) > len(
            [1 for s, _ in source.log if s == CHANCE]
        )
        # The first-player draw and hand 1's shuffle are the source's; hands 2 and 3 are new.
        assert assert_same_cards(source, rematch, rotate=True) == 2
        [versus] = (await host.get(f"/api/matches/{rematch_id}"))["same_deals"]
        assert versus["fresh_hands"] == [2, 3]
        assert [row["fresh"] for row in versus["hands"]] == [False]  # only hand 1 exists in both


def _play(
    game_id: str, players: int, options: dict[str, Any], seed: int, plan: DealPlan | None = None
) -> Log:
    """A bots' match through the engine contract, dealt from `plan` while it lasts."""
    game = get_game(game_id)
    parsed = game.parse_options({**game.default_options(players), **options}, players).model_dump(mode="json")
    rng = random.Random(seed)
    match = game.new_match(players, parsed)
    while match.to_act():
        acting = match.to_act()
        if CHANCE in acting:
            planned = plan.next_action(match) if plan is not None else None
            if planned is None:
                match.deal_random(rng)
            else:
                match.apply(CHANCE, planned)
        else:
            match.apply(acting[0], bot_action(match, acting[0], rng))
    return list(match.log)


@pytest.mark.parametrize(
    ("game_id", "players", "options"),
    [
        ("holy-grail", 5, {"hands": 2}),
        ("french-tarot", 5, {"hands": 2}),
        ("fairy-500", 4, {}),
        ("yaya-fugou", 4, {"hands": 2}),
        ("familia", 4, {"hands": 1}),
        ("familia", 5, {"hands": 1}),
    ],
)
async def test_every_games_deals_rotate_one_seat_through_the_engine_contract(
    game_id: str, players: int, options: dict[str, Any]
) -> None:
    """The plan (app/store/rematch.py) for each game's deal format: every deal of a rotated rematch
    made at the same point of the game gives seat s what seat s-1 got in the source."""
    game = get_game(game_id)
    parsed = game.parse_options({**game.default_options(players), **options}, players).model_dump(mode="json")
    source_log = _play(game_id, players, options, seed=1)
    plan = DealPlan(1, True, tuple(plan_deals(game, players, parsed, source_log, rotate=True)))
    rematch_log = _play(game_id, players, options, seed=2, plan=plan)
    source = SimpleNamespace(game_id=game_id, players=players, options=parsed, log=source_log)
    rematch = SimpleNamespace(game_id=game_id, players=players, options=parsed, log=rematch_log)
    assert assert_same_cards(source, rematch, rotate=True) >= 1


@asynccontextmanager
async def signed_in(server: Server, token: str) -> AsyncIterator[Person]:
    """The same browser (session cookie) against another server process."""
    async with httpx.AsyncClient(
        base_url=server.base_url, timeout=WAIT, cookies={"session": token}, verify=TLS
    ) as http:
        yield Person(server=server, http=http)


async def test_the_planned_deals_survive_a_restart_of_the_server(database_url: str) -> None:
    """The link to the source is on the match row: a process that rebuilds the rematch from its log
    (after a restart, or another process) goes on dealing the source's cards."""
    async with (
        running_server(database_url, bot_delay=0, bot_level="basic") as server,
        browser(server, "Hana") as host,
    ):
        token = host.token
        code = (await make_room(host, "holy-grail", 3, hands=3))["code"]
        source_id = await bot_match(host, code)
        await host.post(f"/api/rooms/{code}/seats/0", {"as": "me"})  # the person takes the bot's seat
        rematch_id = await bot_match(host, code, {"same_deals_as": source_id}, finish=False)
    async with (
        running_server(database_url, bot_delay=0, bot_level="basic") as server,
        signed_in(server, token) as host,
    ):
        before_restart = await stored(server, rematch_id)
        assert not before_restart.finished  # the person in seat 0 has not played yet
        await host.post(f"/api/rooms/{code}/seats/0", {"as": "bot", "replace": True})
        await wait_finished(host, rematch_id)
        source, rematch = await stored(server, source_id), await stored(server, rematch_id)
        old_chance = [a for s, a in source.log if s == CHANCE]
        new_chance = [a for s, a in rematch.log if s == CHANCE]
        shared = min(len(old_chance), len(new_chance))
        assert shared == len(old_chance) >= 4  # the first-player draw and three shuffles
        assert new_chance[:shared] == old_chance[:shared]


async def test_same_deals_are_refused_for_another_game_seat_count_room_or_a_running_match(
    database_url: str,
) -> None:
    async with (
        running_server(database_url, bot_delay=0, bot_level="basic") as server,
        browser(server, "Hana") as host,
        browser(server, "Stranger") as stranger,
    ):
        code = (await make_room(host, "holy-grail", 3, hands=1))["code"]
        other_code = (await make_room(host, "holy-grail", 3, hands=1))["code"]
        tarot_code = (await make_room(host, "french-tarot", 3, hands=1))["code"]
        source_id = await bot_match(host, code)
        other_id = await bot_match(host, other_code)
        tarot_id = await bot_match(host, tarot_code)
        start = f"/api/rooms/{code}/start"

        async def refused(body: dict[str, Any], status: int, words: str, who: Person = host) -> None:
            response = await who.http.post(start, json=body)
            assert response.status_code == status, response.text
            answer = response.json()
            assert words in answer["detail"] and answer["messages"]["ja"] and answer["messages"]["en"]

        await refused({"same_deals_as": tarot_id}, 409, "was a game of french-tarot")
        await refused({"same_deals_as": other_id}, 409, "another room")
        await refused({"same_deals_as": 10**12}, 404, "no match")
        await refused({"rotate": True}, 422, "rotate needs same_deals_as")
        await refused({"same_deals_as": source_id}, 403, "only the host", who=stranger)
        # A match of a room the host has never opened is "not found", whatever it is.
        foreign = (await make_room(stranger, "holy-grail", 3, hands=1))["code"]
        foreign_id = await bot_match(stranger, foreign)
        await refused({"same_deals_as": foreign_id}, 404, "no match")

        # A running match cannot be dealt again: in another room it is refused as unfinished...
        await host.post(f"/api/rooms/{other_code}/seats/0", {"as": "me"})
        running_id = await bot_match(host, other_code, finish=False)
        await refused({"same_deals_as": running_id}, 409, "has not finished")
        # ... and in this room nothing starts while a match runs.
        await host.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        await bot_match(host, code, finish=False)
        await refused({"same_deals_as": source_id}, 409, "already running")

        # Another seat count: the room grew since the source was played.
        four = (await make_room(host, "holy-grail", 3, hands=1))["code"]
        three_id = await bot_match(host, four)
        await host.http.patch(f"/api/rooms/{four}", json={"seats": 4})
        response = await host.http.post(f"/api/rooms/{four}/start", json={"same_deals_as": three_id})
        assert response.status_code == 409  # the fourth seat is empty
        room = await host.get(f"/api/rooms/{four}")
        for seat in room["seats"]:
            if seat["kind"] is None:
                await host.post(f"/api/rooms/{four}/seats/{seat['n']}", {"as": "bot"})
        response = await host.http.post(f"/api/rooms/{four}/start", json={"same_deals_as": three_id})
        assert response.status_code == 409 and "had 3 seats" in response.json()["detail"]
        assert "3席" in response.json()["messages"]["ja"]


async def test_matches_are_numbered_per_room_even_when_two_rooms_interleave(database_url: str) -> None:
    async with (
        running_server(database_url, bot_delay=0, bot_level="basic") as server,
        browser(server, "Hana") as host,
    ):
        first = (await make_room(host, "holy-grail", 3, hands=1))["code"]
        second = (await make_room(host, "holy-grail", 3, hands=1))["code"]
        played: dict[str, list[int]] = {first: [], second: []}
        for code in (first, second, first, second, first):
            played[code].append(await bot_match(host, code))
        for code, numbers in ((first, [1, 2, 3]), (second, [1, 2])):
            found = [(await host.get(f"/api/matches/{m}"))["number"] for m in played[code]]
            assert found == numbers


async def test_two_transactions_starting_matches_in_one_room_get_consecutive_numbers(
    database_url: str,
) -> None:
    """The number comes from the room's counter, bumped by an UPDATE that holds the room's row:
    a second start (here: a second transaction, as another process would run) waits and gets
    the next number, even without the start route's own lock."""
    async with running_server(database_url, bot_delay=0) as server, browser(server, "Hana") as host:
        room = await make_room(host, "holy-grail", 3, hands=1)
        db = server.services.db
        async with db.session() as session:
            from sqlalchemy import select

            from app.store.models import Room

            room_id = await session.scalar(select(Room.id).where(Room.code == room["code"]))
        first_session = db.session()
        session_a = await first_session.__aenter__()
        first, _ = await MatchStore.create(session_a, room_id, "holy-grail", 3, {}, [])

        async def second() -> tuple[int, int]:
            async with db.session() as session_b:
                match_id, _ = await MatchStore.create(session_b, room_id, "holy-grail", 3, {}, [])
                from app.store.models import MatchRow

                return match_id, int((await session_b.get(MatchRow, match_id)).number)

        waiting = asyncio.create_task(second())
        await asyncio.sleep(0.3)
        assert not waiting.done()  # blocked on the room's row
        await first_session.__aexit__(None, None, None)  # commits
        second_id, second_number = await waiting
        async with db.session() as session:
            from app.store.models import MatchRow

            numbers = {(await session.get(MatchRow, m)).number for m in (first, second_id)}
        assert numbers == {1, 2} and second_number == 2


async def test_rooms_have_names_the_host_sets_and_a_default_in_both_languages(database_url: str) -> None:
    async with (
        running_server(database_url, bot_delay=0, bot_level="basic") as server,
        browser(server, "Hana") as host,
        browser(server, "Guest") as guest,
    ):
        unnamed = await make_room(host, "french-tarot", 3, hands=1)
        assert unnamed["name"] is None
        assert unnamed["display_name"] == {
            "en": "Hana's French Tarot table",
            "ja": "Hanaさんのフレンチタロット卓",
        }

        named = await host.post(
            "/api/rooms", {"game_id": "holy-grail", "seats": 3, "name": "  Friday cards  "}, expect=201
        )
        assert named["name"] == "Friday cards" and named["display_name"]["ja"] == "Friday cards"
        for bad in ["", "   ", "x" * 61, "tab\there", "line\nbreak", "nul\x07bell"]:
            response = await host.http.post("/api/rooms", json={"game_id": "holy-grail", "name": bad})
            assert response.status_code == 422, bad
            assert response.json()["messages"]["ja"]
        assert (await host.post("/api/rooms", {"game_id": "holy-grail", "name": "名" * 60}, expect=201))[
            "name"
        ]

        code = named["code"]
        await guest.get(f"/api/rooms/{code}")
        response = await guest.http.patch(f"/api/rooms/{code}", json={"name": "Mine now"})
        assert response.status_code == 403 and response.json()["messages"]["ja"]
        response = await host.http.patch(f"/api/rooms/{code}", json={"name": "\u3000"})
        assert response.status_code == 422

        # Renaming is allowed during a match, and changes nothing else.
        await host.http.delete(f"/api/rooms/{code}/seats/0")
        await host.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        match_id = await bot_match(host, code, finish=False)
        renamed = (await host.http.patch(f"/api/rooms/{code}", json={"name": "金曜の会"})).json()
        assert (
            renamed["name"] == "金曜の会"
            and renamed["seat_count"] == 3
            and renamed["match"]["status"] == "running"
        )
        response = await host.http.patch(f"/api/rooms/{code}", json={"seats": 4})
        assert response.status_code == 409  # the table itself stays fixed while the match runs

        detail = await host.get(f"/api/matches/{match_id}")
        assert detail["room_name"] == {"en": "金曜の会", "ja": "金曜の会"} and detail["number"] == 1
        [entry] = [m for m in await host.get("/api/me/matches") if m["id"] == match_id]
        assert entry["room_name"]["en"] == "金曜の会" and entry["number"] == 1

        # null goes back to the default name, which follows the host's display name.
        await host.http.patch("/api/me", json={"name": "Hanako"})
        back = (await host.http.patch(f"/api/rooms/{code}", json={"name": None})).json()
        # A game named with an exclamation is quoted after "table" rather than set inside the phrase.
        assert back["name"] is None and back["display_name"]["en"] == "Hanako's table: Get the Holy Grail!"
        assert (await guest.get(f"/api/rooms/{code}"))["display_name"][
            "ja"
        ] == "Hanakoさんの卓「聖杯を獲得せよ！」"
        # The invite code stays long and unguessable.
        assert len(code) >= 22


async def test_a_hosts_unnamed_rooms_of_one_game_are_numbered_so_history_tells_them_apart(
    database_url: str,
) -> None:
    # Hana sits in seat 0 without a socket: her stand-in takes over once the away grace is up,
    # which the scaled deadlines make a fraction of a second instead of a minute per match.
    async with (
        running_server(
            database_url, bot_delay=0, bot_level="basic", deadline_scale=0.02, deadline_poll=0.05
        ) as server,
        browser(server, "Hana") as hana,
        browser(server, "Ken") as ken,
    ):
        first = await make_room(hana, "holy-grail", 3, hands=1)
        other_game = await make_room(hana, "french-tarot", 3, hands=1)
        second = await make_room(hana, "holy-grail", 3, hands=1)
        kens = await make_room(ken, "holy-grail", 3, hands=1)
        assert first["display_name"]["en"] == "Hana's table: Get the Holy Grail!"
        assert second["display_name"] == {
            "en": "Hana's table: Get the Holy Grail! 2",
            "ja": "Hanaさんの卓「聖杯を獲得せよ！」 2",
        }
        assert other_game["display_name"]["en"] == "Hana's French Tarot table"  # another game: its own count
        assert kens["display_name"]["en"] == "Ken's table: Get the Holy Grail!"  # another host too

        for room in (first, second):
            await hana.post(f"/api/rooms/{room['code']}/seats/0", {"as": "me"})
        matches = {room["code"]: await bot_match(hana, room["code"]) for room in (first, second)}
        history = {m["room_code"]: m["room_name"]["en"] for m in await hana.get("/api/me/matches")}
        assert history[first["code"]] != history[second["code"]]
        assert history[second["code"]] == "Hana's table: Get the Holy Grail! 2"
        detail = await hana.get(f"/api/matches/{matches[second['code']]}")
        assert detail["room_name"]["en"] == "Hana's table: Get the Holy Grail! 2"
        replay = await hana.get(f"/api/matches/{matches[second['code']]}/replay")
        assert replay["room_name"]["en"] == "Hana's table: Get the Holy Grail! 2"

        # Naming the first room leaves the second the only unnamed one: it needs no number then.
        await hana.http.patch(f"/api/rooms/{first['code']}", json={"name": "Friday cards"})
        assert (await hana.get(f"/api/rooms/{second['code']}"))["display_name"]["en"] == (
            "Hana's table: Get the Holy Grail!"
        )
