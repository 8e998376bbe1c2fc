"""The turn finds you (static/js/alerts.js): a page in the background is told when it becomes
the person's turn, with a system notification, a sound and a vibration, each of which can be
turned off; a page the person is looking at is not. The notification's permission is asked only
from the table's "Tell me when it's my turn" control, never on page load.

Chromium's notification permission is granted in the test's browser context. An init script
records each `new Notification(...)` and each `navigator.vibrate(...)` before passing them on,
and lets the test say whether the page is hidden (`document.visibilityState`), as another tab
brought to the front would make it.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.accessibility import check_accessibility
from tests.browser.conftest import PHONE, NewPerson
from tests.browser.pictures import save_picture
from tests.browser.test_chat_browser import say
from tests.browser.test_platform_browser import create_room, sign_up, start_solo_table

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1280, "height": 800}
LEGAL = "[data-testid=hand] .card.is-legal"
MY_TURN = "[data-testid=turn].my-turn"

RECORDER = """
window.__hidden = false;
window.__notes = [];
window.__vibrations = [];
window.__asked = 0;
Object.defineProperty(Document.prototype, "visibilityState", {
  configurable: true, get() { return window.__hidden ? "hidden" : "visible"; },
});
Object.defineProperty(Document.prototype, "hidden", {
  configurable: true, get() { return window.__hidden; },
});
const RealNotification = window.Notification;
function RecordedNotification(title, options) {
  window.__notes.push({ title, body: options && options.body, tag: options && options.tag });
  return new RealNotification(title, options);
}
Object.defineProperty(RecordedNotification, "permission", { get: () => RealNotification.permission });
RecordedNotification.requestPermission = (...args) => {
  window.__asked += 1;
  return RealNotification.requestPermission(...args);
};
window.Notification = RecordedNotification;
navigator.vibrate = (pattern) => { window.__vibrations.push(pattern); return true; };
"""


def set_hidden(page: Page, hidden: bool) -> None:
    page.evaluate(
        "(hidden) => { window.__hidden = hidden; document.dispatchEvent(new Event('visibilitychange')); }",
        hidden,
    )


def play_and_wait_for_my_turn(page: Page) -> None:
    """Play a card, then wait until it is this person's turn again."""
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "no card could be played"
        expect(page.locator(MY_TURN)).to_be_visible(timeout=30_000)
        try:
            page.locator(LEGAL).first.click(timeout=1500)
            break
        except Exception:  # redrawn under the click
            continue
    expect(page.locator(MY_TURN)).to_have_count(0, timeout=10_000)
    expect(page.locator(MY_TURN)).to_be_visible(timeout=30_000)


def counts(page: Page) -> tuple[int, int]:
    notes, vibrations = page.evaluate("[window.__notes.length, window.__vibrations.length]")
    return notes, vibrations


@pytest.mark.server_env(CARDTABLE_BOT_DELAY="0.3")
@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_a_hidden_page_is_told_its_turn_and_a_visible_one_is_not(
    new_person: NewPerson, artifacts: Path, viewport: dict[str, int]
) -> None:
    size = "phone" if viewport is PHONE else "laptop"
    ada = new_person(viewport=viewport, permissions=["notifications"])
    ada.context.add_init_script(RECORDER)
    start_solo_table(ada, "Ada", seats=3, my_seats=[0])
    expect(ada.locator("[data-testid=hand] .card").first).to_be_visible()
    assert ada.evaluate("window.__asked") == 0, "permission is never asked on page load"

    # The table's control says why; turning the notification on asks for the permission when the
    # browser has not granted it yet (here it has).
    ada.get_by_test_id("alerts-toggle").click()
    dialog = ada.get_by_test_id("alerts-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("in the background")
    save_picture(ada, artifacts / f"alerts-dialog-{size}.png")
    check_accessibility(ada, "the turn alerts' settings")
    ada.get_by_test_id("alerts-notify").check()
    expect(ada.get_by_test_id("alerts-notify")).to_be_checked()
    ada.get_by_test_id("alerts-close").click()
    expect(dialog).to_have_count(0)
    expect(ada.get_by_test_id("alerts-toggle")).to_have_class("small sound-toggle alerts-toggle on")

    # Looking at the table: no notification, no vibration at her turn.
    play_and_wait_for_my_turn(ada)
    assert counts(ada) == (0, 0)

    # In the background: her next turn brings a notification and a vibration.
    set_hidden(ada, True)
    play_and_wait_for_my_turn(ada)
    notes = ada.evaluate("window.__notes")
    assert [note["title"] for note in notes] == ["Your turn"], notes
    assert "your turn" in notes[0]["body"]
    assert ada.evaluate("window.__vibrations.length") == 1

    # Vibration turned off: the next hidden turn notifies without it.
    set_hidden(ada, False)
    ada.get_by_test_id("alerts-toggle").click()
    ada.get_by_test_id("alerts-vibrate").uncheck()
    ada.get_by_test_id("alerts-close").click()
    set_hidden(ada, True)
    play_and_wait_for_my_turn(ada)
    assert counts(ada) == (2, 1)
    save_picture(ada, artifacts / f"alerts-on-table-{size}.png")
    assert not ada.console_errors, ada.console_errors  # type: ignore[attr-defined]


def test_a_hidden_page_is_told_when_a_friend_writes_and_when_the_match_starts(new_person: NewPerson) -> None:
    ada = new_person(viewport=LAPTOP, permissions=["notifications"])
    ada.context.add_init_script(RECORDER)
    ben = new_person(viewport=PHONE)
    sign_up(ada, "Ada")
    invite = create_room(ada, "holy-grail", seats=3, hands=1)
    ada.evaluate("localStorage.setItem('cardtable.alerts', JSON.stringify({notify: true}))")
    ada.reload()
    ada.get_by_test_id("take-0").click()
    sign_up(ben, "Ben", path=invite)
    ben.get_by_test_id("take-1").click()
    expect(ada.locator(".seat-row[data-seat='1'] .seat-who")).to_contain_text("Ben")
    ada.get_by_test_id("fill-bots").click()
    expect(ada.locator(".seat-row.empty")).to_have_count(0)

    # Ada looks elsewhere: Ben's line, then the match's start (she starts it with a click).
    set_hidden(ada, True)
    say(ben, "ready when you are")
    deadline = time.monotonic() + 10
    while not ada.evaluate("window.__notes.length"):
        assert time.monotonic() < deadline, "no notification for Ben's line"
        ada.wait_for_timeout(100)
    note = ada.evaluate("window.__notes[0]")
    assert note["title"] == "Ben wrote" and note["body"] == "ready when you are", note
    ada.get_by_test_id("start").click()
    deadline = time.monotonic() + 10
    while "The match starts" not in [n["title"] for n in ada.evaluate("window.__notes")]:
        assert time.monotonic() < deadline, "no notification for the match's start"
        ada.wait_for_timeout(100)
    # A line that comes while she looks at the page tells her nothing more.
    set_hidden(ada, False)
    before = ada.evaluate("window.__notes.length")
    ben.get_by_test_id("chat-toggle").click()  # at the table a phone opens its chat first
    say(ben, "good luck")
    expect(ada.get_by_test_id("chat-text").last).to_have_text("good luck")
    assert ada.evaluate("window.__notes.length") == before
