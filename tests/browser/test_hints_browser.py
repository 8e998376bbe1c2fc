"""Hints and a fair review in the browser, at 1280×800 and 390×844.

A room whose host turned hints on (the create form's "Hints" picker; the lobby shows it) offers
a "Hint" button on the person's turn, whose suggestion is one of their legal cards; a room
without hints never shows it. The match page and the replay name each decision by hand and trick,
word a loss as a loss (no plus sign), and mark a move the server made for a person ("Mio (bot,
time-out) plays …") and a decision made after a hint. The analysis the pages show is constructed
and served by the browser in place of the server's (as in test_review_browser.py), so every
figure on the page is known; the time-out mark itself is the stored one (`match_actions.auto`)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Route, expect

from engine import get_game
from tests.browser.accessibility import check_accessibility
from tests.browser.conftest import PHONE, NewPerson, screenshot_section
from tests.browser.pictures import save_picture
from tests.browser.test_platform_browser import LEGAL_CARDS, sign_up
from tests.browser.test_replay_browser import bots_play_a_match
from tests.browser.test_review_browser import run_sql

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1280, "height": 800}
MY_TURN = "[data-testid=turn].my-turn"


def _size(viewport: dict[str, int]) -> str:
    return f"{viewport['width']}x{viewport['height']}"


def _start(page: Page, code: str) -> None:
    """Seat 0 for the person, basic bots in the others, and start."""
    assert page.request.post(f"/api/rooms/{code}/seats/0", data={"as": "me"}).ok
    for n in (1, 2):
        assert page.request.post(f"/api/rooms/{code}/seats/{n}", data={"as": "bot", "level": "basic"}).ok
    assert page.request.post(f"/api/rooms/{code}/start").ok


def _a_real_choice(page: Page) -> set[str]:
    """Play forced cards (a hint is offered only where there is a choice) until the person's turn
    holds several legal cards; returns them."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        expect(page.locator(MY_TURN)).to_be_visible(timeout=20_000)
        legal = page.locator(LEGAL_CARDS).evaluate_all("(cards) => cards.map((c) => c.dataset.card)")
        if len(legal) > 1:
            return set(legal)
        expect(page.get_by_test_id("hint-button")).to_have_count(0)
        page.locator(LEGAL_CARDS).first.click()
        expect(page.locator(f"[data-testid=hand] .card[data-card='{legal[0]}']")).to_have_count(0)
    raise AssertionError("no turn with a choice of card within a minute")


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_the_hint_button_shows_only_where_hints_are_on_and_suggests_a_legal_card(
    new_person: NewPerson, artifacts: Path, viewport: dict[str, int]
) -> None:
    page = new_person(viewport=viewport)
    size = _size(viewport)
    sign_up(page, "Ada")

    # A room without hints: the person's turn comes, and no Hint button with it.
    plain = page.request.post(
        "/api/rooms", data={"game_id": "holy-grail", "seats": 3, "options": {"hands": 1}}
    )
    plain_code = plain.json()["code"]
    page.goto(f"/r/{plain_code}")
    _start(page, plain_code)
    expect(page.locator(MY_TURN)).to_be_visible(timeout=20_000)
    expect(page.locator(LEGAL_CARDS).first).to_be_visible()
    expect(page.get_by_test_id("hint-button")).to_have_count(0)

    # The host turns hints on in the create form; the lobby shows the setting.
    page.goto("/")
    form = page.get_by_test_id("create-room")
    form.get_by_test_id("game-select").select_option("holy-grail")
    form.get_by_test_id("seats-select").select_option("3")
    form.locator("input[data-option=hands]").fill("1")
    expect(form.get_by_test_id("hints-setting")).to_have_value("off")  # off by default
    form.get_by_test_id("hints-setting").select_option("on")
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/r/[^/]+$"))
    code = page.url.split("/r/")[1]
    assert page.request.get(f"/api/rooms/{code}").json()["hints"] is True
    expect(page.get_by_test_id("room-timing").get_by_test_id("hints-setting")).to_have_value("on")
    screenshot_section(page, "room-timing", artifacts / f"hints-setting-{size}.png")

    _start(page, code)
    legal = _a_real_choice(page)
    button = page.get_by_test_id("hint-button")
    expect(button).to_be_visible()
    with page.expect_response(re.compile(r".*/api/matches/\d+/hint$")) as answer:
        button.click()
    hint = answer.value.json()
    (action,) = hint["actions"]
    assert action["type"] == "play" and action["cards"][0] in legal, (action, legal)
    card = page.locator(f"[data-testid=hand] .card[data-card='{action['cards'][0]}']").first
    label = card.get_attribute("title")
    expect(page.get_by_test_id("hint-text")).to_contain_text("Hint:")
    expect(page.get_by_test_id("hint-text")).to_contain_text(label or "")
    box = button.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], "the button fits"
    check_accessibility(page, f"hint-{size}")
    save_picture(page, artifacts / f"hint-{size}.png")

    page.get_by_test_id("lang-switch").click()
    expect(page.get_by_test_id("hint-button")).to_have_text("ヒント")
    expect(page.get_by_test_id("hint-text")).to_contain_text("ヒント：")
    save_picture(page, artifacts / f"hint-{size}-ja.png")
    page.get_by_test_id("lang-switch").click()

    # Once the card is played, the hint (for that state only) is gone.
    card.click()
    expect(page.get_by_test_id("hint-text").filter(has_text=label or "")).to_have_count(0)
    errors = [e for e in page.console_errors if "ERR_CONNECTION_REFUSED" not in e]  # type: ignore[attr-defined]
    assert not errors, errors


def _review(export: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """An analysis of seat 0's first three card choices in a one-hand match: the first made by
    the server when the timer ran out (a loss of 9 that is not the person's), the second lost 12
    after a hint that named another card, the third the best move. Returns it with the two
    marked decisions."""
    match = get_game(export["game_id"]).new_match(export["players"], export["options"])
    decisions: list[dict[str, Any]] = []
    tricks = 0
    for version, (seat, action) in enumerate(export["log"], start=1):
        legal = match.legal_actions(seat) if seat == 0 else []
        if seat == 0 and action["type"] == "play" and len(legal) > 1 and len(decisions) < 3:
            other = next(a for a in legal if a != action)
            k = len(decisions)
            decisions.append(
                {
                    "version": version, "first_version": version, "seat": 0, "played": action,
                    "best": action if k == 2 else other, "loss": (9.0, 12.0, 0.0)[k],
                    "legal": len(legal), "compared": len(legal), "method": "playouts",
                    "hand": match.hands_done + 1, "phase": "play", "trick": tricks + 1,
                    "auto": "time" if k == 0 else None,
                    "hint": other if k == 1 else None, "followed": False if k == 1 else None,
                }
            )  # fmt: skip
        before = match.view(None).get("last_trick")
        match.apply(seat, action)
        after = match.view(None).get("last_trick")
        if after is not None and after != before:
            tricks += 1
    assert len(decisions) == 3
    timed, hinted = decisions[0], decisions[1]
    summary = {
        "seat": 0, "name": "Mio", "decisions": 2, "choices": 2, "total_loss": 12.0, "average_loss": 6.0,
        "costliest": [hinted], "auto": 1, "hinted": 1,
    }  # fmt: skip
    analysis = {
        "status": "done", "budget": {"playouts": 10}, "with_every_hand_known": True,
        "progress": {"done": 3, "total": 3}, "decisions": decisions, "summaries": {"0": summary},
    }  # fmt: skip
    return analysis, timed, hinted


def _serve(page: Page, analysis: dict[str, Any]) -> None:
    def answer(route: Route) -> None:
        route.fulfill(status=200, content_type="application/json", body=json.dumps(analysis))

    page.route(re.compile(r".*/api/matches/\d+/analysis$"), answer)


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_the_review_names_hands_and_tricks_and_marks_time_outs_and_hints(
    new_person: NewPerson, artifacts: Path, database_url: str, viewport: dict[str, int]
) -> None:
    page = new_person(viewport=viewport)
    size = _size(viewport)
    match_id = bots_play_a_match(page, "Mio", seats=3, hands=1)
    export = page.request.get(f"/api/matches/{match_id}/log").json()
    analysis, timed, hinted = _review(export)
    # The stored mark of the move the server made for Mio (read by the replay, never cached yet).
    run_sql(
        database_url,
        "UPDATE match_actions SET auto = 'time' WHERE match_id = :m AND seq = :s",
        m=match_id,
        s=timed["version"] - 1,
    )
    _serve(page, analysis)

    page.goto(f"/matches/{match_id}")
    person = page.get_by_test_id("review-person")
    expect(person).to_have_count(1)
    expect(person.get_by_test_id("review-average")).to_have_text("Average loss per choice: 6 points")
    expect(person.get_by_test_id("review-auto")).to_contain_text("1 move the server made for them")
    expect(person.get_by_test_id("review-hinted-count")).to_contain_text(
        "1 decision made after asking for a hint"
    )
    link = person.get_by_test_id("review-costly")
    expect(link).to_have_count(1)
    expect(link).to_contain_text(f"Hand 1, trick {hinted['trick']}:")
    expect(link).to_contain_text("lost 12 points")
    expect(link).not_to_contain_text("+")
    expect(link).not_to_contain_text("Step")
    expect(person.get_by_test_id("review-hinted")).to_contain_text("after a hint")
    check_accessibility(page, f"review-fair-{size}")
    person.scroll_into_view_if_needed()
    save_picture(page, artifacts / f"review-fair-match-{size}.png", full_page=True)
    page.get_by_test_id("lang-switch").click()
    expect(person.get_by_test_id("review-costly")).to_contain_text(f"第1ハンド・第{hinted['trick']}トリック")
    expect(person.get_by_test_id("review-costly")).to_contain_text("12点の損")
    save_picture(page, artifacts / f"review-fair-match-{size}-ja.png", full_page=True)
    page.get_by_test_id("lang-switch").click()

    # The replay: the time-out's move is the bot's, not Mio's, and is not held against her.
    page.goto(f"/matches/{match_id}/replay#step={timed['version']}")
    action = page.get_by_test_id("replay-action")
    expect(action).to_contain_text("Mio (bot, time-out) plays")
    expect(action).to_contain_text("turn timer ran out")
    expect(action).to_contain_text("not counted")
    check_accessibility(page, f"replay-fair-{size}")
    save_picture(page, artifacts / f"review-fair-replay-{size}.png")
    page.get_by_test_id("lang-switch").click()
    expect(action).to_contain_text("（時間切れ・ボット）")
    expect(action).to_contain_text("時間切れのためサーバーのボットが打った手です")
    save_picture(page, artifacts / f"review-fair-replay-{size}-ja.png")
    page.get_by_test_id("lang-switch").click()

    # The decision after a hint says what the hint was; the loss reads as a loss.
    page.goto(f"/matches/{match_id}/replay#step={hinted['version']}")
    expect(action).to_contain_text("this choice lost 12 points")
    expect(action).to_contain_text("A hint had suggested")
    expect(action).not_to_contain_text("+12")
    expect(action).not_to_contain_text("(bot, time-out)")
    save_picture(page, artifacts / f"review-hint-replay-{size}.png")
