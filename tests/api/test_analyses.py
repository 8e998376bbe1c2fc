"""Match reviews: queued when a match ends, analysed in a worker process of one server
at a time, stored whole or not at all, redone after a crash, and read by members of the room only
once the match is over (`GET /api/matches/{id}/analysis`)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from tests.api.harness import Person, Server, browser, make_room, play_until_over, running_server
from tests.api.test_crash_restart import _alive, _descendants_of
from tests.api.test_metrics import _samples
from tests.api.test_replays import stored_log
from tests.servers import AppServer

pytestmark = pytest.mark.asyncio

QUICK = {"analysis_playouts": 2, "analysis_poll": 0.1, "analysis_beat": 0.2}
"""A small budget so that a one-hand review takes about a second."""


def analysis_row(database_url: str, match_id: int) -> dict[str, Any] | None:
    engine = create_engine(database_url)
    with engine.connect() as conn:
        row = conn.execute(
            text(
                "SELECT status, done, total, attempts, owner, result FROM match_analyses WHERE match_id = :m"
            ),
            {"m": match_id},
        ).first()
    engine.dispose()
    return None if row is None else dict(row._mapping)


def finished_jobs(samples: dict[str, list[tuple[dict[str, str], float]]]) -> dict[tuple[str, str], float]:
    """`cardtable_jobs_total` by (kind, outcome)."""
    return {(labels["kind"], labels["outcome"]): n for labels, n in samples.get("cardtable_jobs_total", [])}


async def play_a_hand(player: Person, code: str) -> int:
    """The player takes seat 0 of a one-hand Holy Grail room, basic bots the others, and plays it
    to the end; returns the match id."""
    await player.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
    for n in (1, 2):
        await player.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot", "level": "basic"})
    async with player.socket(code) as socket:
        room = await player.post(f"/api/rooms/{code}/start")
        match_id = int(room["match"]["id"])
        await player.get(f"/api/matches/{match_id}/analysis", expect=409)
        await play_until_over([socket], match_id=match_id)
    return match_id


async def until_done(person: Person, match_id: int, timeout: float = 60) -> dict[str, Any]:
    """Ask for the review until it is finished (200); every answer before is a 202 with progress."""
    deadline = time.monotonic() + timeout
    while True:
        response = await person.http.get(f"/api/matches/{match_id}/analysis")
        if response.status_code == 200:
            return response.json()
        assert response.status_code == 202, response.text
        pending = response.json()
        assert pending["status"] in ("queued", "running") and set(pending["progress"]) == {"done", "total"}
        assert time.monotonic() < deadline, f"the review is still {pending}"
        await asyncio.sleep(0.1)


def check_review(review: dict[str, Any], log: list[tuple[int, dict[str, Any]]], seat: int, name: str) -> None:
    """Every decision of `seat`'s person, and only theirs, in log order, each as the log has it,
    with best ≥ played; forced ones cost nothing; the summary adds them up."""
    assert review["status"] == "done" and review["with_every_hand_known"] is True
    decisions = review["decisions"]
    assert [d["version"] for d in decisions] == [i + 1 for i, (s, _) in enumerate(log) if s == seat]
    for decision in decisions:
        assert decision["seat"] == seat and decision["played"] == log[decision["version"] - 1][1]
        assert decision["loss"] >= 0 and 1 <= decision["compared"] <= decision["legal"]
        if decision["legal"] == 1:
            assert decision["method"] == "forced" and decision["loss"] == 0
            assert decision["best"] == decision["played"]
    assert any(d["legal"] == 1 for d in decisions)  # the last trick's card at least
    summary = review["summaries"][str(seat)]
    assert list(review["summaries"]) == [str(seat)] and summary["name"] == name
    assert summary["decisions"] == len(decisions) == review["progress"]["done"] == review["progress"]["total"]
    assert summary["choices"] == sum(1 for d in decisions if d["legal"] > 1)
    assert summary["total_loss"] == pytest.approx(sum(d["loss"] for d in decisions))
    losses = sorted((d["loss"] for d in decisions), reverse=True)
    assert [d["loss"] for d in summary["costliest"]] == losses[: len(summary["costliest"])]


async def test_only_members_read_a_review_and_only_once_the_match_is_over(database_url: str) -> None:
    async with (
        running_server(database_url, **QUICK) as server,
        browser(server, "Aiko") as aiko,
        browser(server, "Stranger") as stranger,
    ):
        await aiko.get("/api/matches/999999/analysis", expect=404)
        code = (await make_room(aiko, "holy-grail", 3, hands=1))["code"]
        match_id = await play_a_hand(aiko, code)  # asks once while it runs: 409
        refused = await stranger.get(f"/api/matches/{match_id}/analysis", expect=403)
        assert refused["messages"]["ja"]
        review = await until_done(aiko, match_id)
        # The operator sees the job: one review done and its CPU seconds, then none waiting
        # (counted when the process next looks for work, right after the job).
        deadline = time.monotonic() + 15
        while True:
            samples = _samples((await aiko.http.get("/metrics")).text)
            waiting = {labels["state"]: value for labels, value in samples.get("cardtable_analysis_jobs", [])}
            jobs = finished_jobs(samples)
            if waiting == {"queued": 0, "running": 0} and jobs:
                break
            assert time.monotonic() < deadline, waiting
            await asyncio.sleep(0.05)
    check_review(review, stored_log(database_url, match_id), 0, "Aiko")
    assert review["budget"]["playouts"] == 2
    assert jobs == {("analysis", "ok"): 1}
    assert [value for _, value in samples["cardtable_analysis_cpu_seconds_count"]] == [1]


async def test_a_review_queued_at_the_end_waits_with_progress_and_is_the_same_when_redone(
    database_url: str,
) -> None:
    # A process with no analysis worker queues the review and answers 202; another one analyses it.
    async with running_server(database_url, analysis_workers=0) as server, browser(server, "Ben") as ben:
        code = (await make_room(ben, "holy-grail", 3, hands=1))["code"]
        match_id = await play_a_hand(ben, code)
        waiting = await ben.http.get(f"/api/matches/{match_id}/analysis")
        assert waiting.status_code == 202
        assert waiting.json() == {"status": "queued", "progress": {"done": 0, "total": None}}
        token = ben.token
    async with running_server(database_url, **QUICK) as server, browser(server) as ben:
        ben.http.cookies.set("session", token)
        first = await until_done(ben, match_id)
        # A match that ended before reviews existed has no row: asking queues it; the match id
        # seeds the analysis, so it finds the same.
        engine = create_engine(database_url)
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM match_analyses WHERE match_id = :m"), {"m": match_id})
        engine.dispose()
        again = await until_done(ben, match_id)
    check_review(first, stored_log(database_url, match_id), 0, "Ben")
    assert again["decisions"] == first["decisions"] and again["summaries"] == first["summaries"]


async def test_a_review_that_cannot_replay_its_log_fails_once_and_says_so(database_url: str) -> None:
    async with running_server(database_url, **QUICK) as server, browser(server, "Hal") as hal:
        code = (await make_room(hal, "holy-grail", 3, hands=1))["code"]
        match_id = await play_a_hand(hal, code)
        await until_done(hal, match_id)
        # A log no engine replays (a card played twice), and the review asked for afresh.
        engine = create_engine(database_url)
        with engine.begin() as conn:
            conn.execute(
                text(
                    "UPDATE match_actions SET action = (SELECT action FROM match_actions WHERE match_id = :m"
                    " AND seat = 0 ORDER BY seq LIMIT 1) WHERE match_id = :m AND seq = ("
                    "SELECT max(seq) FROM match_actions WHERE match_id = :m AND seat = 0)"
                ),
                {"m": match_id},
            )
            conn.execute(text("DELETE FROM match_analyses WHERE match_id = :m"), {"m": match_id})
        engine.dispose()
        deadline = time.monotonic() + 30
        while (response := await hal.http.get(f"/api/matches/{match_id}/analysis")).status_code == 202:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.1)
        failed = response.json()
        while True:  # the process counts the job once its worker has answered, just after the row
            jobs = finished_jobs(_samples((await hal.http.get("/metrics")).text))
            if ("analysis", "failed") in jobs:
                break
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
    assert response.status_code == 200 and failed["status"] == "failed"
    assert failed["decisions"] == [] and failed["summaries"] == {}
    row = analysis_row(database_url, match_id)
    assert row is not None and row["attempts"] == 1 and row["result"] is None
    assert jobs == {("analysis", "ok"): 1, ("analysis", "failed"): 1}


async def test_a_match_only_bots_played_is_reviewed_at_once_with_nothing_in_it(database_url: str) -> None:
    async with running_server(database_url, bot_delay=0, **QUICK) as server, browser(server, "Host") as host:
        code = (await make_room(host, "holy-grail", 3, hands=1))["code"]
        for n in range(3):
            await host.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot", "level": "basic"})
        async with host.socket(code) as watcher:
            await watcher.recv()
            match_id = int((await host.post(f"/api/rooms/{code}/start"))["match"]["id"])
            await watcher.wait_for(lambda m: m["type"] == "state" and m["spectator"]["to_act"] == [], 60)
        review = await host.get(f"/api/matches/{match_id}/analysis")
    assert review["status"] == "done" and review["decisions"] == [] and review["summaries"] == {}
    assert review["budget"]["playouts"] == 2


async def test_an_abandoned_match_is_reviewed_at_once_with_nothing_in_it(database_url: str) -> None:
    # Gin leaves as the match starts; after the (scaled) grace a stand-in bot plays her seat out.
    fast = {**QUICK, "deadline_scale": 0.02, "deadline_poll": 0.05, "bot_level": "basic"}
    async with running_server(database_url, bot_delay=0, **fast) as server, browser(server, "Gin") as gin:
        code = (await make_room(gin, "holy-grail", 3, hands=1))["code"]
        await gin.http.patch(f"/api/rooms/{code}", json={"away_grace": 10})
        await gin.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        for n in (1, 2):
            await gin.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot", "level": "basic"})
        async with gin.socket(code) as socket:
            await socket.wait_for(lambda m: m["type"] == "room")
            match_id = int((await gin.post(f"/api/rooms/{code}/start"))["match"]["id"])
            await socket.wait_state()
        deadline = time.monotonic() + 60
        while (await gin.get(f"/api/matches/{match_id}"))["status"] != "finished":
            assert time.monotonic() < deadline
            await asyncio.sleep(0.1)
        assert (await gin.get(f"/api/matches/{match_id}"))["abandoned"] is True
        review = await gin.get(f"/api/matches/{match_id}/analysis")
    assert review["status"] == "done" and review["decisions"] == [] and review["summaries"] == {}
    row = analysis_row(database_url, match_id)
    assert row is not None and row["attempts"] == 0  # nothing was ever run


async def test_two_processes_on_one_database_analyse_each_match_once(database_url: str) -> None:
    fast = {**QUICK, "analysis_poll": 0.02}
    async with (
        running_server(database_url, **fast) as one,
        running_server(database_url, **fast) as two,
        browser(one, "Chie") as chie,
        browser(two, "Dan") as dan,
    ):
        rooms = [(await make_room(who, "holy-grail", 3, hands=1))["code"] for who in (chie, dan)]
        matches = await asyncio.gather(play_a_hand(chie, rooms[0]), play_a_hand(dan, rooms[1]))
        for who, match_id in zip((chie, dan), matches, strict=True):
            await until_done(who, match_id)
        # The worker stores the result before its process's event loop hears back and counts
        # the job as finished: wait (bounded) for both processes to have counted theirs.
        deadline = time.monotonic() + 30
        while len(one.services.reviews.finished + two.services.reviews.finished) < len(matches):
            assert time.monotonic() < deadline, "a finished review was never counted"
            await asyncio.sleep(0.05)
        jobs = one.services.reviews.finished + two.services.reviews.finished
    assert sorted(jobs) == sorted((match_id, "ok") for match_id in matches)
    for match_id in matches:
        row = analysis_row(database_url, match_id)
        assert row is not None and row["attempts"] == 1


async def test_a_review_whose_server_is_killed_midway_is_redone_by_the_next_and_never_half_stored(
    database_url: str, tmp_path: Path
) -> None:
    env = {
        "CARDTABLE_BOT_DELAY": "0.01", "CARDTABLE_BOT_WORKERS": "1",
        "CARDTABLE_ANALYSIS_PLAYOUTS": "200", "CARDTABLE_ANALYSIS_LEASE": "2",
        "CARDTABLE_ANALYSIS_BEAT": "0.2",
    }  # fmt: skip
    process = AppServer(database_url, workdir=tmp_path, env=env)
    process.start()
    try:
        doomed = Server(base_url=process.base_url, ws_url=process.ws_url, app=None)
        async with browser(doomed, "Emi") as emi:
            code = (await make_room(emi, "holy-grail", 3, hands=1))["code"]
            match_id = await play_a_hand(emi, code)
            while True:  # until the slow review has got somewhere
                pending = await emi.get(f"/api/matches/{match_id}/analysis", expect=202)
                if pending["status"] == "running" and pending["progress"]["done"] >= 2:
                    break
                await asyncio.sleep(0.1)
            assert pending["progress"]["total"] > pending["progress"]["done"]
            token = emi.token
        workers = _descendants_of(process.pid)
    finally:
        process.kill()
    deadline = time.monotonic() + 15
    while any(_alive(pid) for pid in workers):  # the review's worker ends with its server
        assert time.monotonic() < deadline, "a worker outlived its server"
        await asyncio.sleep(0.05)
    left = analysis_row(database_url, match_id)
    assert left is not None and left["status"] == "running" and left["result"] is None
    assert 2 <= left["done"] < left["total"] and left["attempts"] == 1

    async with running_server(database_url, **QUICK) as server, browser(server) as emi:
        emi.http.cookies.set("session", token)
        review = await until_done(emi, match_id)
    check_review(review, stored_log(database_url, match_id), 0, "Emi")
    redone = analysis_row(database_url, match_id)
    assert redone is not None and redone["attempts"] == 2 and redone["owner"] != left["owner"]
