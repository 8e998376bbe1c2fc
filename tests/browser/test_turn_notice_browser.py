"""A player notices their turn and can catch up: the tab title changes when their turn comes, an
optional beep is off until they turn it on (and the choice is remembered), a click on a card
they cannot play says why in one line in their language, and the play log lists every card of
the hand trick by trick. The turn mark survives a room update that renames the tab."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import NewPerson
from tests.browser.pictures import save_picture
from tests.browser.test_platform_browser import start_solo_table

pytestmark = pytest.mark.browser

LEGAL = "[data-testid=hand] .card.is-legal"
DISABLED = "[data-testid=hand] .card.is-disabled"
MY_TURN = "[data-testid=turn].my-turn"


def wait_for_my_turn(page: Page) -> None:
    expect(page.locator(MY_TURN)).to_be_visible(timeout=20_000)
    expect(page.locator(".table-pending")).to_have_count(0)


def test_turn_title_sound_toggle_refusal_line_and_play_log(new_person: NewPerson, artifacts: Path) -> None:
    ada = new_person(viewport={"width": 1280, "height": 800})
    start_solo_table(ada, "Ada", seats=4, my_seats=[0])
    wait_for_my_turn(ada)
    assert ada.title().startswith("● Your turn"), ada.title()
    # A room update during the turn (the host renames the room) renames the tab and keeps the mark.
    code = ada.url.rstrip("/").rsplit("/", 1)[1]
    ada.evaluate(
        """(code) => fetch(`/api/rooms/${code}`, {method: "PATCH",
            headers: {"content-type": "application/json"}, body: JSON.stringify({name: "Friday cards"})})""",
        code,
    )
    expect(ada).to_have_title(re.compile(r"^● Your turn — Friday cards · "))

    # the beep is off by default; turning it on is remembered across a reload
    toggle = ada.get_by_test_id("sound-toggle")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.click()
    expect(ada.get_by_test_id("sound-toggle")).to_have_attribute("aria-pressed", "true")
    ada.reload()
    expect(ada.get_by_test_id("sound-toggle")).to_have_attribute("aria-pressed", "true")

    # play until a turn where some card is not allowed, then click that card
    played: list[str] = []
    explained = notice_shown = False
    deadline = time.monotonic() + 60
    while (not explained or len(played) < 2) and time.monotonic() < deadline:
        wait_for_my_turn(ada)
        if not explained and ada.locator(DISABLED).count():
            ada.locator(DISABLED).first.click(force=True)
            notice = ada.get_by_test_id("table-notice")
            expect(notice).to_be_visible()
            expect(notice).to_have_text(re.compile(r"must follow|not broken|do not allow"))
            box = notice.bounding_box()
            assert box and box["height"] < 50, "the reason is one line"
            save_picture(ada, artifacts / "turn-notice-refusal.png")
            ada.get_by_test_id("lang-switch").click()
            ada.locator(DISABLED).first.click(force=True)
            expect(ada.get_by_test_id("table-notice")).to_have_text(re.compile(r"[ぁ-んァ-ン一-龥]"))
            ada.get_by_test_id("lang-switch").click()
            explained = notice_shown = True
            continue
        card = ada.locator(LEGAL).first
        code = card.get_attribute("data-card")
        try:
            card.click(timeout=2000)
        except Exception:  # redrawn under the click: look again
            continue
        if code:
            played.append(code)
        if notice_shown:
            notice_shown = False
            # The reason describes a state that has passed once the table moves on: it goes with
            # it, well before its own few seconds are over.
            expect(ada.get_by_test_id("table-notice")).to_have_count(0, timeout=2000)
    assert explained, "never had a card that could not be played"
    assert len(played) >= 2, played

    # a card played by someone else ends up in the log too; ours are all there
    ada.wait_for_timeout(300)
    ada.get_by_test_id("open-log").click()
    log = ada.get_by_test_id("play-log")
    expect(log).to_be_visible()
    expect(log).to_contain_text("Trick 1")
    for code in played:
        expect(log.locator(f".card[data-card='{code}']")).to_have_count(1)
    assert log.locator(".card").count() >= 4 * len(played) - 3, "every seat's cards are listed"
    save_picture(ada, artifacts / "turn-notice-play-log.png")
    log.get_by_role("button").click()
    expect(ada.get_by_test_id("play-log")).to_have_count(0)
    assert not ada.console_errors, ada.console_errors
