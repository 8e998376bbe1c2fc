"""History and leaderboards are computed from the stored per-hand and final results."""

from __future__ import annotations

import pytest

from tests.api.harness import Person, browser, make_room, play_until_over, running_server

pytestmark = pytest.mark.asyncio


async def play_match(
    code: str, host: Person, seating: dict[int, Person | str], players: list[Person]
) -> dict:
    """Seat, start, and play the match to its end through the people's sockets."""
    for n, who in seating.items():
        if who == "bot":
            await host.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot"})
        else:
            await who.post(f"/api/rooms/{code}/seats/{n}", {"as": "me"})
    sockets = [person.socket(code) for person in players]
    opened = [await s.__aenter__() for s in sockets]
    try:
        for ws in opened:
            await ws.recv()
        room = await host.post(f"/api/rooms/{code}/start")
        final = await play_until_over(opened, timeout=60, match_id=room["match"]["id"])
    finally:
        for s in sockets:
            await s.__aexit__(None, None, None)
    return {"match_id": room["match"]["id"], "final": final}


def final_scores(result: dict) -> list[float]:
    view = next(iter(result["final"]["views"].values()))
    return [float(s) for s in view["scores"]]


async def test_history_and_leaderboards_add_up_the_stored_results(database_url: str) -> None:
    async with (
        running_server(database_url, bot_delay=0) as server,  # bots' pauses add nothing to this test
        browser(server, "Host") as host,
        browser(server, "Guest") as guest,
        browser(server, "Stranger") as stranger,
    ):
        code = (await make_room(host, seats=3, hands=1))["code"]
        await guest.get(f"/api/rooms/{code}")
        first = await play_match(code, host, {0: host, 1: guest, 2: "bot"}, [host, guest])
        await guest.http.delete(f"/api/rooms/{code}/seats/1")
        second = await play_match(code, host, {1: "bot"}, [host])  # the rematch: same room, seat 1 now a bot
        own_code = (await make_room(stranger, seats=3, hands=1))["code"]
        third = await play_match(own_code, stranger, {0: stranger, 1: "bot", 2: "bot"}, [stranger])

        s1, s2, s3 = final_scores(first), final_scores(second), final_scores(third)
        room = await host.get(f"/api/rooms/{code}")
        assert room["match"]["number"] == 2 and room["match"]["status"] == "finished"

        # The person's matches, newest first, with their own score.
        mine = await host.get("/api/me/matches")
        assert [m["id"] for m in mine] == [second["match_id"], first["match_id"]]
        assert [m["my_score"] for m in mine] == [s2[0], s1[0]]
        assert mine[0]["room_code"] == code and mine[0]["game_id"] == "holy-grail"
        assert [s["name"] for s in mine[1]["seats"]] == ["Host", "Guest", "Bot"]
        assert [m["id"] for m in await guest.get("/api/me/matches")] == [first["match_id"]]

        # The room's leaderboard: sums of final scores per person, bots as one entry.
        board = {entry["name"]: entry for entry in await guest.get(f"/api/rooms/{code}/leaderboard")}
        assert board["Host"]["score"] == s1[0] + s2[0] and board["Host"]["matches"] == 2
        assert board["Guest"]["score"] == s1[1] and board["Guest"]["matches"] == 1
        assert board["Bot"]["score"] == s1[2] + s2[1] + s2[2] and board["Bot"]["matches"] == 2
        assert "Stranger" not in board
        ordered = sorted(board.values(), key=lambda e: e["rank"])
        assert [e["score"] for e in ordered] == sorted((e["score"] for e in ordered), reverse=True)

        # The overall leaderboard: the viewer and the people who share a room with them.
        overall = {e["name"]: e for e in await guest.get("/api/leaderboard")}
        assert set(overall) == {"Host", "Guest"}
        assert overall["Host"]["score"] == s1[0] + s2[0] and overall["Guest"]["is_me"] is True
        assert {e["name"] for e in await stranger.get("/api/leaderboard")} == {"Stranger"}
        assert (await stranger.get("/api/leaderboard"))[0]["score"] == s3[0]

        # A match's score table is for members of its room only.
        hidden = await stranger.http.get(f"/api/matches/{first['match_id']}")
        assert hidden.status_code == 404 and "member" in hidden.json()["detail"]
        table = await guest.get(f"/api/matches/{second['match_id']}")
        assert table["number"] == 2 and [h["hand_no"] for h in table["hands"]] == [1]
        assert table["totals"] == s2
        assert [r["rank"] for r in table["ranking"]] == sorted(r["rank"] for r in table["ranking"])


async def test_a_person_holding_two_seats_of_one_team_is_credited_the_team_score_once(
    database_url: str,
) -> None:
    # Familia's two-person game: each person holds both seats of a pair (seats 0+2 and 1+3 are
    # teams by default), and every seat of a team shows the team's total.
    async with (
        running_server(database_url, bot_delay=0) as server,
        browser(server, "Anna") as anna,
        browser(server, "Ben") as ben,
    ):
        code = (await make_room(anna, game_id="familia", seats=4, hands=1))["code"]
        await ben.get(f"/api/rooms/{code}")
        result = await play_match(code, anna, {0: anna, 2: anna, 1: ben, 3: ben}, [anna, ben])
        scores = final_scores(result)
        assert scores[0] == scores[2] and scores[1] == scores[3], "teammates share the team's total"

        mine = await anna.get("/api/me/matches")
        assert mine[0]["my_seats"] == [0, 2] and mine[0]["my_score"] == scores[0]
        board = {e["name"]: e for e in await anna.get(f"/api/rooms/{code}/leaderboard")}
        assert board["Anna"]["score"] == scores[0] and board["Ben"]["score"] == scores[1]
        assert board["Anna"]["matches"] == 1
        overall = {e["name"]: e for e in await ben.get("/api/leaderboard")}
        assert overall["Ben"]["score"] == scores[1]
