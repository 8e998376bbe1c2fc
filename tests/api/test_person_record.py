"""A person's record (`GET /api/people/{id}/record`): per game, numbers from finished matches
whose results are written straight into the database (so every expected number is known), and
who may read it: the person and the people who share a room with them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import null, select

from app.store.models import HandResult, MatchAnalysis, MatchResult, MatchRow, MatchSeat, Room
from engine.analysis import REVISION
from tests.api.harness import Server, browser, make_room, running_server

pytestmark = pytest.mark.asyncio

START = datetime(2026, 1, 5, 20, 0, tzinfo=UTC)


async def store_match(
    server: Server,
    code: str,
    number: int,
    game_id: str,
    people: list[int | None],
    hands: list[list[float]],
    ranks: list[int],
    *,
    status: str = "finished",
    abandoned: bool = False,
    uncounted: tuple[int, ...] = (),
) -> int:
    """A match of the room `code` with one seat per entry of `people` (None: a bot), the given
    hand scores, final scores (the hands added up) and ranks; it finished `number` hours after
    START."""
    async with server.services.db.session() as session:
        room_id = await session.scalar(select(Room.id).where(Room.code == code))
        finished = START + timedelta(hours=number)
        row = MatchRow(
            room_id=room_id,
            number=number,
            game_id=game_id,
            players=len(people),
            options={},
            status=status,
            abandoned=abandoned,
            finished_at=finished if status == "finished" else None,
        )
        session.add(row)
        await session.flush()
        for n, person_id in enumerate(people):
            session.add(
                MatchSeat(
                    match_id=row.id, n=n, kind="bot" if person_id is None else "person", person_id=person_id
                )
            )
        for hand_no, scores in enumerate(hands, start=1):
            session.add(HandResult(match_id=row.id, hand_no=hand_no, scores=scores, details={}))
        if status == "finished":
            for n, person_id in enumerate(people):
                total = sum(scores[n] for scores in hands)
                session.add(
                    MatchResult(
                        match_id=row.id,
                        seat=n,
                        person_id=person_id,
                        score=total,
                        rank=ranks[n],
                        counted=n not in uncounted,
                    )
                )
        return row.id


async def store_review(
    server: Server, match_id: int, losses: dict[int, tuple[float, int]], status: str = "done"
) -> None:
    """The match's review as the analysis stores it, with per seat `(total_loss, choices)`."""
    summaries = {
        str(seat): {"seat": seat, "decisions": choices + 2, "choices": choices, "total_loss": loss,
                    "average_loss": loss / choices, "costliest": []}
        for seat, (loss, choices) in losses.items()
    }  # fmt: skip
    async with server.services.db.session() as session:
        session.add(
            MatchAnalysis(
                match_id=match_id,
                status=status,
                seats=sorted(losses),
                result={"decisions": [], "summaries": summaries, "revision": REVISION}
                if status == "done"
                else null(),
                error=None if status == "done" else "constructed",
            )
        )


async def test_a_record_adds_up_each_games_finished_matches(database_url: str) -> None:
    async with (
        running_server(database_url, bot_delay=0) as server,
        browser(server, "Host") as host,
        browser(server, "Guest") as guest,
    ):
        code = (await make_room(host, seats=3, hands=2))["code"]
        await guest.get(f"/api/rooms/{code}")
        own_code = (await make_room(host, "familia", seats=4))["code"]  # a room the guest is not in
        me, them = host.me["id"], guest.me["id"]

        first = await store_match(
            server, code, 1, "holy-grail", [me, them, None], [[10, -5, -5], [-2, 6, -4]], [1, 2, 3]
        )
        second = await store_match(server, code, 2, "holy-grail", [me, them, None], [[0, 4, -4]], [2, 1, 3])
        # Neither counts: an abandoned match (as in the leaderboards) and a running one.
        await store_match(
            server, code, 3, "holy-grail", [me, them, None], [[100, -50, -50]], [1, 2, 3], abandoned=True
        )
        await store_match(
            server, code, 4, "holy-grail", [me, them, None], [[7, -7, 0]], [1, 3, 2], status="running"
        )
        # Familia: the host holds both seats of one team, each showing the team's score; the
        # second seat is not counted, so the host is credited once.
        team = await store_match(
            server,
            own_code,
            1,
            "familia",
            [me, None, me, None],
            [[6, -6, 6, -6], [2, -2, 2, -2]],
            [1, 3, 1, 3],
            uncounted=(2,),
        )

        # Reviews: the first Holy Grail match's and the Familia match's (both of the host's seats);
        # the second match's review failed, so it adds nothing.
        await store_review(server, first, {0: (9.0, 6), 1: (1.0, 5)})
        await store_review(server, second, {0: (50.0, 1), 1: (0.0, 1)}, status="failed")
        await store_review(server, team, {0: (4.0, 3), 2: (2.0, 3)})

        record = await guest.get(f"/api/people/{me}/record")
        assert record["person_id"] == me and record["name"] == "Host" and record["is_me"] is False
        games = {entry["game_id"]: entry for entry in record["games"]}
        assert list(games) == ["familia", "holy-grail"]

        grail = games["holy-grail"]
        assert (grail["matches"], grail["wins"], grail["hands"]) == (2, 1, 3)
        assert grail["average_place"] == pytest.approx(1.5)
        assert grail["average_hand_score"] == pytest.approx((10 - 2 + 0) / 3)
        assert grail["analysed"] == 1 and grail["average_loss"] == pytest.approx(9 / 6)
        assert [(m["match_id"], m["score"], m["place"], m["viewable"]) for m in grail["recent"]] == [
            (first, 8, 1, True),
            (second, 0, 2, True),
        ]
        assert grail["game_names"]["en"]

        familia = games["familia"]
        assert (familia["matches"], familia["wins"], familia["hands"]) == (1, 1, 2)
        assert familia["average_place"] == 1 and familia["average_hand_score"] == pytest.approx(4)
        assert familia["analysed"] == 1 and familia["average_loss"] == pytest.approx((4 + 2) / (3 + 3))
        assert [(m["match_id"], m["score"]) for m in familia["recent"]] == [(team, 8)]
        assert familia["recent"][0]["viewable"] is False  # the guest is not in that room

        own = await host.get(f"/api/people/{me}/record")
        assert own["is_me"] is True
        assert [m["viewable"] for m in {g["game_id"]: g for g in own["games"]}["familia"]["recent"]] == [True]

        guest_record = await host.get(f"/api/people/{them}/record")
        (guest_grail,) = guest_record["games"]
        assert (guest_grail["matches"], guest_grail["wins"]) == (2, 1)
        assert guest_grail["average_hand_score"] == pytest.approx((-5 + 6 + 4) / 3)
        assert guest_grail["average_loss"] == pytest.approx(1 / 5)


async def test_a_record_lists_at_most_the_last_ten_matches_of_a_game(database_url: str) -> None:
    async with running_server(database_url, bot_delay=0) as server, browser(server, "Host") as host:
        code = (await make_room(host, seats=3, hands=1))["code"]
        me = host.me["id"]
        ids = [
            await store_match(server, code, n, "holy-grail", [me, None, None], [[n, 0, -n]], [1, 2, 3])
            for n in range(1, 13)
        ]
        (grail,) = (await host.get(f"/api/people/{me}/record"))["games"]
        assert grail["matches"] == 12 and grail["wins"] == 12
        assert grail["analysed"] == 0 and grail["average_loss"] is None
        assert [m["match_id"] for m in grail["recent"]] == ids[2:]
        assert [m["score"] for m in grail["recent"]] == list(range(3, 13))


async def test_only_the_person_and_people_sharing_a_room_with_them_see_a_record(database_url: str) -> None:
    async with (
        running_server(database_url, bot_delay=0) as server,
        browser(server, "Host") as host,
        browser(server, "Guest") as guest,
        browser(server, "Stranger") as stranger,
        browser(server) as nobody,
    ):
        code = (await make_room(host, seats=3, hands=1))["code"]
        await guest.get(f"/api/rooms/{code}")
        me = host.me["id"]
        assert (await guest.get(f"/api/people/{me}/record"))["games"] == []
        refused = await stranger.get(f"/api/people/{me}/record", expect=403)
        assert refused["messages"]["en"] and refused["messages"]["ja"]
        # An id nobody has is refused the same way, so the answer tells no one who exists.
        assert (await host.get("/api/people/987654321/record", expect=403))["detail"] == refused["detail"]
        await nobody.get(f"/api/people/{me}/record", expect=401)
        await host.get("/api/people/0/record", expect=422)
