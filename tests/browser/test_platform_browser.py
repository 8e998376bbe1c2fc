"""End-to-end through the real server and headless Chromium: people, rooms, the live table,
a whole Get the Holy Grail! hand, history pages, languages and the phone-sized layout."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PHONE, NewPerson, ServerProcess
from tests.browser.pictures import save_picture

pytestmark = pytest.mark.browser

HAND_CARDS = "[data-testid=hand] .card"
LEGAL_CARDS = "[data-testid=hand] .card.is-legal"
RESULT = "[data-testid=hand-result]"

TABLE_FACTS_JS = """() => ({
  hand: [...document.querySelectorAll('[data-testid=hand] .card')].map((e) => e.dataset.card),
  legal: [...document.querySelectorAll('[data-testid=hand] .card.is-legal')].map((e) => e.dataset.card),
  disabled: [...document.querySelectorAll('[data-testid=hand] .card.is-disabled')]
    .map((e) => e.getAttribute('aria-disabled') === 'true'),
  trick: [...document.querySelectorAll('.felt .trick-card')]
    .sort((a, b) => Number(a.dataset.order) - Number(b.dataset.order)).map((e) => e.dataset.card),
  broken: (document.querySelector('[data-testid=hearts-broken]') || {dataset: {}}).dataset.broken,
})"""


def holy_grail_playable(hand: list[str], trick: list[str], hearts_broken: bool) -> set[str]:
    """The cards seed 002 allows ("カードをプレイする条件"): no heart lead before hearts are
    broken unless only hearts are held; follow the led suit, else a major, else anything."""
    if not trick:
        if hearts_broken:
            return set(hand)
        return {card for card in hand if card[0] != "H"} or set(hand)
    led = trick[0][0]
    following = {card for card in hand if card[0] == led}
    if following:
        return following
    return {card for card in hand if card[0] == "M"} or set(hand)


def parse_score(text: str) -> int:
    return int(text.strip().replace("−", "-").replace("+", ""))


def sign_up(page: Page, name: str, path: str = "/") -> None:
    page.goto(path)
    page.get_by_test_id("name-form").locator("input[name=name]").fill(name)
    page.get_by_test_id("name-form").locator("button[type=submit]").click()
    expect(page.get_by_test_id("name-form")).to_have_count(0)


def create_room(
    page: Page,
    game: str,
    seats: int,
    hands: int | None = None,
    preset: str | None = None,
    away_grace: int | None = None,
    turn_timer: int | None = None,
) -> str:
    """Create a room from the landing page (a preset, then explicit choices, the absence grace and
    the turn timer in seconds); returns its invite link."""
    form = page.get_by_test_id("create-room")
    form.get_by_test_id("game-select").select_option(game)
    if preset:
        form.get_by_test_id("preset-select").select_option(preset)
    form.get_by_test_id("seats-select").select_option(str(seats))
    if hands is not None:
        form.locator("input[data-option=hands]").fill(str(hands))
    if away_grace is not None:
        form.get_by_test_id("away-grace").select_option(str(away_grace))
    if turn_timer is not None:
        form.get_by_test_id("turn-timer").select_option(str(turn_timer))
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/r/[^/]+$"))
    invite = page.get_by_test_id("invite-url").input_value()
    assert invite.endswith(page.url.split("/r/")[1])
    return invite


def check_highlighting(page: Page) -> None:
    """The highlighted cards are exactly the legal ones, and every other card is disabled."""
    facts = page.evaluate(TABLE_FACTS_JS)
    if not facts["legal"]:
        return
    expected = holy_grail_playable(facts["hand"], facts["trick"], facts["broken"] == "1")
    assert set(facts["legal"]) == expected, facts
    assert len(facts["disabled"]) == len(facts["hand"]) - len(facts["legal"])
    assert all(facts["disabled"]), "a card that is not legal is marked disabled (a click only explains why)"


def play_until_hand_result(pages: list[Page], timeout_s: float = 150) -> int:
    """Each person clicks a legal card whenever it is their turn, until every page shows the
    hand's result. Returns how many cards the people played."""
    played = 0
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if all(page.locator(RESULT).count() for page in pages):
            return played
        acted = False
        for page in pages:
            if page.locator(RESULT).count() or page.locator(".table-pending").count():
                continue
            legal = page.locator(LEGAL_CARDS)
            if legal.count():
                check_highlighting(page)
                try:
                    legal.first.click(timeout=2000)
                except Exception:  # the table redrew under the click; look again
                    continue
                played += 1
                acted = True
        if not acted:
            pages[0].wait_for_timeout(40)
    raise AssertionError(f"no hand result after {timeout_s} s ({played} cards played)")


def test_two_people_join_by_invite_play_a_holy_grail_hand_with_bots_and_find_it_in_history(
    new_person: NewPerson, artifacts: Path
) -> None:
    alice = new_person()
    bob = new_person()
    sign_up(alice, "Alice")
    invite = create_room(alice, "holy-grail", seats=4, hands=1)
    alice.get_by_test_id("take-0").click()
    expect(alice.locator("[data-seat='0'] .seat-who")).to_contain_text("Alice")

    # Bob opens the invite link on his own device: it says who invites him to what; he picks a
    # name there, then sits down.
    bob.goto(invite)
    invitation = bob.get_by_test_id("invitation")
    expect(invitation).to_contain_text("Alice invites you to play Get the Holy Grail!")
    expect(invitation).to_contain_text("Alice's table: Get the Holy Grail!")
    sign_up(bob, "Bob", path=invite)
    expect(bob.get_by_test_id("seat-list")).to_be_visible()
    bob.get_by_test_id("take-1").click()
    expect(alice.locator("[data-seat='1'] .seat-who")).to_contain_text("Bob")
    expect(bob.get_by_test_id("start")).to_have_count(0)  # only the host starts

    alice.get_by_test_id("fill-bots").click()
    expect(alice.locator(".seat-row.empty")).to_have_count(0)
    save_picture(alice, artifacts / "room-lobby.png", full_page=True)
    alice.get_by_test_id("start").click()

    for page in (alice, bob):
        expect(page.locator(HAND_CARDS)).to_have_count(14)  # 4 players: two rounds of 14 cards
    expect(alice.get_by_test_id("start")).to_have_count(0)  # no start button while the match runs
    # only the host may let a bot play for someone during the match
    expect(alice.get_by_test_id("takeover-1")).to_have_count(1)
    expect(bob.get_by_test_id("takeover-0")).to_have_count(0)
    save_picture(alice, artifacts / "holy-grail-table-desktop.png")

    played = play_until_hand_result([alice, bob])
    assert played == 2 * 28, "each person plays all 28 of their cards (two dealing rounds)"

    for page in (alice, bob):
        dialog = page.locator(RESULT)
        expect(dialog.get_by_test_id("hg-result").locator("tbody tr")).to_have_count(4)
        score_cells = dialog.locator(".hand-score tbody tr").first.locator("td")
        scores = [parse_score(text) for text in score_cells.all_inner_texts()]
        # Seed 002: the hearts total players × base (240 = 4 × 60), so a hand's scores sum to zero,
        # and so they do after ×2, a sign flip, or a shot moon (600 − 3 × 200).
        assert len(scores) == 4 and sum(scores) == 0, scores
        expect(dialog.locator(".final-ranking li")).to_have_count(4)
    save_picture(alice, artifacts / "holy-grail-hand-result.png")

    # After the one-hand match: the host is offered a rematch and the room keeps the scores.
    alice.locator(RESULT).get_by_role("button").click()
    expect(alice.locator(RESULT)).to_have_count(0)
    expect(alice.get_by_test_id("start")).to_have_text("Rematch")
    board = alice.get_by_test_id("room-leaderboard")
    expect(board).to_contain_text("Alice")
    expect(board).to_contain_text("Bob")
    save_picture(alice, artifacts / "room-after-match.png", full_page=True)
    # The finished room keeps the closed result closed, and links the match page and the replay.
    alice.reload()
    expect(alice.get_by_test_id("match-links")).to_be_visible()
    expect(alice.locator(RESULT)).to_have_count(0)
    expect(alice.get_by_test_id("replay-link")).to_have_attribute(
        "href", re.compile(r"^/matches/\d+/replay$")
    )
    alice.get_by_test_id("match-page-link").click()
    alice.wait_for_url(re.compile(r"/matches/\d+$"))
    expect(alice.get_by_test_id("ranking").locator("li")).to_have_count(4)

    bob.goto("/history")
    row = bob.get_by_test_id("history").locator("tbody tr").first
    expect(row).to_be_visible()
    expect(bob.get_by_test_id("leaderboard")).to_contain_text("Alice")  # people Bob has played with
    save_picture(bob, artifacts / "history-page.png", full_page=True)
    row.get_by_role("link", name=re.compile("Details|詳細")).click()
    bob.wait_for_url(re.compile(r"/matches/"))
    expect(bob.get_by_test_id("match-hands").locator("tbody tr")).to_have_count(1)
    expect(bob.get_by_test_id("ranking").locator("li")).to_have_count(4)
    expect(bob.get_by_test_id("ranking")).to_contain_text("Bob")
    bob.get_by_test_id("match-hand-details").locator("summary").click()
    expect(bob.get_by_test_id("hg-result").locator("tbody tr")).to_have_count(4)
    expect(bob.locator(".hg-notes")).to_contain_text("base of 60")  # the stored facts explain the hand
    save_picture(bob, artifacts / "match-page.png", full_page=True)
    assert not alice.console_errors and not bob.console_errors, (alice.console_errors, bob.console_errors)


def test_phone_sized_table_fits_the_screen_and_language_follows_the_browser_then_the_switch(
    new_person: NewPerson, artifacts: Path
) -> None:
    carol = new_person(viewport=PHONE, locale="ja-JP")
    carol.goto("/")
    expect(carol.get_by_test_id("name-form")).to_contain_text("表示名")
    sign_up(carol, "キャロル")
    expect(carol.get_by_test_id("create-room")).to_be_visible()
    save_picture(carol, artifacts / "landing-phone-ja.png", full_page=True)
    create_room(carol, "holy-grail", seats=3, preset="quick")  # the seeded one-hand preset
    expect(carol.locator(".options-box input[data-option=hands]")).to_have_value("1")
    carol.get_by_test_id("take-0").click()
    carol.get_by_test_id("fill-bots").click()
    carol.get_by_test_id("start").click()
    expect(carol.locator(HAND_CARDS)).to_have_count(12)  # 3 players: three rounds of 12 cards
    expect(carol.locator(LEGAL_CARDS).first).to_be_visible(timeout=20_000)
    expect(carol.get_by_test_id("turn")).to_have_text("あなたの番です")
    check_highlighting(carol)
    save_picture(carol, artifacts / "holy-grail-table-phone.png", full_page=True)

    width = carol.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page scrolls sideways at phone size ({width}px)"
    # Read in one go: the table may redraw (a room message) between separate reads.
    boxes = carol.evaluate(
        """() => [...document.querySelectorAll('[data-testid=hand] .card, .felt .seat')]
             .map((e) => { const r = e.getBoundingClientRect(); return [r.left, r.right]; })"""
    )
    assert len(boxes) == 12 + 3, boxes
    assert all(left >= 0 and right <= PHONE["width"] for left, right in boxes), boxes

    carol.locator(LEGAL_CARDS).first.click()
    expect(carol.locator(HAND_CARDS)).to_have_count(11)

    carol.get_by_test_id("lang-switch").click()
    expect(carol.locator(".hand-title")).to_contain_text("Your hand")
    carol.reload()
    expect(carol.locator(".hand-title")).to_contain_text("Your hand")  # the choice is remembered

    carol.goto("/rules/holy-grail")
    expect(carol.locator("article.rules")).to_contain_text("Shooting the moon")
    carol.get_by_test_id("lang-switch").click()
    expect(carol.locator("article.rules")).to_contain_text("独占")
    save_picture(carol, artifacts / "rules-phone-ja.png")
    assert not carol.console_errors, carol.console_errors


def start_solo_table(page: Page, name: str, seats: int, my_seats: list[int], game: str = "holy-grail") -> str:
    """Sign up, create a one-hand room of `game`, sit in `my_seats`, bots elsewhere, start."""
    sign_up(page, name)
    invite = create_room(page, game, seats=seats, hands=1)
    for seat in my_seats:
        page.get_by_test_id(f"take-{seat}").click()
        expect(page.locator(f".seat-row[data-seat='{seat}'] .seat-who")).to_contain_text(name)
    page.get_by_test_id("fill-bots").click()
    expect(page.locator(".seat-row.empty")).to_have_count(0)
    page.get_by_test_id("start").click()
    return invite


def test_one_person_plays_two_seats_from_tabs_while_a_member_without_a_seat_watches(
    new_person: NewPerson, artifacts: Path
) -> None:
    dana = new_person()
    invite = start_solo_table(dana, "Dana", seats=3, my_seats=[0, 1])
    eve = new_person()
    sign_up(eve, "Eve", path=invite)

    expect(dana.locator(".hand-tab")).to_have_count(2)
    played_by_seat = {0: 0, 1: 0}
    while min(played_by_seat.values()) < 3:
        card = dana.locator(LEGAL_CARDS).first
        expect(card).to_be_visible(timeout=20_000)
        # The table shows the hand of the held seat that must act, and its tab is the active one.
        shown = int(dana.get_by_test_id("hand").get_attribute("data-seat") or "-1")
        expect(dana.locator(".felt .seat.to-act")).to_have_attribute("data-seat", str(shown))
        expect(dana.locator(".hand-tab.active")).to_contain_text(str(shown + 1))
        check_highlighting(dana)
        before = dana.locator(HAND_CARDS).count()
        card.click()
        played_by_seat[shown] += 1
        # 36 cards come in three rounds of 12; a played card leaves the hand it was shown in.
        expect(dana.locator(f"[data-testid=hand][data-seat='{shown}'] .card")).not_to_have_count(before)
    save_picture(dana, artifacts / "two-seats.png")

    # Eve is a member without a seat: she sees the table and every seat, but no hand.
    expect(eve.locator(".felt .seat")).to_have_count(3)
    expect(eve.locator(HAND_CARDS)).to_have_count(0)
    expect(eve.locator(".hand-area.spectator")).to_be_visible()
    expect(eve.locator(".member-list")).to_contain_text("Eve")
    save_picture(eve, artifacts / "spectator.png")


def test_the_table_shows_the_lost_connection_and_comes_back_after_a_server_restart(
    new_person: NewPerson, server_process: ServerProcess
) -> None:
    frank = new_person()
    start_solo_table(frank, "Frank", seats=3, my_seats=[0])
    expect(frank.locator(LEGAL_CARDS).first).to_be_visible(timeout=20_000)
    frank.locator(LEGAL_CARDS).first.click()
    expect(frank.locator(HAND_CARDS)).to_have_count(11)

    server_process.stop()
    expect(frank.locator(".table-conn")).to_have_attribute("data-conn", re.compile("closed|connecting"))
    expect(frank.locator(".conn-line")).to_contain_text(re.compile("lost|retrying|Connecting"))

    server_process.start()  # same port and database: the match resumes from its log
    expect(frank.locator(".table-conn")).to_have_attribute("data-conn", "open", timeout=30_000)
    expect(frank.locator(HAND_CARDS)).to_have_count(11)
    expect(frank.locator(LEGAL_CARDS).first).to_be_visible(timeout=20_000)
    frank.locator(LEGAL_CARDS).first.click()
    expect(frank.locator(HAND_CARDS)).to_have_count(10)


def test_a_person_sets_a_password_and_signs_in_on_another_device(new_person: NewPerson) -> None:
    phone = new_person(viewport=PHONE)
    sign_up(phone, "Grace")
    account = phone.get_by_test_id("account").inner_text().strip()
    password_form = phone.get_by_test_id("password-form")
    password_form.locator("input[name=password]").fill("correct horse")
    password_form.locator("button[type=submit]").click()
    expect(password_form).to_contain_text("Password saved.")

    laptop = new_person()
    laptop.goto("/")
    login = laptop.get_by_test_id("login-form")
    login.locator("input[name=account]").fill(account)
    login.locator("input[name=password]").fill("wrong password")
    login.locator("button[type=submit]").click()
    expect(login.locator(".form-status.error")).to_be_visible()
    login.locator("input[name=password]").fill("correct horse")
    login.locator("button[type=submit]").click()
    expect(laptop.locator("h1")).to_have_text("Hello, Grace")
    expect(laptop.get_by_test_id("account")).to_have_text(account)  # the same person, not a new one
