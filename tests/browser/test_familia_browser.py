"""A whole Familia hand in headless Chromium through the real server: one person plays the
two-player game (both seats of a man/woman pair, seats 1 and 3) against a pair of bots. It turns
face cards from the pile of its choice, plays only highlighted (legal) cards, sees the face card
at stake, the face-up draw pile, each trick's judging and the switch to trumps, switches the
panel to Japanese and back, and ends on the result table with roles, bonuses and ranking."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import DESKTOP, PHONE, NewPerson
from tests.browser.layout import BOX_JS
from tests.browser.pictures import save_picture
from tests.browser.test_platform_browser import create_room, parse_score, sign_up

pytestmark = pytest.mark.browser

HAND_CARDS = "[data-testid=hand] .card"
LEGAL_CARDS = "[data-testid=hand] .card.is-legal"
RESULT = "[data-testid=hand-result]"

FACTS_JS = """() => ({
  legal: [...document.querySelectorAll('[data-testid=hand] .card.is-legal')].map((e) => e.dataset.card),
  hand: [...document.querySelectorAll('[data-testid=hand] .card')].map((e) => e.dataset.card),
  choose: [...document.querySelectorAll('[data-testid^=familia-choose-]')].map((e) => e.dataset.testid),
  stake: (document.querySelector('[data-testid=familia-stake] .card') || {dataset: {}}).dataset.card || null,
  mode: (document.querySelector('[data-testid=familia-mode]') || {}).textContent || "",
  judged: !!document.querySelector('[data-testid=familia-judging]'),
  pending: !!document.querySelector('.table-pending'),
})"""


def _click(page: Page, selector: str) -> bool:
    locator = page.locator(selector)
    if not locator.count():
        return False
    try:
        locator.first.click(timeout=2000)
    except Exception:  # the table redrew under the click; the caller looks again
        return False
    return True


def play_hand(
    page: Page, artifacts: Path, timeout_s: float = 180, trump_text: str = "Draw pile gone", tag: str = ""
) -> dict[str, int]:
    """Act whenever one of our seats is to act, until the hand's result is shown."""
    done = {"turned": 0, "played": 0, "judged": 0, "trump_seen": 0, "legal_checked": 0}
    shots = set()
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if page.locator(RESULT).count():
            return done
        facts = page.evaluate(FACTS_JS)
        if facts["pending"]:
            page.wait_for_timeout(30)
            continue
        if facts["judged"]:
            done["judged"] = 1
        if trump_text in facts["mode"]:
            done["trump_seen"] = 1
            if "trump" not in shots and facts["stake"]:
                save_picture(page, artifacts / f"familia-trump{tag}.png", full_page=True)
                shots.add("trump")
        if facts["choose"]:
            pile = "black" if done["turned"] % 2 == 0 else "red"
            wanted = f"familia-choose-{pile}"
            target = wanted if wanted in facts["choose"] else facts["choose"][0]
            if _click(page, f"[data-testid={target}]"):
                done["turned"] += 1
            continue
        if facts["legal"]:
            if "table" not in shots and facts["stake"]:
                save_picture(page, artifacts / f"familia-table{tag}.png", full_page=True)
                shots.add("table")
            # a card that is not highlighted is marked disabled, and a click on it says why
            disabled = page.locator("[data-testid=hand] .card.is-disabled")
            if disabled.count() and not done["legal_checked"]:
                assert disabled.first.get_attribute("aria-disabled") == "true"
                disabled.first.click(force=True)  # aria-disabled: a person can still click it
                expect(page.get_by_test_id("table-notice")).to_be_visible()
                done["legal_checked"] += 1
            if _click(page, LEGAL_CARDS):
                done["played"] += 1
            continue
        page.wait_for_timeout(40)
    raise AssertionError(f"the hand did not finish in {timeout_s} s: {done}")


def test_two_player_familia_hand_holding_a_pair_against_bots(new_person: NewPerson, artifacts: Path) -> None:
    alice = new_person()
    sign_up(alice, "Alice")
    create_room(alice, "familia", seats=4, hands=1)
    alice.get_by_test_id("take-0").click()
    expect(alice.locator("[data-seat='0'] .seat-who")).to_contain_text("Alice")
    alice.get_by_test_id("take-2").click()
    expect(alice.locator("[data-seat='2'] .seat-who")).to_contain_text("Alice")
    alice.get_by_test_id("fill-bots").click()
    expect(alice.locator(".seat-row.empty")).to_have_count(0)
    alice.get_by_test_id("start").click()

    # seat 1 starts the first trick: the pile choice is offered with both piles (6 cards each)
    expect(alice.get_by_test_id("familia-choose-black")).to_be_visible(timeout=20_000)
    expect(alice.get_by_test_id("familia-pile-black")).to_contain_text("6 left")
    expect(alice.get_by_test_id("familia-pile-red")).to_contain_text("6 left")
    expect(alice.get_by_test_id("familia-draw-pile")).to_contain_text("16 cards")
    expect(alice.locator(HAND_CARDS)).to_have_count(6)
    expect(alice.locator(".hand-tab")).to_have_count(2)
    expect(alice.get_by_test_id("familia-badge-0")).to_contain_text("man")
    expect(alice.get_by_test_id("familia-badge-2")).to_contain_text("woman")
    expect(alice.get_by_test_id("familia-badge-2")).to_contain_text("team A")

    alice.get_by_test_id("lang-switch").click()
    expect(alice.get_by_test_id("familia-pile-black")).to_contain_text("黒の絵札")
    expect(alice.get_by_test_id("familia-badge-2")).to_contain_text("女性役")
    save_picture(alice, artifacts / "familia-table-ja.png", full_page=True)
    alice.get_by_test_id("lang-switch").click()
    expect(alice.get_by_test_id("familia-pile-black")).to_contain_text("Black pile")

    # on a phone the pile choice still fits the screen width
    alice.set_viewport_size(PHONE)
    # the table redraws for the new width: wait for that drawing, then measure in one step
    expect(alice.get_by_test_id("table")).to_have_attribute("data-drawn-width", str(PHONE["width"]))
    expect(alice.get_by_test_id("familia-choose-black")).to_be_visible()
    button = alice.evaluate(BOX_JS, "[data-testid=familia-choose-black]")
    assert button["left"] >= 0 and button["right"] <= PHONE["width"], button
    save_picture(alice, artifacts / "familia-table-phone.png", full_page=True)
    alice.set_viewport_size(DESKTOP)

    done = play_hand(alice, artifacts)
    assert done["turned"] >= 1 and done["played"] >= 10, done  # 2 seats x 10 tricks, a few turns
    assert done["judged"] and done["trump_seen"], done
    assert done["legal_checked"] >= 1, done

    dialog = alice.locator(RESULT)
    expect(dialog.get_by_test_id("familia-result").locator("tbody tr")).to_have_count(4)
    expect(dialog.get_by_test_id("familia-ranking").locator("tbody tr")).to_have_count(2)
    scores = [
        parse_score(text)
        for text in dialog.locator(".hand-score tbody tr").first.locator("td").all_inner_texts()
    ]
    assert scores[0] == scores[2] and scores[1] == scores[3], "partners share their team's total"
    save_picture(alice, artifacts / "familia-result.png", full_page=True)
    dialog.locator("button.primary").first.click()
    expect(alice.get_by_test_id("familia-standings").locator("li")).to_have_count(4)
    assert not alice.console_errors, alice.console_errors

    # the rule page, in the client, in both languages
    alice.goto("/rules/familia")
    expect(alice.locator("main")).to_contain_text("Batting Familia")
    expect(alice.locator("main")).to_contain_text("zero-sum", ignore_case=True)


def test_three_seat_hand_in_japanese_with_crests_pile_jokers_and_batting_familia(
    new_person: NewPerson, artifacts: Path
) -> None:
    kenji = new_person(locale="ja-JP")
    sign_up(kenji, "Kenji")
    options = {"hands": 1, "royal": True, "pile_jokers": 2, "batting_familia": True}
    answer = kenji.request.post("/api/rooms", data={"game_id": "familia", "seats": 3, "options": options})
    assert answer.ok, answer.text()
    kenji.goto(f"/r/{answer.json()['code']}")
    kenji.get_by_test_id("take-0").click()
    kenji.get_by_test_id("fill-bots").click()
    expect(kenji.locator(".seat-row.empty")).to_have_count(0)
    kenji.get_by_test_id("start").click()

    # royal option: before the deal each player (individual play) picks a crest suit
    expect(kenji.get_by_test_id("familia-crest")).to_contain_text("家紋", timeout=20_000)
    kenji.get_by_test_id("familia-crest-H").click()
    expect(kenji.get_by_test_id("familia-badge-0")).to_contain_text("家紋 ♥")
    # 12 face cards and 2 jokers: 7 in each pile; batting Familia with one deck bats on rank
    # (a box with a button when Kenji turns the face card, a line of counts otherwise)
    piles = kenji.get_by_test_id("familia-pile-black").or_(kenji.get_by_test_id("familia-piles"))
    expect(piles).to_contain_text("残り7枚", timeout=20_000)  # after every bot chose its crest
    expect(kenji.get_by_test_id("familia-mode").locator("xpath=..")).to_contain_text("同じランク")
    expect(kenji.get_by_test_id("familia-mode").locator("xpath=..")).to_contain_text(
        "バッティング・ファミリア"
    )

    done = play_hand(kenji, artifacts, trump_text="山札なし", tag="-ja")
    assert done["played"] >= 12 and done["judged"] and done["trump_seen"], done  # 12 tricks, 36 cards

    dialog = kenji.locator(RESULT)
    expect(dialog.get_by_test_id("familia-result").locator("tbody tr")).to_have_count(3)
    expect(dialog.get_by_test_id("familia-ranking").locator("tbody tr")).to_have_count(3)
    expect(dialog.get_by_test_id("familia-result")).to_contain_text("男性役")
    save_picture(kenji, artifacts / "familia-result-ja.png", full_page=True)
    assert not kenji.console_errors, kenji.console_errors
