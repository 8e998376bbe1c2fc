"""The match review in the browser: the match page's score chart and review, the replay's verdict
at each decision with the N / Shift+N jumps between costly decisions, and a person's record page,
at 1280×800 and 390×844, in English and Japanese.

Bots play a seeded two-hand Holy Grail match in a person's room (the server deals with
CARDTABLE_DEAL_SEED). The analysis the pages show is a constructed one, served in place of
`GET /api/matches/{id}/analysis` by the browser (Playwright's routing): decisions of seat 0 that
had a choice, with chosen best actions and losses, so every number on the page is known. The
first answers are 202s with progress, as while the server analyses."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Route, expect
from sqlalchemy import create_engine
from sqlalchemy import text as sql

from engine import get_game
from tests.browser.accessibility import check_accessibility
from tests.browser.conftest import PHONE, NewPerson, screenshot_section
from tests.browser.layout import check_screen
from tests.browser.pictures import save_picture
from tests.browser.test_replay_browser import bots_play_a_match

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1280, "height": 800}
LOSSES = (12, 5)


def constructed_analysis(export: dict[str, Any]) -> dict[str, Any]:
    """Three of seat 0's card plays that had a choice: the first two lost `LOSSES` points to
    another legal card (the costliest decisions), the third was the best move."""
    match = get_game(export["game_id"]).new_match(export["players"], export["options"])
    decisions = []
    for version, (seat, action) in enumerate(export["log"], start=1):
        legal = match.legal_actions(seat) if seat == 0 else []
        if seat == 0 and action["type"] == "play" and len(legal) > 1 and len(decisions) < 3:
            other = next(a for a in legal if a != action)
            costly = len(decisions) < len(LOSSES)
            decisions.append(
                {
                    "version": version,
                    "seat": 0,
                    "played": action,
                    "best": other if costly else action,
                    "loss": LOSSES[len(decisions)] if costly else 0.0,
                    "legal": len(legal),
                    "compared": len(legal),
                    "method": "playouts",
                }
            )
        match.apply(seat, action)
    assert len(decisions) == 3, "seat 0 had three choices of card"
    costliest = sorted(decisions[:2], key=lambda d: -d["loss"])
    summary = {
        "seat": 0,
        "name": "Mio",
        "decisions": 3,
        "choices": 3,
        "total_loss": float(sum(LOSSES)),
        "average_loss": sum(LOSSES) / 3,
        "costliest": costliest,
    }
    return {
        "status": "done",
        "budget": {"playouts": 10},
        "with_every_hand_known": True,
        "decisions": decisions,
        "summaries": {"0": summary},
    }


def serve_analysis(page: Page, analysis: dict[str, Any], running_answers: int) -> list[int]:
    """Answer the analysis endpoint: `running_answers` 202s with progress, then the analysis.
    Returns the list of statuses answered so far."""
    answered: list[int] = []

    def answer(route: Route) -> None:
        if len(answered) < running_answers:
            answered.append(202)
            body = {"status": "running", "progress": {"done": 3 * len(answered), "total": 40}}
            route.fulfill(status=202, content_type="application/json", body=json.dumps(body))
        else:
            answered.append(200)
            route.fulfill(status=200, content_type="application/json", body=json.dumps(analysis))

    page.route(re.compile(r".*/api/matches/\d+/analysis$"), answer)
    return answered


def run_sql(database_url: str, *statements: str, **params: Any) -> None:
    """Run statements against the server's database in one transaction."""
    engine = create_engine(database_url)
    try:
        with engine.begin() as conn:
            for statement in statements:
                conn.execute(sql(statement), params)
    finally:
        engine.dispose()


def counted(database_url: str, match_id: int) -> None:
    """Count the match as if the person had stayed at the table: bots played it for them after
    they left, which marks it abandoned, and records (like leaderboards) leave those out."""
    run_sql(database_url, "UPDATE matches SET abandoned = false WHERE id = :m", m=match_id)


def reviewed_again(database_url: str, match_id: int) -> None:
    """Count the match (see `counted`) and drop its empty review (an abandoned match gets one at
    once), so that the next request for it queues the server's analysis of the person's seat."""
    run_sql(
        database_url,
        "UPDATE matches SET abandoned = false WHERE id = :m",
        "DELETE FROM match_analyses WHERE match_id = :m",
        m=match_id,
    )


def card_label(page: Page, code: str) -> str:
    return (
        page.locator(f"[data-testid=replay-hand] .card[data-card='{code}']").first.get_attribute("title")
        or ""
    )


def hidden_table(page: Page, testid: str) -> list[list[str]]:
    """The rows of a chart's text alternative (header cells included)."""
    return page.evaluate(
        """(testid) => [...document.querySelectorAll(`[data-testid=${testid}] table tr`)]
          .map((row) => [...row.children].map((cell) => cell.textContent.trim()))""",
        testid,
    )


def points(value: float) -> str:
    """A loss as the review shows it: a number of points, no sign, one decimal at most."""
    value = abs(round(value, 1))
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def signed(value: float) -> str:
    text = str(int(value)) if float(value).is_integer() else f"{value:.1f}"
    return f"+{text}" if value > 0 else text.replace("-", "−")


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_the_match_page_charts_the_totals_and_links_the_costliest_decisions_into_the_replay(
    new_person: NewPerson, artifacts: Path, viewport: dict[str, int]
) -> None:
    page = new_person(viewport=viewport)
    match_id = bots_play_a_match(page, "Mio")
    export = page.request.get(f"/api/matches/{match_id}/log").json()
    analysis = constructed_analysis(export)
    answered = serve_analysis(page, analysis, running_answers=2)
    size = f"{viewport['width']}x{viewport['height']}"
    detail = page.request.get(f"/api/matches/{match_id}").json()

    page.goto(f"/matches/{match_id}")
    # While the server analyses, the page says how far it is, and asks again.
    expect(page.get_by_test_id("review-progress")).to_contain_text("3 of 40")
    expect(page.get_by_test_id("review-progress")).to_contain_text("6 of 40")
    expect(page.get_by_test_id("review-person")).to_have_count(1, timeout=20_000)
    assert answered == [202, 202, 200]
    expect(page.get_by_test_id("review-honest")).to_contain_text("with every hand known")

    # The chart: a drawn canvas, and a table of the same running totals for screen readers.
    expect(page.locator("[data-testid=match-chart-plot] canvas").first).to_be_attached()
    expect(page.get_by_test_id("match-chart-plot")).to_have_attribute("data-drawn", "true")
    rows = hidden_table(page, "match-chart")
    assert len(rows) == 1 + 1 + len(detail["hands"])  # header, start, one per hand
    assert rows[1][1:] == ["0"] * 4
    for hand, row in zip(detail["hands"], rows[2:], strict=True):
        assert row[1:] == [signed(total) for total in hand["totals"]]

    person = page.get_by_test_id("review-person")
    expect(person.get_by_test_id("review-average")).to_have_text("Average loss per choice: 5.7 points")
    links = person.get_by_test_id("review-costly")
    expect(links).to_have_count(2)
    first, second = analysis["summaries"]["0"]["costliest"]
    assert links.first.get_attribute("href") == f"/matches/{match_id}/replay#step={first['version']}"
    expect(links.first).to_contain_text("lost 12 points")
    expect(links.first).not_to_contain_text("+")
    check_screen(
        page,
        artifacts,
        f"review-match-{size}",
        scope="main",
        required=("[data-testid=match-chart]",),
        vertical=False,
    )
    check_accessibility(page, f"review-match-{size}")
    save_picture(page, artifacts / f"review-match-{size}-full.png", full_page=True)

    # In Japanese: the same review, the chart's words in Japanese.
    page.get_by_test_id("lang-switch").click()
    expect(page.get_by_test_id("review-honest")).to_contain_text("全員の手札が見えている状態での評価")
    expect(page.get_by_test_id("review-average")).to_have_text("選択1回あたりの平均損失：5.7点")
    expect(page.get_by_test_id("match-chart-plot")).to_have_attribute("data-drawn", "true")
    check_accessibility(page, f"review-match-{size}-ja")
    save_picture(page, artifacts / f"review-match-{size}-ja-full.png", full_page=True)
    page.get_by_test_id("lang-switch").click()
    links = page.get_by_test_id("review-person").get_by_test_id("review-costly")

    # The link opens the replay at that decision, which names the best card and the loss.
    links.first.click()
    expect(page.get_by_test_id("replay-step")).to_contain_text(f"{first['version']} / {len(export['log'])}")
    best_card = first["best"]["cards"][0]
    expect(page.get_by_test_id("replay-review")).to_contain_text(
        f"Best: {card_label(page, best_card)} — this choice lost 12 points"
    )
    expect(page.get_by_test_id("replay-review")).to_contain_text("with every hand known")
    assert page.get_by_test_id("replay-marks").locator(".replay-mark").count() == 2
    check_screen(
        page,
        artifacts,
        f"review-replay-{size}",
        scope="[data-testid=replay]",
        required=("[data-testid=replay-review]", "[data-testid=replay-controls] button"),
    )
    check_accessibility(page, f"review-replay-{size}")
    errors = [e for e in page.console_errors if "ERR_CONNECTION_REFUSED" not in e]  # type: ignore[attr-defined]
    assert not errors, errors


def test_the_replay_names_the_best_move_and_jumps_between_costly_decisions(
    new_person: NewPerson, artifacts: Path
) -> None:
    page = new_person(viewport=LAPTOP)
    match_id = bots_play_a_match(page, "Sora")
    export = page.request.get(f"/api/matches/{match_id}/log").json()
    analysis = constructed_analysis(export)
    serve_analysis(page, analysis, running_answers=0)
    costly, cheap = sorted(d["version"] for d in analysis["decisions"][:2]), analysis["decisions"][2]
    total = len(export["log"])

    page.goto(f"/matches/{match_id}/replay#step=1")
    expect(page.get_by_test_id("replay-next-costly")).to_be_visible()
    expect(page.get_by_test_id("replay-hint")).to_contain_text("N / Shift+N")
    # N goes to each costly decision in turn and stays on the last; Shift+N goes back.
    page.keyboard.press("n")
    expect(page.get_by_test_id("replay-step")).to_contain_text(f"{costly[0]} / {total}")
    expect(page.get_by_test_id("replay-review")).to_contain_text("Best: ")
    page.keyboard.press("n")
    expect(page.get_by_test_id("replay-step")).to_contain_text(f"{costly[1]} / {total}")
    page.keyboard.press("n")
    expect(page.get_by_test_id("replay-step")).to_contain_text(f"{costly[1]} / {total}")
    page.keyboard.press("Shift+N")
    expect(page.get_by_test_id("replay-step")).to_contain_text(f"{costly[0]} / {total}")
    page.get_by_test_id("replay-next-costly").click()
    expect(page.get_by_test_id("replay-step")).to_contain_text(f"{costly[1]} / {total}")

    # The decision whose card was the best one says so; a step that was no decision says nothing.
    page.goto(f"/matches/{match_id}/replay#step={cheap['version']}")
    expect(page.get_by_test_id("replay-review")).to_contain_text("Best move")
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("replay-step")).to_contain_text(f"{cheap['version'] + 1} / {total}")
    if cheap["version"] + 1 not in {d["version"] for d in analysis["decisions"]}:
        expect(page.get_by_test_id("replay-review")).to_have_count(0)

    # In Japanese too.
    page.goto(f"/matches/{match_id}/replay#step={costly[0]}")
    page.get_by_test_id("lang-switch").click()
    expect(page.get_by_test_id("replay-review")).to_contain_text("最善：")
    expect(page.get_by_test_id("replay-review")).to_contain_text("全員の手札が見えている状態での評価")
    save_picture(page, artifacts / "review-replay-ja.png")
    page.get_by_test_id("lang-switch").click()  # back to English for the next test's person


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
@pytest.mark.parametrize("locale", ["en-GB", "ja-JP"])
def test_a_persons_record_page_shows_each_game_and_a_chart_of_the_last_matches(
    new_person: NewPerson, artifacts: Path, database_url: str, viewport: dict[str, int], locale: str
) -> None:
    page = new_person(viewport=viewport, locale=locale)
    match_id = bots_play_a_match(page, "Nao", hands=1)
    counted(database_url, match_id)
    page.route(
        re.compile(r".*/api/matches/\d+/analysis$"), lambda route: route.fulfill(status=404, body="{}")
    )
    record = page.request.get(f"/api/people/{page.request.get('/api/me').json()['id']}/record").json()
    (grail,) = record["games"]
    size = f"{viewport['width']}x{viewport['height']}"

    # From the person's name on the overall leaderboard to their record.
    page.goto("/history")
    page.get_by_test_id("leaderboard").locator("a.person-link", has_text="Nao").click()
    expect(page).to_have_url(re.compile(r"/people/\d+$"))
    expect(page.get_by_test_id("record-title")).to_have_text(
        "あなたの戦績" if locale == "ja-JP" else "Your record"
    )
    section = page.get_by_test_id("record-game")
    expect(section.get_by_test_id("record-matches")).to_have_text("1")
    expect(section.get_by_test_id("record-wins")).to_have_text(str(grail["wins"]))
    expect(section.get_by_test_id("record-place")).to_have_text(f"{grail['average_place']:.2f}")
    expect(page.get_by_test_id("record-chart-plot")).to_have_attribute("data-drawn", "true")
    rows = hidden_table(page, "record-chart")
    assert rows[1:] == [["1", signed(grail["recent"][0]["score"])]]
    expect(page.get_by_test_id("record-recent").locator("a")).to_have_attribute(
        "href", f"/matches/{match_id}"
    )
    check_screen(
        page,
        artifacts,
        f"record-{locale}-{size}",
        scope="main",
        required=("[data-testid=record-chart]",),
        vertical=False,
    )
    check_accessibility(page, f"record-{locale}-{size}")
    save_picture(page, artifacts / f"record-{locale}-{size}-full.png", full_page=True)

    # The room page keeps its leaderboard table and draws it as bars too.
    code = page.request.get(f"/api/matches/{match_id}").json()["room_code"]
    board = page.request.get(f"/api/rooms/{code}/leaderboard").json()
    page.goto(f"/r/{code}")
    expect(page.get_by_test_id("leaderboard-chart-plot")).to_have_attribute("data-drawn", "true")
    expect(page.get_by_test_id("room-leaderboard").get_by_test_id("leaderboard")).to_be_visible()
    bars = hidden_table(page, "leaderboard-chart")
    assert [row[1] for row in bars[1:]] == [signed(entry["score"]) for entry in board]
    result = page.get_by_test_id("hand-result")  # the finished match's last result, shown on arrival
    if result.count():
        result.locator("button.primary").first.click()
    screenshot_section(page, "room-leaderboard", artifacts / f"record-room-board-{locale}-{size}.png")
    check_accessibility(page, f"record-room-board-{locale}-{size}")
    errors = [e for e in page.console_errors if "ERR_CONNECTION_REFUSED" not in e and "404" not in e]  # type: ignore[attr-defined]
    assert not errors, errors


def test_the_servers_own_review_shows_on_the_match_page_and_in_the_replay(
    new_person: NewPerson, artifacts: Path, database_url: str
) -> None:
    """No constructed analysis here: the server analyses the person's seat, and the pages show
    what `GET /api/matches/{id}/analysis` answers."""
    page = new_person(viewport=LAPTOP)
    match_id = bots_play_a_match(page, "Kai")
    reviewed_again(database_url, match_id)
    deadline = time.monotonic() + 180
    while (answer := page.request.get(f"/api/matches/{match_id}/analysis")).status == 202:
        assert time.monotonic() < deadline, "the server did not analyse the match in time"
        time.sleep(1)
    analysis = answer.json()
    assert analysis["status"] == "done", analysis
    summary = analysis["summaries"]["0"]
    costly = sorted(d["version"] for d in summary["costliest"])
    assert costly, "the seeded match has costly decisions to show"
    total = len(page.request.get(f"/api/matches/{match_id}/log").json()["log"])

    page.goto(f"/matches/{match_id}")
    person = page.get_by_test_id("review-person")
    expect(person).to_have_count(1)
    average = points(summary["average_loss"])
    expect(person.get_by_test_id("review-average")).to_contain_text(f"{average} points")
    hrefs = [link.get_attribute("href") for link in person.get_by_test_id("review-costly").all()]
    assert hrefs == [f"/matches/{match_id}/replay#step={d['version']}" for d in summary["costliest"]]

    # N visits each costly decision in log order; each names the best action and the loss.
    by_version = {d["version"]: d for d in analysis["decisions"]}
    page.goto(f"/matches/{match_id}/replay#step=1")
    expect(page.get_by_test_id("replay-marks").locator(".replay-mark")).to_have_count(len(costly))
    for version in costly:
        page.keyboard.press("n")
        expect(page.get_by_test_id("replay-step")).to_contain_text(f"{version} / {total}")
        decision = by_version[version]
        best = decision["best"]
        words = card_label(page, best["cards"][0]) if best.get("cards") else ""
        loss = points(decision["loss"])
        verdict = f"Best: {words} — this choice lost {loss} points"
        expect(page.get_by_test_id("replay-review")).to_contain_text(verdict)
    save_picture(page, artifacts / "review-replay-server.png")
    for version in reversed(costly[:-1]):
        page.keyboard.press("Shift+N")
        expect(page.get_by_test_id("replay-step")).to_contain_text(f"{version} / {total}")
