"""Fairy Five Hundred in the browser: one person and three bots play a whole hand through the real
server. The person bids from the bidding table, names a lieutenant card from the picker,
exchanges with the kitty by selecting four cards, plays ten tricks by clicking legal cards, and
reads the hand result that explains the score."""

from __future__ import annotations

import contextlib
import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PHONE, NewPerson
from tests.browser.pictures import save_picture

pytestmark = pytest.mark.browser

HAND_CARDS = "[data-testid=hand] .card"
LEGAL_CARDS = "[data-testid=hand] .card.is-legal"
RESULT = "[data-testid=hand-result]"
SELECTED_CARDS = "[data-testid=hand] .card.is-selected"
NEW_CARDS = "[data-testid=hand] .card.is-new"
CODES_JS = "(cards) => cards.map((c) => c.dataset.card)"
ENABLED_TRICK_BIDS = "[data-testid=f5-bidding] .f5-bid-table button:not([disabled])"
ENABLED_MISERE_BIDS = "[data-testid=f5-bidding] .f5-misere-table button:not([disabled])"


def sign_up(page: Page, name: str) -> None:
    page.goto("/")
    page.get_by_test_id("name-form").locator("input[name=name]").fill(name)
    page.get_by_test_id("name-form").locator("button[type=submit]").click()
    expect(page.get_by_test_id("name-form")).to_have_count(0)


def create_room(page: Page, seats: int, hands: int) -> None:
    form = page.get_by_test_id("create-room")
    form.get_by_test_id("game-select").select_option("fairy-500")
    form.get_by_test_id("seats-select").select_option(str(seats))
    form.locator("input[data-option=hands]").fill(str(hands))
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/r/[^/]+$"))


def phase(page: Page) -> str | None:
    panel = page.locator("[data-testid=f5-panel]")
    return panel.get_attribute("data-phase") if panel.count() else None


def select_exactly(page: Page, cards: list[str]) -> None:
    """Click hand cards until exactly `cards` are selected (a click selects or deselects one)."""
    selected = page.locator(SELECTED_CARDS).evaluate_all(CODES_JS)
    for card in [c for c in selected if c not in cards] + [c for c in cards if c not in selected]:
        page.locator(f"{HAND_CARDS}[data-card='{card}']").click()
    expect(page.locator(SELECTED_CARDS)).to_have_count(len(cards))
    assert sorted(page.locator(SELECTED_CARDS).evaluate_all(CODES_JS)) == sorted(cards)


def open_misere_bids(page: Page) -> None:
    """On a phone the misère bids are folded under a summary: open them, as a person taps it."""
    fold = page.locator("[data-testid=f5-misere]:not([open]) > summary")
    if fold.count():
        fold.click()


def take_one_step(page: Page, seen: dict[str, Any]) -> bool:
    """Do whatever the person's turn asks for; False when it is not their turn."""
    if page.locator(".table-pending").count():
        return False
    current = phase(page)
    if current == "bid" and page.locator("[data-testid=f5-bidding]").count():
        bids = page.locator(ENABLED_TRICK_BIDS)
        if bids.count():
            bids.last.click()  # the dearest trick contract: the bots will not outbid it
            seen["bid"] += 1
        else:  # a bot already bid 10 no-trumps: outbid it with the dearest misère
            open_misere_bids(page)
            page.locator(ENABLED_MISERE_BIDS).last.click()
            seen["misere"] += 1
        return True
    if current == "call" and page.locator("[data-testid=f5-call]").count():
        page.locator("[data-testid=f5-call] .card").first.click()
        seen["call"] += 1
        return True
    if current == "discard" and page.locator("[data-testid=f5-discard]").count():
        expect(page.locator(HAND_CARDS)).to_have_count(14)
        expect(page.get_by_test_id("hand-hint")).to_have_count(0)  # clicks select here; the panel explains
        cards = page.locator(HAND_CARDS).evaluate_all(CODES_JS)
        # The kitty's four cards are marked new in the hand until her next action.
        seen["new"] = page.locator(NEW_CARDS).evaluate_all(CODES_JS)
        # She picks four cards, changes her mind about one, and confirms the four she ends with.
        if "first_pick" not in seen:
            select_exactly(page, cards[:4])
            seen["first_pick"] = cards[:4]
        select_exactly(page, cards[1:5])
        seen["discarded"] = cards[1:5]
        page.get_by_test_id("f5-discard-button").click()
        seen["discard"] += 1
        return True
    legal = page.locator(LEGAL_CARDS)
    if current == "play" and legal.count():
        if seen["play"] == 0:
            seen["hand_at_play"] = page.locator(HAND_CARDS).evaluate_all(CODES_JS)
            seen["new_at_play"] = page.locator(NEW_CARDS).count()
            expect(page.get_by_test_id("f5-contract")).to_be_visible()
            expect(page.get_by_test_id("f5-trump")).to_be_visible()
            expect(page.get_by_test_id("f5-tricks")).to_be_visible()
            expect(page.get_by_test_id("hand-hint")).to_have_text("Click a highlighted card to play it.")
        legal.first.click()
        seen["play"] += 1
        return True
    return False


def test_a_whole_fairy_500_hand_against_bots_with_bidding_naming_exchange_and_result(
    new_person: NewPerson, artifacts: Path
) -> None:
    dana = new_person()
    sign_up(dana, "Dana")
    create_room(dana, seats=4, hands=1)
    dana.get_by_test_id("take-0").click()
    dana.get_by_test_id("fill-bots").click()
    expect(dana.locator(".seat-row.empty")).to_have_count(0)
    dana.get_by_test_id("start").click()
    expect(dana.locator(HAND_CARDS)).to_have_count(10)

    # the bidding table follows the language switch
    # Her bid buttons when she bids first, the auction so far otherwise (or both, once bids were made).
    expect(dana.get_by_test_id("f5-bidding").or_(dana.get_by_test_id("f5-auction")).first).to_be_visible()
    dana.get_by_test_id("lang-switch").click()
    expect(dana.get_by_test_id("f5-auction")).to_contain_text("ビッド")
    dana.get_by_test_id("lang-switch").click()
    expect(dana.get_by_test_id("f5-auction")).to_contain_text("Bidding")

    seen: dict[str, Any] = {"bid": 0, "misere": 0, "call": 0, "discard": 0, "play": 0}
    shot_bidding = shot_call = shot_play = False
    deadline = time.monotonic() + 150
    while not dana.locator(RESULT).count():
        assert time.monotonic() < deadline, f"no hand result in time: {seen}"
        if not shot_bidding and dana.locator("[data-testid=f5-bidding]").count():
            save_picture(dana, artifacts / "fairy-500-bidding.png", full_page=True)
            shot_bidding = True
        if not shot_call and dana.locator("[data-testid=f5-call]").count():
            save_picture(dana, artifacts / "fairy-500-call.png", full_page=True)
            shot_call = True
        if not shot_play and seen["play"] == 3:
            save_picture(dana, artifacts / "fairy-500-play.png", full_page=True)
            shot_play = True
        try:
            acted = take_one_step(dana, seen)
        except Exception:  # the table redrew under the click: look again
            acted = True
        if not acted:
            dana.wait_for_timeout(40)

    result = dana.locator(RESULT)
    table = result.get_by_test_id("f5-result")
    expect(table).to_be_visible()
    expect(table.get_by_test_id("f5-r-contract")).to_contain_text("Dana")
    assert seen["play"] == 10, seen
    score_cells = result.locator(".hand-score tbody tr").first.locator("td")
    scores = [int(text.replace("−", "-").replace("+", "")) for text in score_cells.all_inner_texts()]
    assert len(scores) == 4
    if seen["misere"]:  # the dearest misère is an open hand misère: no naming, no kitty
        assert seen["call"] == 0 and seen["discard"] == 0, seen
    else:
        # Dana declared the dearest trick contract: she named one card (4 players), exchanged
        # with the kitty, and her score is T, or T×1.5 when the named card was her own.
        assert seen["bid"] >= 1 and seen["call"] == 1 and seen["discard"] == 1, seen
        # The kitty's cards were marked new until she acted; the discard was the changed choice.
        assert len(seen["new"]) == 4 and seen["new_at_play"] == 0, seen
        kept, discarded = seen["first_pick"][0], seen["discarded"]
        assert kept in seen["hand_at_play"] and not set(discarded) & set(seen["hand_at_play"]), seen
        tricks_text = table.get_by_test_id("f5-r-tricks").inner_text()
        side_tricks, bid_tricks = (int(n) for n in re.findall(r"\d+", tricks_text)[:2])
        total_text = table.get_by_test_id("f5-r-total").locator("td").inner_text()
        total = int(total_text.replace("−", "-").replace("+", ""))
        made = side_tricks >= bid_tricks
        assert ("made" in tricks_text) == made and (total > 0) == made
        assert scores[0] in (total, total * 3 // 2), (scores, total)
    save_picture(dana, artifacts / "fairy-500-result.png", full_page=True)

    # the rule page, in both languages, includes the table's rulings
    dana.goto("/rules/fairy-500")
    rules = dana.locator("article.rules")
    expect(rules).to_contain_text("Lieutenants")
    expect(rules).to_contain_text("How this table reads the rules")
    dana.get_by_test_id("lang-switch").click()
    dana.reload()
    expect(dana.locator("article.rules")).to_contain_text("副官")
    expect(dana.locator("article.rules")).to_contain_text("このテーブルでの解釈")
    save_picture(dana, artifacts / "fairy-500-rules-ja.png")
    assert not dana.console_errors, dana.console_errors


def test_fairy_500_open_hand_misere_on_a_phone_in_japanese(new_person: NewPerson, artifacts: Path) -> None:
    erin = new_person(viewport=PHONE, locale="ja-JP")
    sign_up(erin, "エリン")
    create_room(erin, seats=3, hands=1)
    erin.get_by_test_id("take-0").click()
    erin.get_by_test_id("fill-bots").click()
    erin.get_by_test_id("start").click()
    expect(erin.locator(HAND_CARDS)).to_have_count(10)
    bidding = erin.get_by_test_id("f5-bidding")
    expect(bidding).to_be_visible(timeout=20_000)  # seat 0 deals, so it speaks last
    expect(bidding).to_contain_text("魔剣")
    expect(bidding).to_contain_text("オープンハンドミゼール")
    save_picture(erin, artifacts / "fairy-500-bidding-phone.png", full_page=True)
    width = erin.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page scrolls sideways at phone size ({width}px)"

    # Erin declares an open hand misère (550 at 3 players, above any trick contract a bot bids
    # before her): no kitty, and her hand is shown face up to everyone once play starts.
    open_misere_bids(erin)
    expect(bidding.get_by_test_id("f5-bid-open_hand_misere")).to_be_visible()
    save_picture(erin, artifacts / "fairy-500-misere-bids-phone.png")
    bidding.get_by_test_id("f5-bid-open_hand_misere").click()
    open_hand = erin.get_by_test_id("f5-open-hand")
    expect(open_hand).to_be_visible(timeout=20_000)
    expect(erin.get_by_test_id("f5-contract")).to_contain_text("オープンハンドミゼール")
    expect(erin.get_by_test_id("f5-panel")).to_contain_text("死札")
    expect(open_hand.locator(".card")).to_have_count(10)
    save_picture(erin, artifacts / "fairy-500-open-misere-phone.png", full_page=True)
    deadline = time.monotonic() + 120
    while not erin.locator(RESULT).count():
        assert time.monotonic() < deadline, "no hand result in time"
        legal = erin.locator(LEGAL_CARDS)
        if legal.count() and not erin.locator(".table-pending").count():
            with contextlib.suppress(Exception):  # the table may redraw under the click
                legal.first.click(timeout=2000)
        else:
            erin.wait_for_timeout(40)
    result = erin.locator(RESULT).get_by_test_id("f5-result")
    expect(result.get_by_test_id("f5-r-contract")).to_contain_text("オープンハンドミゼール")
    taken = int(re.findall(r"\d+", result.get_by_test_id("f5-r-tricks").inner_text())[0])
    # A phone's result lists one row per seat: its name, the hand's score, the total.
    rows = erin.locator(RESULT).locator(".hand-score tbody tr")
    score_texts = [row.locator("td").first.inner_text() for row in rows.all()]
    scores = [int(text.replace("−", "-").replace("+", "")) for text in score_texts]
    # seed 000: a failed misère loses the declared points; the others get 10 per declarer trick
    if taken:
        assert scores == [-550, 10 * taken, 10 * taken], scores
    else:
        assert scores[0] >= 550 and scores[1:] == [0, 0], scores
    save_picture(erin, artifacts / "fairy-500-misere-result-phone.png", full_page=True)
    assert not erin.console_errors, erin.console_errors
