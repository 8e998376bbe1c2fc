"""A whole French Tarot hand in headless Chromium against three bots, through the real server:
bidding buttons, the discard with forbidden cards disabled, legal-card highlighting that matches
the engine's rules, and the hand result that shows the arithmetic."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import create_engine, text

from engine.games.french_tarot.rules import playable_cards
from tests.browser.conftest import PHONE, NewPerson, ServerProcess
from tests.browser.pictures import save_picture
from tests.browser.test_platform_browser import parse_score, start_solo_table
from tests.engine.test_french_tarot_rules import build_deck

pytestmark = pytest.mark.browser

HAND_CARDS = "[data-testid=hand] .card"
LEGAL_CARDS = "[data-testid=hand] .card.is-legal"
RESULT = "[data-testid=hand-result]"
FORBIDDEN_IN_DISCARD = {"SK", "HK", "DK", "CK", "T1", "T21", "EX"}

FACTS_JS = """() => ({
  hand: [...document.querySelectorAll('[data-testid=hand] .card')].map((e) => e.dataset.card),
  legal: [...document.querySelectorAll('[data-testid=hand] .card.is-legal')].map((e) => e.dataset.card),
  trick: [...document.querySelectorAll('.felt .trick-card')]
    .sort((a, b) => Number(a.dataset.order) - Number(b.dataset.order)).map((e) => e.dataset.card),
  phase: (document.querySelector('[data-testid=ft-panel]') || {dataset: {}}).dataset.phase || null,
  hint: (document.querySelector('[data-testid=hand-hint]') || {}).textContent || null,
})"""


def click_first(page: Page, selector: str, text: str | None = None) -> bool:
    locator = page.locator(selector, has_text=text) if text else page.locator(selector)
    if not locator.count():
        return False
    try:
        locator.first.click(timeout=2000)
    except Exception:  # the table redrew under the click; the caller looks again
        return False
    return True


def check_phone_layout(page: Page, artifacts: Path) -> None:
    """At phone size the table with our panel does not scroll sideways."""
    desktop = page.viewport_size
    table = page.get_by_test_id("table")
    page.set_viewport_size(PHONE)
    # The table redraws for the new width on the next frame (later under load): measure that
    # drawing, not the wide one squeezed into the phone.
    expect(table).to_have_attribute("data-drawn-width", str(PHONE["width"]))
    width = page.evaluate("() => document.documentElement.scrollWidth")
    save_picture(page, artifacts / "french-tarot-table-phone.png", full_page=True)
    assert width <= PHONE["width"], f"the page scrolls sideways at phone size ({width}px)"
    if desktop:
        page.set_viewport_size(desktop)
        expect(table).to_have_attribute("data-drawn-width", str(desktop["width"]))


def play_hand(
    page: Page, artifacts: Path, strongest_bid: bool = False, timeout_s: float = 150
) -> dict[str, int]:
    """Act whenever it is our turn until the result dialog shows; returns what we did. We bid the
    weakest contract offered (so the dog and the discard stay in play) or the strongest."""
    done = {"bids": 0, "discards": 0, "plays": 0, "slam_choices": 0, "calls": 0}
    screenshot_taken = False
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if page.locator(RESULT).count():
            return done
        if page.locator(".table-pending").count():
            page.wait_for_timeout(30)
            continue
        bid_buttons = page.locator(".action-button", has_text="Bid")
        if bid_buttons.count():
            try:
                (bid_buttons.last if strongest_bid else bid_buttons.first).click(timeout=2000)
            except Exception:  # the table redrew under the click; look again
                continue
            done["bids"] += 1
            continue
        call_buttons = page.locator(".action-button", has_text="Call")
        if call_buttons.count():
            expect(page.get_by_test_id("ft-contract")).to_be_visible()
            if click_first(page, ".action-button", "Call"):
                done["calls"] += 1
                expect(page.get_by_test_id("ft-called")).to_be_visible()
                save_picture(page, artifacts / "french-tarot-called-5p.png")
            continue
        if click_first(page, ".action-button", "No slam"):
            done["slam_choices"] += 1
            continue
        facts = page.evaluate(FACTS_JS)
        if facts["legal"] and facts["phase"] == "discard":
            expect(page.get_by_test_id("ft-dog")).to_be_visible()
            assert not set(facts["legal"]) & FORBIDDEN_IN_DISCARD, facts
            assert facts["hint"] is None, facts  # a click chooses a card to put aside, not plays
            disabled = page.locator("[data-testid=hand] .card.is-disabled")
            chosen = page.locator("[data-testid=hand] .card.is-selected")
            assert disabled.count() == len(facts["hand"]) - len(facts["legal"]) - chosen.count()
            confirm = page.get_by_test_id("ft-discard-confirm")
            if confirm.is_enabled():
                done["discards"] += chosen.count()  # every chosen card goes at once
                confirm.click()
            else:
                click_first(page, LEGAL_CARDS)
            continue
        if facts["legal"]:
            expected = set(playable_cards(facts["hand"], facts["trick"]))
            assert set(facts["legal"]) == expected, facts
            if facts["phase"] == "play":  # a click plays here, and the hint says so
                assert facts["hint"] == "Click a highlighted card to play it.", facts
            if not screenshot_taken and facts["trick"]:
                save_picture(page, artifacts / "french-tarot-table.png")
                check_phone_layout(page, artifacts)
                screenshot_taken = True
            if click_first(page, LEGAL_CARDS):
                done["plays"] += 1
            continue
        page.wait_for_timeout(40)
    raise AssertionError(f"no hand result after {timeout_s} s: {done}")


def test_a_whole_french_tarot_hand_against_bots_shows_the_scoring_arithmetic(
    new_person: NewPerson, artifacts: Path
) -> None:
    alice = new_person()
    start_solo_table(alice, "Alice", seats=4, my_seats=[0], game="french-tarot")

    expect(alice.locator(HAND_CARDS)).to_have_count(18, timeout=20_000)  # 4 players: 18 cards each
    expect(alice.get_by_test_id("ft-bids")).to_contain_text("Bids")
    alice.get_by_test_id("lang-switch").click()
    expect(alice.get_by_test_id("ft-bids")).to_contain_text("ビッド")
    save_picture(alice, artifacts / "french-tarot-bidding-ja.png")
    alice.get_by_test_id("lang-switch").click()
    expect(alice.get_by_test_id("ft-bids")).to_contain_text("Bids")

    done = play_hand(alice, artifacts)
    assert done["bids"] == 1
    assert done["plays"] == 18
    if done["discards"]:
        assert done["discards"] == 6  # prise or garde won by us: six cards replace the dog

    dialog = alice.locator(RESULT)
    expect(dialog.get_by_test_id("ft-result")).to_be_visible()
    score_cells = dialog.locator(".hand-score tbody tr").first.locator("td").all_inner_texts()
    scores = [parse_score(text) for text in score_cells]
    assert len(scores) == 4 and sum(scores) == 0, scores
    unit = parse_score(dialog.get_by_test_id("ft-r-unit").locator("td").inner_text())
    assert sorted(scores).count(-unit) == 3, (scores, unit)  # each defender pays the unit
    target = int(dialog.get_by_test_id("ft-r-target").locator("td").inner_text())
    assert target in (56, 51, 41, 36)
    save_picture(alice, artifacts / "french-tarot-result.png")
    assert not alice.console_errors, alice.console_errors


def test_five_players_the_taker_calls_a_king_and_the_called_card_is_shown(
    new_person: NewPerson, artifacts: Path
) -> None:
    """Five players: as dealer we speak last, so the strongest bid (garde contre) makes us the taker
    unless a bot bid it first; then we call a card and play the hand out (15 cards each)."""
    bob = new_person()
    start_solo_table(bob, "Bob", seats=5, my_seats=[0], game="french-tarot")
    expect(bob.locator(HAND_CARDS)).to_have_count(15, timeout=20_000)

    done = play_hand(bob, artifacts, strongest_bid=True)
    assert done["plays"] == 15
    if done["bids"]:
        assert done["calls"] == 1 and done["slam_choices"] == 1
    dialog = bob.locator(RESULT)
    expect(dialog.get_by_test_id("ft-shares").locator("tbody tr")).to_have_count(5)
    score_cells = dialog.locator(".hand-score tbody tr").first.locator("td").all_inner_texts()
    assert sum(parse_score(text) for text in score_cells) == 0
    save_picture(bob, artifacts / "french-tarot-result-5p.png")

    bob.goto("/rules/french-tarot")
    expect(bob.locator("article.rules")).to_contain_text("Petit au bout")
    expect(bob.locator("article.rules")).to_contain_text("excuse")
    bob.get_by_test_id("lang-switch").click()
    expect(bob.locator("article.rules")).to_contain_text("プチ・オ・ブ")
    assert not bob.console_errors, bob.console_errors


def expect_hand_holds(page: Page, cards: list[str]) -> None:
    """Wait until the page shows every one of `cards` in the hand: the restarted server's deal has
    arrived. Waiting for one card is not enough when the old deal held it too, and a click made
    before the new state arrives acts on the old one (a bid sent then left the whole new hand
    marked as new cards)."""
    hand = page.locator("[data-testid=hand]")
    for card in cards:
        expect(hand.locator(f".card[data-card='{card}']")).to_have_count(1, timeout=30_000)


def _deal_again(database_url: str, deck: list[str]) -> None:
    """With the server stopped: make the only match's first shuffle `deck` and drop what followed,
    so the restarted server replays the match from that deal."""
    engine = create_engine(database_url)
    try:
        with engine.begin() as conn:
            ((match_id, first),) = conn.execute(
                text("SELECT match_id, action FROM match_actions WHERE seq = 0")
            ).all()
            assert first["type"] == "shuffle"
            conn.execute(
                text("UPDATE match_actions SET action = CAST(:a AS jsonb) WHERE match_id = :m AND seq = 0"),
                {"a": json.dumps({"type": "shuffle", "deck": deck}), "m": match_id},
            )
            conn.execute(text("DELETE FROM match_actions WHERE match_id = :m AND seq > 0"), {"m": match_id})
            conn.execute(text("UPDATE matches SET version = 1 WHERE id = :m"), {"m": match_id})
    finally:
        engine.dispose()


def test_a_player_chooses_which_trumps_a_poignee_shows(
    new_person: NewPerson, server_process: ServerProcess, database_url: str, artifacts: Path
) -> None:
    """Eleven trumps at four players: a simple poignée shows ten, and the player picks which. The
    panel starts from the ten lowest; we show the 21 instead of the 20, and everyone sees it."""
    paul = new_person()
    start_solo_table(paul, "Paul", seats=4, my_seats=[0], game="french-tarot")
    expect(paul.locator(HAND_CARDS)).to_have_count(18, timeout=20_000)

    server_process.stop()
    trumps = [f"T{n}" for n in range(11, 22)]
    _deal_again(database_url, build_deck(4, {0: trumps}, void={0: "E"}))
    server_process.start()
    expect_hand_holds(paul, trumps)

    # Speak (the strongest bid left, so that nobody passes the deal away), then wait for our first card.
    deadline = time.monotonic() + 60
    while not paul.get_by_test_id("ft-poignee-choice").count():
        assert time.monotonic() < deadline, "no poignée offer at our first card"
        bids = paul.locator(".action-button", has_text="Bid")
        if bids.count():
            click_first(paul, ".action-button:has-text('Bid') >> nth=-1")
        elif not click_first(paul, ".action-button", "No slam"):
            paul.wait_for_timeout(40)

    choice = paul.get_by_test_id("ft-poignee-choice")
    choice.get_by_test_id("ft-poignee-pick-simple").click()
    selected = paul.locator("[data-testid=hand] .card.is-selected")
    expect(selected).to_have_count(10)
    expect(paul.get_by_test_id("hand-hint")).to_have_text(
        "Click trumps to choose which to show, then declare."
    )
    expect(choice.get_by_test_id("ft-poignee-declare")).to_be_enabled()
    paul.locator("[data-testid=hand] .card[data-card='T20']").click()
    expect(selected).to_have_count(9)
    expect(choice.get_by_test_id("ft-poignee-count")).to_contain_text("9 of 10")
    expect(choice.get_by_test_id("ft-poignee-declare")).to_be_disabled()
    plain = paul.locator("[data-testid=hand] .card.is-disabled").first
    expect(plain).to_be_visible()  # plain cards cannot be shown in a poignée
    paul.locator("[data-testid=hand] .card[data-card='T21']").click()
    expect(selected).to_have_count(10)
    save_picture(paul, artifacts / "french-tarot-poignee-choice.png")
    choice.get_by_test_id("ft-poignee-declare").click()

    shown = paul.get_by_test_id("ft-poignee")
    expect(shown).to_contain_text("Paul")
    expect(shown.locator(".card[data-card='T21']")).to_have_count(1)
    expect(shown.locator(".card[data-card='T20']")).to_have_count(0)
    expect(paul.get_by_test_id("ft-poignee-choice")).to_have_count(0)
    expect(paul.get_by_test_id("hand-hint")).to_have_text("Click a highlighted card to play it.")
    # Only the reconnection attempts while the server was down may have logged errors.
    errors = [e for e in paul.console_errors if "ERR_CONNECTION_REFUSED" not in e]
    assert not errors, errors


def test_the_taker_chooses_the_discard_changes_it_and_confirms(
    new_person: NewPerson, server_process: ServerProcess, database_url: str, artifacts: Path
) -> None:
    """Prise with the dog on a seeded deal: the taker picks six cards, changes one, and only the
    confirm button puts them aside, all six at once."""
    paul = new_person(viewport={"width": 1280, "height": 800})
    start_solo_table(paul, "Paul", seats=4, my_seats=[0], game="french-tarot")
    expect(paul.locator(HAND_CARDS)).to_have_count(18, timeout=20_000)
    server_process.stop()
    # The kings, the oudlers and the high trumps with us, low trumps in the dog: the bots hold
    # plain cards only and pass; we take the dog and, having no plain card, put trumps aside.
    strong = ["T1", *(f"T{n}" for n in range(10, 22)), "EX", "SK", "HK", "DK", "CK"]
    _deal_again(database_url, build_deck(4, {0: strong}, dog=[f"T{n}" for n in range(2, 8)]))
    server_process.start()
    expect_hand_holds(paul, strong)

    # We take the weakest contract offered that keeps the dog, until the discard is ours.
    deadline = time.monotonic() + 60
    while not paul.get_by_test_id("ft-discard-choice").count():
        if time.monotonic() > deadline:
            save_picture(paul, artifacts / "french-tarot-discard-missing.png")
        assert time.monotonic() < deadline, "the discard never came to us"
        if not any(click_first(paul, ".action-button", label) for label in ("Prise", "Garde ×2", "No slam")):
            paul.wait_for_timeout(50)
    choice = paul.get_by_test_id("ft-discard-choice")
    confirm = choice.get_by_test_id("ft-discard-confirm")
    expect(choice.get_by_test_id("ft-discard-help")).to_contain_text("(0 of 6 chosen)")
    expect(confirm).to_be_disabled()
    # The dog's cards are marked as new in the hand until we act.
    new = paul.locator("[data-testid=hand] .card[data-new=true]")
    expect(new).to_have_count(6)
    assert set(new.evaluate_all("(cards) => cards.map((c) => c.dataset.card)")) == {
        f"T{n}" for n in range(2, 8)
    }
    legal = paul.locator(LEGAL_CARDS).evaluate_all("(cards) => cards.map((c) => c.dataset.card)")
    assert len(legal) >= 7 and not set(legal) & FORBIDDEN_IN_DISCARD, legal
    for card in legal[:6]:
        paul.locator(f"[data-testid=hand] .card[data-card='{card}']").click()
    selected = paul.locator("[data-testid=hand] .card.is-selected")
    expect(selected).to_have_count(6)
    expect(confirm).to_be_enabled()
    # Changing our mind: one card back into the hand, another one instead. Nothing is sent yet.
    paul.locator(f"[data-testid=hand] .card[data-card='{legal[2]}']").click()
    expect(selected).to_have_count(5)
    expect(confirm).to_be_disabled()
    paul.locator(f"[data-testid=hand] .card[data-card='{legal[6]}']").click()
    expect(selected).to_have_count(6)
    expect(choice.get_by_test_id("ft-discard-help")).to_contain_text("(6 of 6 chosen)")
    expect(paul.locator(HAND_CARDS)).to_have_count(24)
    save_picture(paul, artifacts / "french-tarot-discard-choice.png")
    chosen = [*legal[:2], *legal[3:7]]
    confirm.click()

    discard = paul.locator(".ft-discard")
    for card in chosen:
        expect(discard.locator(f".card[data-card='{card}']")).to_have_count(1, timeout=20_000)
    expect(discard.locator(".card")).to_have_count(6)
    expect(new).to_have_count(0)
    expect(paul.locator(HAND_CARDS)).to_have_count(18)
    expect(paul.locator(f"[data-testid=hand] .card[data-card='{legal[2]}']")).to_have_count(1)
    errors = [e for e in paul.console_errors if "ERR_CONNECTION_REFUSED" not in e]
    assert not errors, errors
