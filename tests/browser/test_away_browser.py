"""Friends at the table in the browser (issue 13): two people chat at a table; one closes their
browser, the other sees the notice and the bot playing for them, the first comes back, reads
what was said while he was gone, answers and plays again.

The server runs with `CARDTABLE_DEADLINE_SCALE=0.5` (test-only): the room's real settings (a
10 s grace, a 15 s turn timer, chosen in the create form) last 5 s and 7.5 s here.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PHONE, NewPerson, ServerProcess
from tests.browser.layout import check_screen
from tests.browser.pictures import save_picture
from tests.browser.test_chat_browser import say
from tests.browser.test_platform_browser import sign_up

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
LEGAL = "[data-testid=hand] .card.is-legal"
MY_TURN = "[data-testid=turn].my-turn"


@pytest.fixture
def server_process(database_url: str, artifacts: Path) -> Iterator[ServerProcess]:
    """The real app, with deadlines at half their seconds and bots a little slower than in
    other browser tests, so a person can see the bot's moves arrive."""
    logs = artifacts / "server-logs"
    logs.mkdir(exist_ok=True)
    process = ServerProcess(database_url, logs)
    process.env.update(
        {
            "CARDTABLE_DEADLINE_SCALE": "0.5",
            "CARDTABLE_DEADLINE_POLL": "0.1",
            "CARDTABLE_BOT_DELAY": "0.3",
        }
    )
    process.start()
    try:
        yield process
    finally:
        process.stop()


def my_turn(page: Page) -> bool:
    return page.locator(MY_TURN).count() > 0 and page.locator(".table-pending").count() == 0


def play_one(page: Page) -> bool:
    """Click a legal card if it is this page's turn; True when a card was clicked."""
    if not my_turn(page):
        return False
    try:
        page.locator(LEGAL).first.click(timeout=1500)
    except Exception:  # redrawn under the click (the table moved on): look again later
        return False
    return True


def seat_cards(page: Page, seat: int) -> int:
    text = page.locator(f".felt .seat[data-seat='{seat}'] .seat-count").inner_text()
    return int(re.sub(r"\D", "", text))


def test_a_player_leaves_a_bot_plays_for_them_and_they_come_back(
    new_person: NewPerson, artifacts: Path
) -> None:
    ada = new_person(viewport=DESKTOP)
    sign_up(ada, "Ada")
    form = ada.get_by_test_id("create-room")
    form.get_by_test_id("game-select").select_option("holy-grail")
    form.get_by_test_id("seats-select").select_option("3")
    form.locator("input[data-option=hands]").fill("1")
    form.get_by_test_id("away-grace").select_option("10")
    form.get_by_test_id("turn-timer").select_option("15")
    ada.set_viewport_size(PHONE)
    form.get_by_test_id("turn-timer").scroll_into_view_if_needed()
    save_picture(ada, artifacts / "away-create-form-phone.png")
    ada.set_viewport_size(DESKTOP)
    form.locator("button[type=submit]").click()
    ada.wait_for_url(re.compile(r"/r/[^/]+$"))
    invite = ada.get_by_test_id("invite-url").input_value()
    timing = ada.get_by_test_id("room-timing")
    expect(timing.get_by_test_id("turn-timer")).to_have_value("15")
    expect(timing.get_by_test_id("away-grace")).to_have_value("10")
    # The host changes a setting between matches in the lobby; it is saved at once.
    timing.get_by_test_id("turn-timer").select_option("")
    expect(ada.get_by_test_id("timing-status")).to_have_text("Saved.")
    timing.get_by_test_id("turn-timer").select_option("15")
    expect(ada.get_by_test_id("timing-status")).to_have_text("Saved.")
    expect(timing.get_by_test_id("turn-timer")).to_have_value("15")
    save_picture(ada, artifacts / "away-lobby-timing.png", full_page=True)
    ada.get_by_test_id("take-0").click()

    ben = new_person(viewport=PHONE, locale="ja-JP")
    sign_up(ben, "Ben", path=invite)
    ben.get_by_test_id("take-1").click()
    expect(ada.locator(".seat-row[data-seat='1'] .seat-who")).to_contain_text("Ben")
    ada.get_by_test_id("fill-bots").click()
    expect(ada.locator(".seat-row.empty")).to_have_count(0)
    ada.get_by_test_id("start").click()
    for page in (ada, ben):
        expect(page.locator("[data-testid=hand] .card")).to_have_count(12)

    # They chat at the table: Ada's laptop shows the chat, Ben's phone counts the unread line.
    say(ada, "back in a minute?")
    expect(ben.get_by_test_id("chat-unread")).to_have_text("1")

    # Whoever is to act has a countdown on their seat, seen by both.
    expect(ada.locator(".felt .seat.to-act .seat-timer")).to_have_count(1, timeout=10_000)

    # Ben closes his browser: Ada is told at once and his seat says he is away.
    ben_context = ben.context
    ben.close()
    expect(ada.get_by_test_id("away-notice")).to_contain_text("Ben disconnected (away)")
    expect(ada.get_by_test_id("away-1")).to_have_text("away")

    # After the grace, at his turn, a bot plays for him, and Ada reads so.
    before = seat_cards(ada, 1)
    deadline = time.monotonic() + 60
    while seat_cards(ada, 1) >= before or ada.get_by_test_id("away-notice").count() == 0:
        assert time.monotonic() < deadline, "no bot played for Ben"
        play_one(ada)
        ada.wait_for_timeout(150)
    expect(ada.get_by_test_id("away-notice")).to_contain_text("Bot playing for Ben (away)")
    expect(ada.get_by_test_id("away-1")).to_contain_text("Bot")
    # A decision screen of Ada's with the notice, on one screen.
    deadline = time.monotonic() + 30
    while not my_turn(ada):
        assert time.monotonic() < deadline, "Ada's turn did not come"
        ada.wait_for_timeout(100)
    assert ada.locator(MY_TURN).inner_text().startswith("Your turn:"), "her own countdown in the title"
    check_screen(ada, artifacts, "away-desktop-bot-plays-for-ben")
    # The same on a phone: the notice and the seat's tag fit beside the hand and the felt.
    ada.set_viewport_size(PHONE)
    expect(ada.locator(f"[data-drawn-width='{PHONE['width']}']")).to_have_count(1)
    expect(ada.get_by_test_id("away-notice")).to_contain_text("Bot playing for Ben (away)")
    check_screen(ada, artifacts, "away-phone-bot-plays-for-ben")
    ada.set_viewport_size(DESKTOP)

    # Ben comes back (the same device, a new tab) and gets his seat back at his next turn.
    ben = ben_context.new_page()
    errors: list[str] = []
    ben.on("pageerror", lambda error: errors.append(str(error)))
    ben.goto(invite)
    expect(ada.get_by_test_id("away-notice")).to_contain_text("Ben is back")
    expect(ada.get_by_test_id("away-1")).to_have_count(0)
    expect(ben.locator("[data-testid=hand] .card").first).to_be_visible()
    deadline = time.monotonic() + 60
    while not my_turn(ben):
        assert time.monotonic() < deadline, "Ben's turn did not come"
        play_one(ada)
        ada.wait_for_timeout(150)
    expect(ben.locator(MY_TURN)).to_contain_text("残り")  # his countdown, in Japanese
    check_screen(ben, artifacts, "away-phone-ben-back-ja")
    held = ben.locator("[data-testid=hand] .card").count()
    assert play_one(ben)
    expect(ben.locator("[data-testid=hand] .card")).to_have_count(held - 1)
    expect(ben.get_by_test_id("away-notice")).to_have_count(0, timeout=10_000)

    # Back at the table he opens the chat, reads what Ada wrote while he was away, and answers.
    say(ada, "the bot played your cards")
    ben.get_by_test_id("chat-toggle").click()
    expect(ben.get_by_test_id("chat-text")).to_have_text(["back in a minute?", "the bot played your cards"])
    ben.locator("[data-testid=chat-reaction][data-key='chat.quick.sorry']").click()
    expect(ada.get_by_test_id("chat-text").last).to_have_text("ごめん")
    expect(ada.locator(".chat-line").last.locator(".chat-name")).to_have_text("Ben")
    check_screen(ben, artifacts, "away-phone-ben-back-chat-ja")
    assert not ada.console_errors, ada.console_errors  # type: ignore[attr-defined]
    assert not errors, errors
