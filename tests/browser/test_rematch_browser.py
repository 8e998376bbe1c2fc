"""The host names the room, lets bots finish a short match, plays the same cards again (rotated
one seat), and both people find the hand-by-hand comparison on the match page; the tab title
follows the room's name. Checked at 1280×800 (English) and 390×844 (Japanese)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PHONE, NewPerson
from tests.browser.layout import check_screen
from tests.browser.test_platform_browser import create_room, sign_up

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1280, "height": 800}
MATCH_WAIT_MS = 120_000


def room_state(page: Page, code: str) -> dict[str, Any]:
    """The room as the server holds it, read with the page's own session."""
    return page.evaluate("(code) => fetch(`/api/rooms/${code}`).then((r) => r.json())", code)


def wait_finished(page: Page, code: str, number: int) -> dict[str, Any]:
    """Wait until the room's match `number` is over (bots play it). (Polled from here: Playwright's
    wait_for_function takes a returned promise for a true value at once.)"""
    deadline = time.monotonic() + MATCH_WAIT_MS / 1000
    while True:
        room = room_state(page, code)
        match = room["match"]
        if match and match["number"] == number and match["status"] == "finished":
            return room
        assert time.monotonic() < deadline, f"match {number} did not finish: {match}"
        page.wait_for_timeout(250)


def leave_the_match_to_bots(page: Page, code: str) -> None:
    """Start the room's match with the host in seat 0, then hand her seat to a bot (she stays
    credited with it, so the match counts in her history) and let the bots play it out."""
    page.get_by_test_id("start").click()
    # Only once the match has begun with her in seat 0 (else she never sat in it).
    expect(page.locator("[data-testid=hand] .card").first).to_be_visible(timeout=20_000)
    status = page.evaluate(
        """(code) => fetch(`/api/rooms/${code}/seats/0`, {method: "POST",
             headers: {"Content-Type": "application/json"}, body: JSON.stringify({as: "bot", replace: true})})
             .then((r) => r.status)""",
        code,
    )
    assert status == 200


def close_results(page: Page, then: str) -> None:
    """Close every hand result the table shows (one per hand, at the end of a bots' match) until
    `then` (a test id) is visible and no result covers the page."""
    result = page.get_by_test_id("hand-result")
    wanted = page.get_by_test_id(then)
    deadline = time.monotonic() + MATCH_WAIT_MS / 1000
    while time.monotonic() < deadline:
        if result.count():
            result.locator("button.primary").first.click()
        elif wanted.is_visible():
            page.wait_for_timeout(300)  # a last result may still be on its way
            if not result.count():
                return
        page.wait_for_timeout(100)
    raise AssertionError(f"{then} did not show up")


def test_host_renames_the_room_and_plays_the_same_cards_again_with_a_comparison(
    new_person: NewPerson, artifacts: Path
) -> None:
    hana = new_person(viewport=LAPTOP, locale="en-GB")
    sign_up(hana, "Hana")
    invite = create_room(hana, "holy-grail", seats=3, hands=2)
    code = invite.rstrip("/").split("/r/")[1]

    # The default name, in the header and the tab; then the host renames the room.
    heading = hana.get_by_test_id("room-name")
    expect(heading).to_contain_text("Hana's table: Get the Holy Grail!")
    expect(hana).to_have_title(re.compile(r"^Hana's table: Get the Holy Grail!"))
    hana.get_by_test_id("rename-room").click()
    # The empty field shows the same default the server gives (the client builds it for the form).
    expect(hana.get_by_test_id("room-name-input")).to_have_attribute(
        "placeholder", "Hana's table: Get the Holy Grail!"
    )
    hana.get_by_test_id("room-name-input").fill("Friday cards")
    hana.get_by_test_id("save-room-name").click()
    expect(heading).to_contain_text("Friday cards")
    expect(hana).to_have_title(re.compile(r"^Friday cards"))

    # A guest on a phone, in Japanese, sees the new name too.
    ken = new_person(viewport=PHONE, locale="ja-JP")
    sign_up(ken, "Ken", path=invite)
    expect(ken.get_by_test_id("room-name")).to_contain_text("Friday cards")
    expect(ken).to_have_title(re.compile(r"^Friday cards"))

    # Bots play a short match (a bot plays the host's seat for her, so it counts in her history);
    # afterwards the host may deal the same cards again.
    hana.get_by_test_id("take-0").click()
    expect(hana.get_by_test_id("leave-0")).to_be_visible()
    hana.get_by_test_id("fill-bots").click()
    expect(hana.get_by_test_id("start")).to_be_enabled()
    leave_the_match_to_bots(hana, code)
    first = wait_finished(hana, code, 1)["match"]
    close_results(hana, "same-deals")
    same = hana.get_by_test_id("same-deals")
    expect(same).to_have_text("Play these cards again")
    check_screen(
        hana,
        artifacts,
        "rematch-room-1280",
        scope=".start-bar",
        required=("[data-testid=same-deals]", "[data-testid=same-deals-rotate]", "[data-testid=start]"),
    )
    hana.get_by_test_id("same-deals-rotate").check()
    same.click()
    second = wait_finished(hana, code, 2)["match"]
    close_results(hana, "same-deals")
    assert second["id"] != first["id"]

    # The rematch's page compares the two matches hand by hand, seat by seat.
    hana.goto(f"/matches/{second['id']}")
    panel = hana.get_by_test_id("same-deals")
    expect(panel).to_be_visible()
    expect(hana.get_by_test_id("match-title")).to_contain_text("Friday cards — match 2")
    expect(hana).to_have_title(re.compile(r"^Friday cards — match 2"))
    expect(panel).to_contain_text("Friday cards — match 1")
    expect(panel).to_contain_text("rotated one seat")
    table = hana.get_by_test_id("same-deals-table")
    expect(table.locator("tbody tr")).to_have_count(2)
    detail = hana.evaluate("(id) => fetch(`/api/matches/${id}`).then((r) => r.json())", second["id"])
    [versus] = detail["same_deals"]
    assert versus["match_id"] == first["id"] and versus["rotate"] is True
    first_row = table.locator("tbody tr").first.locator("td")
    assert first_row.nth(1).inner_text().startswith(_score(versus["hands"][0]["scores"][0]))
    check_screen(
        hana,
        artifacts,
        "rematch-match-1280",
        scope="main",
        required=("[data-testid=same-deals-table]",),
        vertical=False,
    )

    # The host's history names the room and the match's number in it.
    hana.goto("/history")
    row = hana.get_by_test_id("history").locator(f"tr[data-match='{first['id']}']")
    expect(row).to_contain_text("Friday cards — match 1")
    check_screen(
        hana,
        artifacts,
        "rematch-history-1280",
        scope="main",
        required=("[data-testid=history]",),
        vertical=False,
    )

    # The first match's page shows the same comparison from its side, in Japanese on a phone.
    ken.goto(f"/matches/{first['id']}")
    expect(ken.get_by_test_id("match-title")).to_contain_text("Friday cards — 第1戦")
    expect(ken.get_by_test_id("same-deals")).to_contain_text("同じ配札の比較")
    expect(ken.get_by_test_id("same-deals-table").locator("tbody tr")).to_have_count(2)
    expect(ken).to_have_title(re.compile(r"^Friday cards — 第1戦"))
    check_screen(
        ken,
        artifacts,
        "rematch-match-390",
        scope="main",
        required=("[data-testid=same-deals-table]",),
        vertical=False,
    )
    ken.goto(invite)
    expect(ken.get_by_test_id("room-name")).to_contain_text("Friday cards")
    check_screen(
        ken,
        artifacts,
        "rematch-room-390",
        scope="main",
        required=("[data-testid=room-name]",),
        vertical=False,
    )

    # The host's phone-sized room page after the rematch: the same controls fit.
    hana.set_viewport_size(PHONE)
    hana.goto(invite)
    expect(hana.get_by_test_id("same-deals")).to_be_visible()
    check_screen(
        hana,
        artifacts,
        "rematch-room-host-390",
        scope=".start-bar",
        required=("[data-testid=same-deals]", "[data-testid=same-deals-rotate]", "[data-testid=start]"),
    )
    assert not hana.console_errors, hana.console_errors
    assert not ken.console_errors, ken.console_errors


def test_a_rematch_with_more_hands_than_its_source_says_which_hands_got_fresh_cards(
    new_person: NewPerson, artifacts: Path
) -> None:
    """A one-hand match, then the same cards for three hands: hands 2 and 3 needed shuffles the
    first match never had, and the match page says so in a sentence that reads right."""
    hana = new_person(viewport=LAPTOP, locale="en-GB")
    sign_up(hana, "Hana")
    code = create_room(hana, "holy-grail", seats=3, hands=1).rstrip("/").split("/r/")[1]
    hana.get_by_test_id("fill-bots").click()
    expect(hana.get_by_test_id("start")).to_be_enabled()
    hana.get_by_test_id("start").click()
    first = wait_finished(hana, code, 1)["match"]
    call = """([code, method, path, body]) => fetch(`/api/rooms/${code}${path}`, {method,
                headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)})
                .then((r) => r.status)"""
    assert hana.evaluate(call, [code, "PATCH", "", {"options": {"hands": 3}}]) == 200
    same_deals = {"same_deals_as": first["id"], "rotate": False}
    assert hana.evaluate(call, [code, "POST", "/start", same_deals]) == 200
    second = wait_finished(hana, code, 2)["match"]

    hana.goto(f"/matches/{second['id']}")
    fresh = hana.get_by_test_id("same-deals-fresh")
    room = "Hana's table: Get the Holy Grail!"
    expect(fresh).to_have_text(
        f"In {room} — match 2, hands 2 and 3 needed more shuffles than {room} — match 1 had,"
        " so they were dealt fresh cards."
    )
    shown = ("[data-testid=same-deals-fresh]",)
    check_screen(hana, artifacts, "rematch-fresh-1280", scope="main", required=shown, vertical=False)
    hana.set_viewport_size(PHONE)
    hana.get_by_test_id("lang-switch").click()
    expect(fresh).to_have_text(
        "Hanaさんの卓「聖杯を獲得せよ！」 — 第2戦の第2・3ハンドは"
        "Hanaさんの卓「聖杯を獲得せよ！」 — 第1戦より多くの配札が必要だったため、新しい配札で遊びました。"
    )
    check_screen(hana, artifacts, "rematch-fresh-390", scope="main", required=shown, vertical=False)
    assert not hana.console_errors, hana.console_errors


def _score(value: float) -> str:
    """A score as the client writes it: a sign, a real minus, one decimal when fractional."""
    text = str(int(value)) if float(value).is_integer() else f"{value:.1f}"
    return f"+{text}" if value > 0 else text.replace("-", "−")
