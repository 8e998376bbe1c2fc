"""More of the feel of a real table (issue 22) in headless Chromium, on the seeded deals every
browser test's server deals: the optional sounds (off until switched on; then a card played, your
turn and a trick won each sound, heard through a spy on the page's WebAudio, not by timing);
"confirm each card", on by default on a touch screen and off with a mouse, remembered once
changed; a finished trick, shown on the felt and in the last-trick box one play per seat in
play order, with its leader and its winner marked; and a deal that fills the hand, while a page
that catches up on many actions at once (a page load mid-hand) draws them without motion."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PHONE, NewPerson
from tests.browser.layout import check_screen
from tests.browser.test_platform_browser import create_room, sign_up, start_solo_table
from tests.browser.test_table_feel_browser import DESKTOP, LEGAL, MY_TURN, raise_then_play

pytestmark = pytest.mark.browser

DONE = ".felt .trick-play.done"

# Every tone the page starts, by its frequency: static/js/sounds.js makes each sound of its own
# tones (a card: 320 Hz; your turn: 660 then 880 Hz; a trick won: 523, 659, 784 Hz).
SPY_ON_SOUNDS_JS = """
window.__tones = [];
const Real = window.AudioContext;
window.AudioContext = class extends Real {
  createOscillator() {
    const tone = super.createOscillator();
    const start = tone.start.bind(tone);
    tone.start = (...args) => { window.__tones.push(tone.frequency.value); return start(...args); };
    return tone;
  }
};
"""
CARD_TONES, TURN_TONES, TRICK_TONES = [320], [660, 880], [523, 659, 784]

# Every card drawn in the hand or on the felt, as each redraw adds it: whether an animation runs
# on it then (the motion is laid over each drawing as it is made). Installed before the page's
# scripts run, so a page load's first drawing is seen too.
WATCH_DRAWINGS_JS = """
window.__drawn = [];
let batch = 0;
new MutationObserver((records) => {
  batch += 1;
  for (const record of records) for (const node of record.addedNodes) {
    if (!(node instanceof Element)) continue;
    const cards = [...node.querySelectorAll('[data-testid=hand] .card[data-card], .felt .trick-card')];
    if (node.matches('[data-testid=hand] .card[data-card], .felt .trick-card')) cards.push(node);
    for (const el of cards) window.__drawn.push({
      batch, where: el.closest('.felt') ? 'felt' : 'hand', card: el.dataset.card,
      moving: el.getAnimations().length > 0,
    });
  }
}).observe(document, {childList: true, subtree: true});  // no documentElement yet
"""


def sounds_heard(page: Page) -> dict[str, bool]:
    """Which of the three sounds the page has played since the spy was last emptied."""
    tones = page.evaluate("() => window.__tones")

    def played(sound: list[int]) -> bool:
        return any(tones[i : i + len(sound)] == sound for i in range(len(tones)))

    return {"card": played(CARD_TONES), "turn": played(TURN_TONES), "trick": played(TRICK_TONES)}


def play_when_my_turn(page: Page) -> tuple[int, str] | None:
    """Click the first legal card if this page's person is to act and nothing is on its way;
    returns the seat shown and the card, or None when there was nothing to do (or the hand was
    redrawn under the click)."""
    if not page.locator(MY_TURN).count() or page.locator(".table-pending").count():
        return None
    card = page.locator(LEGAL).first
    with contextlib.suppress(Exception):  # redrawn under the click: the caller looks again
        seat = page.get_by_test_id("hand").get_attribute("data-seat", timeout=1000)
        code = card.get_attribute("data-card", timeout=1000)
        card.click(timeout=1500)
        assert seat is not None and code is not None
        return int(seat), code
    return None


def play_turns(page: Page, count: int) -> None:
    """Play the first legal card at each of this page's next `count` turns."""
    played = 0
    deadline = time.monotonic() + 60
    while played < count:
        assert time.monotonic() < deadline, f"only {played} of {count} turns came"
        if play_when_my_turn(page):
            played += 1
            expect(page.locator(".table-pending")).to_have_count(0)
        page.wait_for_timeout(100)


def play_one_trick(pages: list[Page]) -> list[int]:
    """Whoever is to act plays their first legal card until the three plays of a trick are made
    and it shows finished on the felt; returns the seats in the order they played."""
    order: list[int] = []
    deadline = time.monotonic() + 60
    while len(order) < 3 or not all(page.locator(DONE).count() for page in pages):
        assert time.monotonic() < deadline, f"the trick did not end: {order}"
        for page in pages if len(order) < 3 else ():
            played = play_when_my_turn(page)
            if played is not None:
                order.append(played[0])
                expect(page.locator(".table-pending")).to_have_count(0)
                break
        pages[0].wait_for_timeout(100)
    return order


def test_sounds_are_off_until_switched_on_then_a_card_your_turn_and_a_won_trick_each_sound(
    new_person: NewPerson, artifacts: Path
) -> None:
    ada = new_person(viewport=DESKTOP)
    ada.context.add_init_script(SPY_ON_SOUNDS_JS)
    start_solo_table(ada, "Ada", seats=3, my_seats=[0])
    toggle = ada.get_by_test_id("sound-toggle")
    expect(toggle).to_have_attribute("aria-pressed", "false")

    # Off: cards are played, tricks won and turns come, and nothing sounds.
    play_turns(ada, 2)
    expect(ada.locator(MY_TURN)).to_be_visible(timeout=20_000)
    assert ada.evaluate("() => window.__tones") == []

    # On: the toggle answers with the turn's beep, then each sound comes with its moment.
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    assert sounds_heard(ada)["turn"]
    ada.evaluate("() => { window.__tones = []; }")
    check_screen(ada, artifacts, "senses-sound-on-desktop")
    deadline = time.monotonic() + 60
    while not all((heard := sounds_heard(ada)).values()):
        assert time.monotonic() < deadline, f"not every sound was played: {heard}"
        play_when_my_turn(ada)
        ada.wait_for_timeout(100)

    # The choice is remembered.
    ada.reload()
    expect(ada.get_by_test_id("sound-toggle")).to_have_attribute("aria-pressed", "true")
    ada.set_viewport_size(PHONE)
    expect(ada.locator(MY_TURN)).to_be_visible(timeout=20_000)
    check_screen(ada, artifacts, "senses-sound-on-phone")
    assert not [e for e in ada.console_errors if "ERR_CONNECTION_REFUSED" not in e]  # type: ignore[attr-defined]


def test_confirm_each_card_is_on_by_default_on_a_touch_screen_off_with_a_mouse_and_remembered(
    new_person: NewPerson, artifacts: Path
) -> None:
    ada = new_person(viewport=PHONE, has_touch=True)
    invite = start_solo_table(ada, "Ada", seats=3, my_seats=[0])
    toggle = ada.get_by_test_id("confirm-toggle")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    # Ben watches from a laptop with a mouse: off for him.
    ben = new_person(viewport=DESKTOP)
    sign_up(ben, "Ben", path=invite)
    expect(ben.get_by_test_id("confirm-toggle")).to_have_attribute("aria-pressed", "false")

    # A first tap raises the card and says what it would do; the second plays it.
    raise_then_play(ada, artifacts, "senses-touch-raised-phone", touch=True)

    # Turned off on the touch screen, it stays off after a reload: one tap plays.
    ada.get_by_test_id("confirm-toggle").tap()
    ada.reload()
    expect(ada.get_by_test_id("confirm-toggle")).to_have_attribute("aria-pressed", "false")
    expect(ada.locator(MY_TURN)).to_be_visible(timeout=20_000)
    held = ada.locator("[data-testid=hand] .card").count()
    deadline = time.monotonic() + 20
    while ada.locator("[data-testid=hand] .card").count() == held:
        assert time.monotonic() < deadline, "one tap did not play a card"
        with contextlib.suppress(Exception):  # redrawn under the tap: look again
            ada.locator(LEGAL).first.tap(timeout=1500)
        ada.wait_for_timeout(300)
    expect(ada.locator("[data-testid=hand] .card.is-selected")).to_have_count(0)
    ada.set_viewport_size(DESKTOP)
    check_screen(ada, artifacts, "senses-touch-confirm-off-desktop", required=("[data-testid=turn]",))


def test_a_finished_trick_shows_each_play_in_order_with_its_leader_and_winner_marked(
    new_person: NewPerson, artifacts: Path
) -> None:
    """Ada holds seats 0 and 2 on a laptop, Ben seat 1 on his phone: the table waits for people
    only, so the finished trick stays on the felt until its winner leads."""
    ada = new_person(viewport=DESKTOP)
    sign_up(ada, "Ada")
    invite = create_room(ada, "holy-grail", seats=3, hands=1)
    ben = new_person(viewport=PHONE)
    sign_up(ben, "Ben", path=invite)
    ada.get_by_test_id("take-0").click()
    ada.get_by_test_id("take-2").click()
    ben.get_by_test_id("take-1").click()
    expect(ada.locator(".seat-row[data-seat='1'] .seat-who")).to_contain_text("Ben")
    ada.get_by_test_id("start").click()
    names = {0: "Ada", 1: "Ben", 2: "Ada"}

    # Tricks are played until one is won by another seat than its leader's (seeded: the third).
    for _ in range(6):
        order = play_one_trick([ada, ben])
        winner = int(ada.locator(".felt .seat.to-act").get_attribute("data-seat") or "-1")
        leader = order[0]
        if winner != leader:
            break
    assert sorted(order) == [0, 1, 2] and leader != winner, (order, winner)

    # On the felt: one play per seat, numbered in play order, the leader's badge and the
    # winner's star marked.
    for page in (ada, ben):
        done = page.locator(DONE)
        expect(done).to_have_count(3)
        expect(page.locator(f"{DONE}.winner")).to_have_attribute("data-seat", str(winner))
        for place, seat in enumerate(order, start=1):
            badge = page.locator(f"{DONE}[data-seat='{seat}'] .play-badge")
            if seat == winner:
                expect(badge).to_have_text("★")
                expect(badge).to_have_attribute("title", f"{names[seat]} won this trick")
            else:
                expect(badge).to_have_text(str(place))
        lead = page.locator(f"{DONE}[data-seat='{leader}'] .play-badge.led")
        expect(lead).to_have_attribute("title", f"{names[leader]} led this trick")
    # In the laptop's last-trick box: the plays grouped one per seat in play order, marked too.
    box = ada.get_by_test_id("last-trick")
    plays = box.get_by_test_id("last-play")
    expect(plays).to_have_count(3)
    assert [int(s) for s in plays.evaluate_all("(ps) => ps.map((p) => p.dataset.seat)")] == order
    expect(box.locator(".last-play.winner")).to_have_attribute("data-seat", str(winner))
    expect(box.locator(".last-play.led")).to_have_attribute("data-seat", str(leader))
    expect(box.locator(".last-winner")).to_have_text(f"won by {names[winner]}")
    expect(box.locator(".last-play.winner .last-play-mark")).to_have_text("won")
    expect(box.locator(".last-play.led .last-play-mark")).to_have_text("led")
    check_screen(ada, artifacts, "senses-finished-trick-desktop", required=("[data-testid=last-trick]",))
    # On the phone the felt shows it: no second copy.
    expect(ben.get_by_test_id("last-trick")).to_have_count(0)
    check_screen(ben, artifacts, "senses-finished-trick-phone", required=("[data-testid=turn]", DONE))

    # Once the winner leads, the phone shows the finished trick in its box instead.
    winner_page = ben if winner == 1 else ada
    deadline = time.monotonic() + 20
    while not play_when_my_turn(winner_page):
        assert time.monotonic() < deadline, "the winner could not lead"
        winner_page.wait_for_timeout(100)
    phone_box = ben.get_by_test_id("last-trick")
    expect(phone_box.get_by_test_id("last-play")).to_have_count(3)
    expect(phone_box.locator(".last-play.winner")).to_have_attribute("data-seat", str(winner))
    expect(phone_box.locator(".last-play.led")).to_have_attribute("data-seat", str(leader))
    check_screen(ben, artifacts, "senses-last-trick-phone", required=("[data-testid=last-trick]",))


def first_drawing_of(page: Page, where: str) -> list[dict[str, Any]]:
    """The cards of the first redraw that drew any card at `where` ("hand" or "felt")."""
    deadline = time.monotonic() + 20
    while True:
        drawn = [d for d in page.evaluate("() => window.__drawn") if d["where"] == where]
        if drawn:
            return [d for d in drawn if d["batch"] == drawn[0]["batch"]]
        assert time.monotonic() < deadline, f"nothing was drawn at {where}"
        page.wait_for_timeout(50)


@pytest.mark.with_motion
def test_a_deal_fills_the_hand_and_a_page_catching_up_on_many_actions_draws_them_still(
    new_person: NewPerson, artifacts: Path
) -> None:
    ada = new_person(viewport=DESKTOP)
    ada.context.add_init_script(WATCH_DRAWINGS_JS)
    start_solo_table(ada, "Ada", seats=3, my_seats=[0])

    # The deal: the hand's cards arrive one after another, each moving as it is first drawn.
    dealt = first_drawing_of(ada, "hand")
    assert len(dealt) > 2 and all(d["moving"] for d in dealt), dealt

    # Ada plays three tricks (more than eight actions), then opens the table again: what is on
    # the felt and in her hand is simply there.
    play_turns(ada, 3)
    expect(ada.locator(MY_TURN)).to_be_visible(timeout=20_000)
    version = ada.evaluate(
        "(code) => fetch(`/api/rooms/${code}`).then((r) => r.json())", ada.url.split("/r/")[1]
    )
    assert version["match"]["version"] > 8 + 2  # the opening draw and deal, and nine plays
    ada.reload()
    expect(ada.locator(MY_TURN)).to_be_visible(timeout=20_000)
    shown = first_drawing_of(ada, "hand")
    assert shown and not any(d["moving"] for d in shown), shown
    check_screen(ada, artifacts, "senses-caught-up-desktop")

    # From then on the table moves again: her next card travels to the felt.
    mine = None
    deadline = time.monotonic() + 20
    while mine is None:
        assert time.monotonic() < deadline, "Ada could not play"
        played_now = play_when_my_turn(ada)
        mine = played_now[1] if played_now else None
        ada.wait_for_timeout(50)
    deadline = time.monotonic() + 15
    while not (
        drawn := [
            d for d in ada.evaluate("() => window.__drawn") if d["card"] == mine and d["where"] == "felt"
        ]
    ):
        assert time.monotonic() < deadline, f"{mine} never reached the felt"
        ada.wait_for_timeout(50)
    assert drawn[0]["moving"], drawn
