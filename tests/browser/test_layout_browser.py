"""The table on one screen: for every game, one person plays a first hand (a seeded deal) against
bots at 1280×800 and at 390×844, and at each of their decisions the hand, the turn line and every
enabled control are in view with nothing overlapping, no sideways scrolling and, on the phone,
every control big enough to tap (tests/browser/layout.py), and axe-core finds no accessibility
violation (tests/browser/accessibility.py); then the same for the hand-result dialog, the history
page and the match page."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from engine import get_game
from engine.games.yaya_fugou.deals import deck_order
from tests.browser import test_yaya_fugou_browser as yaya
from tests.browser.accessibility import check_accessibility
from tests.browser.conftest import NewPerson, ServerProcess
from tests.browser.layout import TABLE_REQUIRED, check_screen
from tests.browser.pictures import save_picture
from tests.browser.seeding import rewrite_log
from tests.browser.test_fairy_500_browser import take_one_step as fairy_step
from tests.browser.test_platform_browser import start_solo_table

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
LEGAL_CARDS = "[data-testid=hand] .card.is-legal"
RESULT = "[data-testid=hand-result]"
MY_TURN = "[data-testid=turn].my-turn"
CHAT_INPUT = "[data-testid=chat] .chat-form input"


def _click(page: Page, selector: str, text: str | None = None) -> bool:
    locator = page.locator(selector, has_text=text) if text else page.locator(selector)
    if not locator.count():
        return False
    try:
        # a card of a fanned hand shows only its left strip: click there, as a person does
        position = {"x": 6, "y": 24} if ".card" in selector else None
        locator.first.click(timeout=2000, position=position)
    except Exception:  # the table redrew under the click; the caller looks again
        return False
    return True


def _decision_screen(page: Page) -> dict:
    """Whose turn, the phase, the hand size and the table's version, read in one page step."""
    return page.evaluate(
        """() => {
          const panel = document.querySelector("[data-phase]");
          return {
            myTurn: !!document.querySelector("[data-testid=turn].my-turn")
              && !document.querySelector(".table-pending"),
            phase: (panel && panel.getAttribute("data-phase")) || "play",
            cards: document.querySelectorAll("[data-testid=hand] .card").length,
            html: (document.querySelector("[data-testid=table]") || document.body).innerHTML.length,
          };
        }"""
    )


def _phase(page: Page) -> str:
    panel = page.locator("[data-phase]").first
    return (panel.get_attribute("data-phase") if panel.count() else None) or "play"


def holy_grail_step(page: Page, seen: dict[str, int]) -> bool:
    return _click(page, LEGAL_CARDS)


def french_tarot_step(page: Page, seen: dict[str, int]) -> bool:
    for text in ("Bid", "Call", "No slam"):
        if page.locator(".action-button", has_text=text).count():
            return _click(page, ".action-button", text)
    # The discard is chosen card by card, then confirmed at once.
    if _click(page, "[data-testid=ft-discard-confirm]:not([disabled])"):
        return True
    if _click(page, LEGAL_CARDS):
        return True
    return _click(page, ".action-button")


def fairy_500_step(page: Page, seen: dict[str, int]) -> bool:
    counts = seen.setdefault("f5", {"bid": 0, "misere": 0, "call": 0, "discard": 0, "play": 0})
    try:
        return fairy_step(page, counts)
    except Exception:  # the table redrew under the click: look again
        return True


def yaya_fugou_step(page: Page, seen: dict[str, int]) -> bool:
    facts = page.evaluate(yaya.FACTS_JS)
    counters = [
        "leads",
        "follows",
        "passes",
        "sets",
        "f_named",
        "illegal_seen",
        "gives",
        "forced_preselected",
    ]
    done = seen.setdefault("yf", dict.fromkeys(counters, 0))
    try:
        if facts["exchange"] and (facts["legal"] or facts["give"]):
            yaya._exchange(page, facts, done)
        elif facts["controls"]:
            (yaya._lead if facts["leading"] else yaya._follow)(page, facts, done)
        else:
            return False
    except Exception:  # a bot moved between reading and clicking
        return True
    return True


def familia_step(page: Page, seen: dict[str, int]) -> bool:
    if page.locator("[data-testid^=familia-choose-]").count():
        return _click(page, "[data-testid^=familia-choose-]")
    if page.locator("[data-testid^=familia-crest-]").count():
        return _click(page, "[data-testid^=familia-crest-]")
    return _click(page, LEGAL_CARDS) or _click(page, ".action-button")


GAMES: dict[str, tuple[int, Callable[[Page, dict], bool]]] = {
    "holy-grail": (4, holy_grail_step),
    "yaya-fugou": (4, yaya_fugou_step),
    "fairy-500": (4, fairy_500_step),
    "french-tarot": (4, french_tarot_step),
    "familia": (4, familia_step),
}


# The deal every layout check plays (the server's CARDTABLE_DEAL_SEED, so a failure can be
# looked at again).
DEAL_SEED = 22


@pytest.mark.deal_seed(DEAL_SEED)
@pytest.mark.parametrize("size", ["laptop", "phone"])
@pytest.mark.parametrize("game", list(GAMES))
def test_every_decision_of_a_first_hand_fits_one_screen(
    new_person: NewPerson, artifacts: Path, game: str, size: str
) -> None:
    seats, _ = GAMES[game]
    page = new_person(viewport=LAPTOP if size == "laptop" else PHONE)
    play_first_hand_checking_every_screen(page, artifacts, game, seats, size)


@pytest.mark.deal_seed(DEAL_SEED)
@pytest.mark.parametrize(("game", "seats"), [("french-tarot", 3), ("holy-grail", 8)])
def test_the_longest_hand_and_a_crowded_felt_fit_a_phone(
    new_person: NewPerson, artifacts: Path, game: str, seats: int
) -> None:
    """French Tarot for three deals 24 cards a hand (30 while discarding); eight seats crowd
    the felt's ring and trick area."""
    page = new_person(viewport=PHONE)
    play_first_hand_checking_every_screen(page, artifacts, game, seats, f"phone-{seats}")


# Four six-card straights, each beating the one before (the first starts a revolution, the
# second ends it), so that every seat's play on the felt is a long fan.
LONG_PLAYS = {
    0: ["S8", "S9", "S10", "SJ", "SC", "SQ"],
    1: ["C3", "C4", "C5", "C6", "C7", "C8"],
    2: ["H4", "H5", "H6", "H7", "H8", "H9"],
    3: ["D5", "D6", "D7", "D8", "D9", "D10"],
}


def _yaya_log_with_long_plays() -> list[tuple[int, dict]]:
    """The log of a four-seat Yaya Fugou hand where every seat has played six cards in turn and
    seat 0 is to act again: built and checked through the engine, so it replays as written."""
    hands = {seat: list(cards) for seat, cards in LONG_PLAYS.items()}
    hands[0].insert(0, "D3")  # the coins 3: seat 0 leads
    match = get_game("yaya-fugou").new_match(4)
    log: list[tuple[int, dict]] = [(-1, {"type": "shuffle", "deck": deck_order(4, hands)})]
    match.apply(*log[0])
    for seat in range(4):
        (action,) = [
            a
            for a in match.legal_actions(seat)
            if a["type"] == "play" and sorted(a["cards"]) == sorted(LONG_PLAYS[seat])
        ]
        match.apply(seat, action)
        log.append((seat, action))
    assert match.to_act() == [0]
    return log


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_four_long_plays_on_the_felt_with_the_yaya_panel_open_fit_one_screen(
    new_person: NewPerson, server_process: ServerProcess, database_url: str, artifacts: Path, size: str
) -> None:
    """The worst case of the trick area: every seat's latest play is six cards while Yaya
    Fugou's panel takes its share of the screen. Each card keeps a readable strip and no play
    meets another, on a laptop and on a phone."""
    page = new_person(viewport=LAPTOP if size == "laptop" else PHONE)
    start_solo_table(page, "Ada", seats=4, my_seats=[0], game="yaya-fugou")
    expect(page.locator("[data-testid=hand] .card").first).to_be_visible()
    server_process.stop()
    rewrite_log(database_url, _yaya_log_with_long_plays())
    server_process.start()
    expect(page.locator(".felt .trick-play")).to_have_count(4, timeout=30_000)
    expect(page.locator(".felt .trick-card")).to_have_count(24)
    expect(page.get_by_test_id("yf-panel")).to_be_visible()
    expect(page.locator(MY_TURN)).to_be_visible()
    check_screen(page, artifacts, f"layout-yaya-fugou-{size}-long-plays")
    errors = [e for e in page.console_errors if "ERR_CONNECTION_REFUSED" not in e]
    assert not errors, errors


def play_first_hand_checking_every_screen(
    page: Page, artifacts: Path, game: str, seats: int, size: str
) -> None:
    """Play the first hand of a seeded deal, checking each decision's screen (layout and axe),
    then the result, history and match pages."""
    _, step = GAMES[game]
    start_solo_table(page, "Ada", seats=seats, my_seats=[0], game=game)
    expect(page.locator("[data-testid=hand] .card").first).to_be_visible()

    # A laptop shows the chat beside the table: its input stays in view in every phase.
    laptop = (page.viewport_size or {}).get("width", 0) >= 900
    required = TABLE_REQUIRED + ((CHAT_INPUT,) if laptop else ())
    seen: dict = {"decisions": 0}
    checked: set[str] = set()
    audited: set[str] = set()  # axe once per phase: the markup differs by phase, not by hand size
    deadline = time.monotonic() + 150
    while not page.locator(RESULT).count():
        assert time.monotonic() < deadline, f"no hand result in time: {seen}"
        if not page.locator(MY_TURN).count() or page.locator(".table-pending").count():
            page.wait_for_timeout(30)
            continue
        before = _decision_screen(page)
        key = f"{before['phase']}-{before['cards']}"
        if before["myTurn"] and before["cards"] and key not in checked:  # once per phase and hand size
            checked.add(key)
            try:
                shot = f"layout-{game}-{size}-{seen['decisions']:02d}-{before['phase']}"
                check_screen(page, artifacts, shot, required=required)
                if before["phase"] not in audited:
                    check_accessibility(page, shot)
                    audited.add(before["phase"])
            except AssertionError:
                # Judged only if it is still the same decision: bots may have moved the table on
                # (even to the end of the match) between reading the screen and measuring it.
                if _decision_screen(page) == before:
                    raise
                # Else look again before acting: a decision is never taken unchecked because its
                # first look was disturbed.
                checked.discard(key)
                continue
        if "readme" not in seen and _phase(page) == "play" and page.locator(".felt .trick-card").count() >= 2:
            # a mid-hand table for the README (docs/screenshots/ holds optimised copies)
            page.mouse.move(0, 0)
            save_picture(page, artifacts / f"readme-{game}-{size}.png")
            seen["readme"] = 1
        if step(page, seen):
            seen["decisions"] += 1
        else:
            page.wait_for_timeout(30)
    assert seen["decisions"] >= 3, seen

    expect(page.locator(RESULT)).to_be_visible()
    check_screen(page, artifacts, f"layout-{game}-{size}-result", required=(f"{RESULT} button.primary",))
    check_accessibility(page, f"layout-{game}-{size}-result")
    page.locator(RESULT).locator("button.primary").first.click()

    page.goto("/history")
    expect(page.get_by_test_id("history")).to_be_visible()
    shot = f"layout-{game}-{size}"
    check_screen(
        page, artifacts, f"{shot}-history", scope="main", required=("[data-testid=history]",), vertical=False
    )
    check_accessibility(page, f"{shot}-history")
    page.get_by_test_id("history").locator('a[href^="/matches/"]').first.click()
    expect(page.get_by_test_id("match-hands")).to_be_visible()
    check_screen(
        page,
        artifacts,
        f"{shot}-match",
        scope="main",
        required=("[data-testid=match-hands]",),
        vertical=False,
    )
    check_accessibility(page, f"{shot}-match")
    errors = page.console_errors
    assert not errors, errors
