"""A whole hand with the keyboard alone: the skip link reaches the hand, arrow keys move between
cards and action buttons, Enter or Space plays or selects, focus survives every redraw, the
result dialog takes focus and Escape gives it back; and the live region says each play, the
trick's winner, "Your turn" and the result (tests/browser/test_keyboard_browser.py plays Get the
Holy Grail! and Yaya Fugou against bots on seeded deals)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import NewPerson
from tests.browser.pictures import save_picture
from tests.browser.test_platform_browser import start_solo_table
from tests.browser.test_yaya_fugou_browser import WEAKEST_FIRST

pytestmark = pytest.mark.browser

# The server's deal seed (CARDTABLE_DEAL_SEED) for a four-seat Yaya Fugou hand in which seat 0
# holds the Coins 3, so the person leads the first round.
YAYA_SEED = 5

HAND_CARDS = "[data-testid=hand] .card"
RESULT = "[data-testid=hand-result]"
MY_TURN = "[data-testid=turn].my-turn"

# Every text the live region is given, in order (installed before the page's scripts run).
RECORD_ANNOUNCEMENTS_JS = """
window.__announced = [];
new MutationObserver(() => {
  const region = document.querySelector('[data-testid=announcer]');
  const said = window.__announced;
  if (region && region.textContent && said[said.length - 1] !== region.textContent) {
    said.push(region.textContent);
  }
}).observe(document, {subtree: true, childList: true, characterData: true});
"""

FOCUS_JS = """() => {
  const el = document.activeElement;
  return {
    card: el && el.closest('[data-testid=hand]') ? el.dataset.card || null : null,
    testid: el ? el.getAttribute('data-testid') : null,
    text: el ? (el.textContent || '').trim() : '',
    inDialog: !!(el && el.closest('.dialog')),
    body: el === document.body || !el,
  };
}"""

TABLE_JS = """() => ({
  hand: [...document.querySelectorAll('[data-testid=hand] .card')].map((e) => e.dataset.card),
  legal: [...document.querySelectorAll('[data-testid=hand] .card.is-legal')].map((e) => e.dataset.card),
  selected: [...document.querySelectorAll('[data-testid=hand] .card.is-selected')].map((e) => e.dataset.card),
  myTurn: !!document.querySelector('[data-testid=turn].my-turn') && !document.querySelector('.table-pending'),
  leading: !!document.querySelector('[data-testid=yf-pile-empty]'),
  topKind: (document.querySelector('[data-testid=yf-top]') || {dataset: {}}).dataset.kind || null,
  verdict: (document.querySelector('[data-testid=yf-selection]') || {dataset: {}}).dataset.legal || null,
  result: !!document.querySelector('[data-testid=hand-result]'),
})"""


def _no_console_errors(page: Page) -> None:
    assert not page.console_errors, page.console_errors


def _focus(page: Page) -> dict:
    return page.evaluate(FOCUS_JS)


def _start(page: Page, game: str) -> None:
    """Ada alone at a four-seat table with bots, on the deal of the test's server seed."""
    page.add_init_script(RECORD_ANNOUNCEMENTS_JS)
    start_solo_table(page, "Ada", seats=4, my_seats=[0], game=game)
    expect(page.locator(HAND_CARDS).first).to_be_visible()


def _reach_hand_from_the_top(page: Page) -> None:
    """From the top of the freshly loaded page: Tab to the skip link (the first stop), Enter: a
    card of the hand has focus."""
    page.reload()
    expect(page.locator(HAND_CARDS).first).to_be_visible()
    page.keyboard.press("Tab")
    link = _focus(page)
    assert link["testid"] == "skip-link", link
    assert link["text"] in ("To your hand", "手札へ移動"), link
    page.keyboard.press("Enter")
    assert _focus(page)["card"], _focus(page)


def _arrow_to(page: Page, card: str) -> None:
    """Move the focus along the hand with the arrow keys until `card` has it."""
    hand = page.evaluate(TABLE_JS)["hand"]
    at = hand.index(_focus(page)["card"])
    want = hand.index(card)
    key = "ArrowRight" if want > at else "ArrowLeft"
    for _ in range(abs(want - at)):
        page.keyboard.press(key)
    assert _focus(page)["card"] == card, (_focus(page), card)


def _tab_to(page: Page, selector: str, backwards: bool = False, limit: int = 40) -> None:
    """Press Tab (or Shift+Tab) until the focused element matches `selector`."""
    for _ in range(limit):
        if page.evaluate("(s) => !!document.activeElement && document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Shift+Tab" if backwards else "Tab")
    raise AssertionError(f"{selector} not reached with {limit} Tab presses; focus: {_focus(page)}")


def _wait_my_turn_or_result(page: Page, timeout_s: float = 60) -> dict:
    deadline = time.monotonic() + timeout_s
    while True:
        table = page.evaluate(TABLE_JS)
        if table["result"] or (table["myTurn"] and table["hand"]):
            return table
        assert time.monotonic() < deadline, table
        page.wait_for_timeout(40)


def _finish_with_the_result_dialog(page: Page) -> list[str]:
    """The result dialog has focus, keeps Tab inside, and Escape closes it."""
    expect(page.locator(RESULT)).to_be_visible()
    expect(page.locator(f"{RESULT} button.primary")).to_be_focused()
    for _ in range(4):
        page.keyboard.press("Tab")
        assert _focus(page)["inDialog"], _focus(page)
    page.keyboard.press("Escape")
    expect(page.locator(RESULT)).to_have_count(0)
    return page.evaluate("() => window.__announced")


def test_a_whole_holy_grail_hand_with_the_keyboard_alone_and_its_announcements(
    new_person: NewPerson, artifacts: Path
) -> None:
    page = new_person()
    _start(page, "holy-grail")
    _reach_hand_from_the_top(page)
    plays = 0
    while True:
        table = _wait_my_turn_or_result(page)
        if table["result"]:
            break
        focused = _focus(page)
        # Focus stayed in the hand through the bots' plays (every one a redraw).
        assert focused["card"] in table["hand"], (focused, table)
        _arrow_to(page, table["legal"][0])
        page.keyboard.press("Enter" if plays % 2 else " ")
        expect(page.locator(f"{HAND_CARDS}[data-card='{table['legal'][0]}']")).to_have_count(0)
        plays += 1
        if page.locator(HAND_CARDS).count():
            # The played card left the hand: the focus went to a card near it.
            expect(page.locator(f"{HAND_CARDS}:focus")).to_have_count(1)
    save_picture(page, artifacts / "keyboard-holy-grail-result.png")
    announced = _finish_with_the_result_dialog(page)
    assert plays >= 10, plays
    said = "\n".join(announced)
    assert "Ada played" in said, said
    assert any(f"Bot {n} played" in said for n in (2, 3, 4)), said
    assert "takes the trick" in said, said
    assert "Your turn" in said, said
    assert "Hand 1 result" in said, said
    # One announcement per action: no line is said twice in a row.
    assert all(a != b for a, b in zip(announced, announced[1:], strict=False)), announced
    _no_console_errors(page)


@pytest.mark.deal_seed(YAYA_SEED)
def test_a_whole_yaya_fugou_hand_with_the_keyboard_alone_and_its_announcements(
    new_person: NewPerson, artifacts: Path
) -> None:
    """Lead the weakest single card (select it with Enter, then Tab to Play); when following,
    pass with the action button under the hand, reached with Tab and chosen with the arrow keys."""
    page = new_person(locale="ja-JP")
    _start(page, "yaya-fugou")
    _reach_hand_from_the_top(page)
    moves = {"leads": 0, "passes": 0}
    while True:
        table = _wait_my_turn_or_result(page)
        if table["result"]:
            break
        assert _focus(page)["card"], _focus(page)  # focus came back to the hand after each move
        if table["leading"]:
            card = min(table["legal"], key=lambda c: WEAKEST_FIRST.index(c[1:]))
            _arrow_to(page, card)
            page.keyboard.press("Enter")
            expect(page.locator(f"{HAND_CARDS}.is-selected[data-card='{card}']")).to_have_count(1)
            assert _focus(page)["card"] == card  # the selection's redraw kept the focus
            _tab_to(page, "[data-testid=yf-play]", backwards=True)
            page.keyboard.press("Enter")
            expect(page.locator(f"{HAND_CARDS}[data-card='{card}']")).to_have_count(0)
            moves["leads"] += 1
        else:
            _tab_to(page, ".action-buttons button")
            for _ in range(5):
                if "パス" in _focus(page)["text"]:
                    break
                page.keyboard.press("ArrowRight")
            assert "パス" in _focus(page)["text"], _focus(page)
            page.keyboard.press("Enter")
            moves["passes"] += 1
            page.wait_for_timeout(100)
            if page.evaluate(TABLE_JS)["myTurn"] and not page.locator(RESULT).count():
                page.wait_for_timeout(300)
    save_picture(page, artifacts / "keyboard-yaya-fugou-result.png")
    announced = _finish_with_the_result_dialog(page)
    assert moves["leads"] >= 1, moves
    said = "\n".join(announced)
    assert "Adaが" in said and "を出しました" in said, said
    assert "あなたの番" in said, said
    assert "第1ハンドの結果" in said, said
    _no_console_errors(page)
