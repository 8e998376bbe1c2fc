"""Two people chat at a table: Ada on a laptop, Ben on a phone in Japanese. Lines and a quick
reaction reach the other screen, HTML arrives as inert text, the phone's folded chat counts
unread lines and, opened, leaves the hand and the controls in view, typing survives the table's
redraws, a reloaded page reads the history back, and the finished match's page shows, read-only,
what was said while it ran."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import NewPerson
from tests.browser.layout import check_screen
from tests.browser.pictures import save_picture
from tests.browser.test_platform_browser import create_room, play_until_hand_result, sign_up

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
HTML = '<img src=x onerror="window.__pwned = 1">'
HAND = "[data-testid=hand] .card"


def say(page: Page, text: str) -> None:
    page.get_by_test_id("chat-input").fill(text)
    page.get_by_test_id("chat-send").click()
    expect(page.get_by_test_id("chat-input")).to_have_value("")


def lines(page: Page) -> list[str]:
    return page.get_by_test_id("chat-text").all_text_contents()


def test_two_people_chat_at_a_table_on_a_laptop_and_a_phone(new_person: NewPerson, artifacts: Path) -> None:
    ada = new_person(viewport=LAPTOP)
    sign_up(ada, "Ada")
    invite = create_room(ada, "holy-grail", seats=3, hands=1)
    ben = new_person(viewport=PHONE, locale="ja-JP")
    sign_up(ben, "Ben", path=invite)

    # In the lobby the chat is open under the room's sections.
    say(ada, "hello from the lobby")
    expect(ben.get_by_test_id("chat-text")).to_have_text(["hello from the lobby"])
    save_picture(ada, artifacts / "chat-lobby-laptop.png", full_page=True)
    save_picture(ben, artifacts / "chat-lobby-phone.png", full_page=True)

    ada.get_by_test_id("take-0").click()
    expect(ada.locator(".seat-row[data-seat='0'] .seat-who")).to_contain_text("Ada")
    ben.get_by_test_id("take-1").click()
    expect(ada.locator(".seat-row[data-seat='1'] .seat-who")).to_contain_text("Ben")
    ada.get_by_test_id("fill-bots").click()
    expect(ada.locator(".seat-row.empty")).to_have_count(0)
    ada.get_by_test_id("start").click()
    expect(ada.locator(HAND).first).to_be_visible()
    expect(ben.locator(HAND).first).to_be_visible()

    # At the table: the laptop shows the chat beside the felt; the phone folds it.
    table_chat = "[data-testid=table] [data-testid=chat]"
    expect(ada.locator(table_chat)).to_be_visible()
    expect(ben.locator(table_chat)).to_be_hidden()
    expect(ben.get_by_test_id("chat-toggle")).to_be_visible()

    say(ada, HTML)
    expect(ben.get_by_test_id("chat-unread")).to_have_text("1")
    # The folded phone shows the new line for a few seconds over the table, without opening it.
    expect(ben.get_by_test_id("chat-toast")).to_contain_text(HTML)
    save_picture(ben, artifacts / "chat-phone-toast.png")
    expect(ben.get_by_test_id("chat-toast")).to_be_hidden(timeout=8000)
    check_screen(ben, artifacts, "chat-phone-folded")
    ben.get_by_test_id("chat-toggle").click()
    expect(ben.locator(table_chat)).to_be_visible()
    expect(ben.get_by_test_id("chat-unread")).to_have_count(0)
    expect(ben.get_by_test_id("chat-text").last).to_have_text(HTML)  # the markup, shown as text
    for page in (ada, ben):
        assert page.locator("[data-testid=chat] img").count() == 0
        assert page.evaluate("window.__pwned") is None

    # A quick reaction, in the phone's language, is one tap.
    ben.locator("[data-testid=chat-reaction][data-key='chat.quick.nice']").click()
    expect(ada.get_by_test_id("chat-text").last).to_have_text("ナイス!")
    expect(ada.locator(".chat-line").last.locator(".chat-name")).to_have_text("Ben")
    # Opened on the phone, the chat takes the felt's place: the hand and every control stay in view.
    expect(ben.locator(".table-stage")).to_be_hidden()
    check_screen(ben, artifacts, "chat-phone-open")
    check_screen(ada, artifacts, "chat-laptop")

    # What Ada is typing survives the table's redraws (Ben reconnecting changes the room).
    ada.get_by_test_id("chat-input").fill("half-written")
    ada.evaluate("document.querySelector('.table-status').dataset.before = '1'")
    ben.reload()
    expect(ada.locator(".table-status[data-before]")).to_have_count(0)  # the table was drawn again
    expect(ada.get_by_test_id("chat-input")).to_have_value("half-written")
    expect(ada.get_by_test_id("chat-input")).to_be_focused()

    # The reloaded page reads the history back (folded again: the unread count starts at zero).
    expect(ben.locator(HAND).first).to_be_visible()
    ben.get_by_test_id("chat-toggle").click()
    expect(ben.get_by_test_id("chat-text")).to_have_text(["hello from the lobby", HTML, "ナイス!"])
    ben.get_by_test_id("chat-input").fill("x" * 600)  # the box stops at 500 characters
    assert len(ben.get_by_test_id("chat-input").input_value()) == 500

    # The match ends; its page shows the lines written while it ran (not the lobby's), read-only.
    play_until_hand_result([ada, ben])
    room = ada.evaluate(f"fetch('/api/rooms/{invite.rsplit('/', 1)[1]}').then((r) => r.json())")
    assert room["match"]["status"] == "finished"
    for page, shot in ((ada, "chat-match-laptop"), (ben, "chat-match-phone")):
        page.goto(f"/matches/{room['match']['id']}")
        chat = page.locator(".match-chat")
        expect(chat.get_by_test_id("chat-text")).to_have_text([HTML, "ナイス!"])
        expect(chat.get_by_test_id("chat-input")).to_have_count(0)
        expect(chat.get_by_test_id("chat-reaction")).to_have_count(0)
        chat.scroll_into_view_if_needed()
        save_picture(page, artifacts / f"{shot}.png", full_page=True)
    assert ada.console_errors == [] and ben.console_errors == []  # type: ignore[attr-defined]
