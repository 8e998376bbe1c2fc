"""Friends at the table, round two: nobody stalls the table and everyone sees what happened.

- Leaving a seat during a match asks first; then a bot plays the seat at once, the table says
  so, and the host sees on the table itself how the seat can go to someone.
- The hand's result never hides the person's own running turn clock.
- A take-back is shown to the others (a notice, and the card going back), and the play log reads
  as the table stands after it.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.accessibility import check_accessibility
from tests.browser.conftest import PHONE, NewPerson
from tests.browser.layout import check_screen
from tests.browser.pictures import save_picture
from tests.browser.test_platform_browser import create_room, sign_up

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1280, "height": 800}
SIZES = [pytest.param(LAPTOP, id="laptop"), pytest.param(PHONE, id="phone")]
LEGAL = "[data-testid=hand] .card.is-legal"
MY_TURN = "[data-testid=turn].my-turn"
RESULT_DIALOG = "[data-testid=hand-result]"


def size_name(viewport: dict[str, int]) -> str:
    return "phone" if viewport["width"] < 700 else "laptop"


def my_turn(page: Page) -> bool:
    return page.locator(MY_TURN).count() > 0 and page.locator(".table-pending").count() == 0


def play_one(page: Page) -> bool:
    """Click a legal card if it is this page's turn; True when a card was clicked."""
    if not my_turn(page) or page.locator("[data-testid=hand-result]").count():
        return False
    try:
        page.locator(LEGAL).first.click(timeout=1500)
    except Exception:  # redrawn under the click (the table moved on): look again later
        return False
    return True


def on_felt(card: str) -> str:
    """The card on the felt, in the trick under way or the one just finished."""
    return f".felt .trick-card[data-card='{card}'], .felt .done-trick-card[data-card='{card}']"


def seat_cards(page: Page, seat: int) -> int:
    text = page.locator(f".felt .seat[data-seat='{seat}'] .seat-count").inner_text()
    return int(re.sub(r"\D", "", text))


def two_friends_at_a_table(
    new_person: NewPerson, viewport: dict[str, int], game: str = "holy-grail", seats: int = 3, hands: int = 1
) -> tuple[Page, Page]:
    """Hana (the host, seat 0) and Alice (seat 1), bots in the other seats, the match started."""
    hana = new_person(viewport=viewport)
    alice = new_person(viewport=viewport)
    sign_up(hana, "Hana")
    invite = create_room(hana, game, seats=seats, hands=hands)
    hana.get_by_test_id("take-0").click()
    sign_up(alice, "Alice", path=invite)
    alice.get_by_test_id("take-1").click()
    expect(hana.locator(".seat-row[data-seat='1'] .seat-who")).to_contain_text("Alice")
    hana.get_by_test_id("fill-bots").click()
    expect(hana.locator(".seat-row.empty")).to_have_count(0)
    hana.get_by_test_id("start").click()
    for page in (hana, alice):
        expect(page.locator("[data-testid=hand] .card").first).to_be_visible()
    return hana, alice


@pytest.mark.parametrize("viewport", SIZES)
def test_leaving_mid_match_asks_first_then_a_bot_plays_the_seat_at_once_and_the_host_can_give_it_away(
    new_person: NewPerson, artifacts: Path, viewport: dict[str, int]
) -> None:
    size = size_name(viewport)
    hana, alice = two_friends_at_a_table(new_person, viewport)

    # Alice opens the room section and presses "Leave seat": the table asks first.
    alice.locator(".lobby-details > summary").click()
    alice.get_by_test_id("leave-1").click()
    confirm = alice.get_by_test_id("leave-confirm")
    expect(confirm).to_be_visible()
    expect(confirm).to_contain_text("a bot plays your seat")
    expect(alice.get_by_test_id("leave-confirm-no")).to_be_focused()
    save_picture(alice, artifacts / f"friends-leave-confirm-{size}.png")
    check_accessibility(alice, "the leave confirmation")
    # Escape (or "Stay") changes nothing.
    alice.keyboard.press("Escape")
    expect(confirm).to_have_count(0)
    expect(alice.locator("[data-testid=hand] .card").first).to_be_visible()
    expect(hana.locator(".seat-row[data-seat='1'] .seat-who")).to_contain_text("Alice")
    # By touch or click on "Leave seat": she leaves.
    alice.get_by_test_id("leave-1").click()
    alice.get_by_test_id("leave-confirm-yes").click()

    # At once: a bot holds the seat, and both tables say so.
    for page in (hana, alice):
        expect(page.get_by_test_id("left-seats")).to_contain_text("Bot plays for Seat 2 — Alice left")
    expect(hana.locator(".seat-row[data-seat='1'] .seat-who")).to_contain_text("Bot")
    # The host sees, on the table, how to give the seat to someone, or keep the bot.
    expect(hana.get_by_test_id("left-copy-1")).to_be_visible()
    expect(hana.get_by_test_id("left-keep-1")).to_be_visible()
    # Alice, now watching, may take the seat back from the bot.
    expect(alice.get_by_test_id("left-take-1")).to_be_visible()

    # The table does not wait: the bot plays seat 2 while Hana plays hers.
    before = seat_cards(hana, 1)
    deadline = time.monotonic() + 30
    while seat_cards(hana, 1) >= before:
        assert time.monotonic() < deadline, "nobody played for the seat Alice left"
        play_one(hana)
        hana.wait_for_timeout(100)
    deadline = time.monotonic() + 20
    while not my_turn(hana):
        assert time.monotonic() < deadline, "Hana's turn did not come"
        hana.wait_for_timeout(100)
    check_screen(hana, artifacts, f"friends-left-seat-host-{size}")
    check_accessibility(hana, "the table with a seat left to a bot")
    save_picture(alice, artifacts / f"friends-left-seat-watcher-{size}.png")

    # Alice takes the seat back from the table itself; the notice goes.
    alice.get_by_test_id("left-take-1").click()
    expect(alice.locator("[data-testid=hand] .card").first).to_be_visible()
    for page in (hana, alice):
        expect(page.get_by_test_id("left-seats")).to_have_count(0)
    for page in (hana, alice):
        assert not page.console_errors, page.console_errors  # type: ignore[attr-defined]


@pytest.mark.parametrize("viewport", SIZES)
def test_the_host_keeps_the_bot_and_the_offer_goes(new_person: NewPerson, viewport: dict[str, int]) -> None:
    hana, alice = two_friends_at_a_table(new_person, viewport)
    alice.locator(".lobby-details > summary").click()
    alice.get_by_test_id("leave-1").click()
    alice.get_by_test_id("leave-confirm-yes").click()
    expect(hana.get_by_test_id("left-keep-1")).to_be_visible()
    hana.get_by_test_id("left-keep-1").click()
    expect(hana.get_by_test_id("left-keep-1")).to_have_count(0)
    expect(hana.get_by_test_id("left-seats")).to_contain_text("Alice left")


@pytest.mark.parametrize("viewport", SIZES)
def test_the_result_dialog_steps_aside_for_the_players_running_clock(
    new_person: NewPerson, artifacts: Path, viewport: dict[str, int]
) -> None:
    size = size_name(viewport)
    hana = new_person(viewport=viewport)
    sign_up(hana, "Hana")
    create_room(hana, "holy-grail", seats=3, hands=2, turn_timer=15)
    hana.get_by_test_id("take-0").click()
    hana.get_by_test_id("fill-bots").click()
    expect(hana.locator(".seat-row.empty")).to_have_count(0)
    hana.get_by_test_id("start").click()

    # Hana plays the first hand; its result comes up as the second begins.
    result = hana.get_by_test_id("hand-result")
    reopen = hana.get_by_test_id("reopen-result")
    deadline = time.monotonic() + 120
    while not (result.count() or reopen.count()):
        assert time.monotonic() < deadline, "the first hand did not end"
        if not play_one(hana):
            hana.wait_for_timeout(60)
    # Once her own clock runs, the result has stepped aside: the clock and her hand are in view.
    clock = hana.locator("[data-testid=turn][data-turn-timer]")
    expect(clock).to_be_visible(timeout=20_000)
    expect(result).to_have_count(0)
    expect(reopen).to_be_visible()
    expect(hana.locator(LEGAL).first).to_be_visible()
    check_screen(hana, artifacts, f"friends-result-aside-{size}")
    # Opened again while the clock runs, the result shows the clock itself.
    reopen.click()
    expect(result).to_be_visible()
    expect(result.get_by_test_id("dialog-clock")).to_contain_text("Your turn")
    save_picture(hana, artifacts / f"friends-result-with-clock-{size}.png")
    check_accessibility(hana, "the result dialog with the running clock")
    result.get_by_role("button", name="Continue").click()
    expect(result).to_have_count(0)


@pytest.mark.with_motion
@pytest.mark.server_env(CARDTABLE_BOT_DELAY="1.5")
@pytest.mark.parametrize("viewport", SIZES)
def test_a_take_back_is_shown_to_the_others_and_the_play_log_reads_as_the_table_stands(
    new_person: NewPerson, artifacts: Path, viewport: dict[str, int]
) -> None:
    size = size_name(viewport)
    hana, alice = two_friends_at_a_table(new_person, viewport)
    # Alice's page notes every card it draws going back (static/js/takeback.js `flyBack`).
    alice.evaluate(
        """() => {
            window.returned = [];
            new MutationObserver((changes) => {
                for (const change of changes) for (const node of change.addedNodes) {
                    if (node.dataset && node.dataset.returning) window.returned.push(node.dataset.returning);
                }
            }).observe(document.body, { childList: true, subtree: true });
        }"""
    )
    taken = None
    deadline = time.monotonic() + 90
    while taken is None:
        assert time.monotonic() < deadline, "Hana never had a play to take back"
        if play_one(alice):
            continue
        if not my_turn(hana):
            hana.wait_for_timeout(60)
            continue
        card = hana.locator(LEGAL).first
        code = card.get_attribute("data-card")
        try:
            card.click(timeout=1500)
        except Exception:
            continue
        expect(alice.locator(on_felt(code))).to_have_count(1)
        button = hana.get_by_test_id("take-back")
        try:
            expect(button).to_be_visible(timeout=1000)
            button.click(timeout=1000)
        except Exception:  # the next seat acted first: try with her next card
            continue
        taken = code
    expect(hana.locator(f"[data-testid=hand] .card[data-card='{taken}']")).to_have_count(1)

    # Alice reads who took back what, and saw the card go back from the felt.
    expect(alice.get_by_test_id("take-back-notice")).to_contain_text("Hana took back")
    expect(alice.locator(on_felt(taken))).to_have_count(0)
    assert taken in alice.evaluate("window.returned"), "the card was not shown going back"
    save_picture(alice, artifacts / f"friends-take-back-seen-{size}.png")
    # Her play log has the take-back and not the card as a play any more.
    alice.get_by_test_id("open-log").click()
    log = alice.get_by_test_id("play-log")
    expect(log).to_contain_text("took back")
    played = log.locator(f".log-row:not(:has(.log-text)) .card[data-card='{taken}']")
    expect(played).to_have_count(0)
    save_picture(alice, artifacts / f"friends-take-back-log-{size}.png")
    check_accessibility(alice, "the play log after a take-back")


def test_the_play_log_drops_a_taken_back_card_with_the_trick_it_closed_and_names_passes(
    new_person: NewPerson,
) -> None:
    page = new_person(viewport=LAPTOP)
    page.goto("/")
    entries = page.evaluate(
        """async () => {
            const { undoInLog } = await import('/static/js/takeback.js');
            const entries = [
                { kind: "play", seat: 1, cards: ["S3"] },
                { kind: "play", seat: 2, cards: ["S5"] },
                { kind: "play", seat: 0, cards: ["S9"] },
                { kind: "trick", winner: 0 },
            ];
            undoInLog(entries, { type: "take_back", seat: 0, action: { type: "play", cards: ["S9"] } });
            return entries.map((e) => [e.kind, e.seat ?? null, (e.cards || []).join(","), e.text || ""]);
        }"""
    )
    assert entries == [
        ["play", 1, "S3", ""],
        ["play", 2, "S5", ""],
        ["note", 0, "S9", "took back"],
    ]
    # A pass sent as a bid of nothing (French Tarot's auction) reads "passed", not "bid".
    lines = page.evaluate(
        """async () => {
            const { Table } = await import('/static/js/table.js');
            const table = new Table(document.createElement("div"), {
                gameId: "french-tarot", plugin: { deck: "french" }, send: () => false, rulesHref: "/rules",
            });
            table.log = { handNo: 1, partial: false, entries: [] };
            table.logEvent({ type: "bid", seat: 1, contract: null });
            table.logEvent({ type: "bid", seat: 2, contract: "garde" });
            return table.log.entries.map((entry) => entry.text);
        }"""
    )
    assert lines == ["passed", "bid garde"]


def select_a_single_play(page: Page) -> None:
    """Select one legal card after another until one alone is a play (a Play button appears)."""
    for index in range(page.locator(LEGAL).count()):
        if page.get_by_test_id("yf-clear").count():
            page.get_by_test_id("yf-clear").click(timeout=1500)
        page.locator(LEGAL).nth(index).click(timeout=1500)
        if page.get_by_test_id("yf-play").count():
            return


LAYOUT_JS = """() => {
  const box = (selector) => {
    const el = document.querySelector(selector);
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
  };
  return {
    pageHeight: document.documentElement.scrollHeight,
    play: box("[data-testid=yf-play]"),
    hand: box("[data-testid=hand]"),
    handArea: box(".hand-area"),
    side: box(".table-side"),
    last: box("[data-testid=last-trick]"),
  };
}"""


def test_yaya_fugou_on_a_laptop_keeps_play_by_the_hand_and_the_page_in_the_window_with_two_notices(
    new_person: NewPerson, artifacts: Path
) -> None:
    hana, alice = two_friends_at_a_table(new_person, LAPTOP, game="yaya-fugou", seats=4)
    # First notice: Alice leaves her seat to a bot.
    alice.locator(".lobby-details > summary").click()
    alice.get_by_test_id("leave-1").click()
    alice.get_by_test_id("leave-confirm-yes").click()
    expect(hana.get_by_test_id("left-seats")).to_be_visible()
    # Hana's turn: she selects a card; the Play button for it sits right above her hand.
    deadline = time.monotonic() + 90
    while not hana.get_by_test_id("yf-play").count():
        assert time.monotonic() < deadline, "Hana's play never came"
        if not (my_turn(hana) and hana.get_by_test_id("yf-play-controls").count()):
            hana.wait_for_timeout(100)
            continue
        try:
            select_a_single_play(hana)
        except Exception:  # the table moved on under a click: look again
            continue
        if not hana.get_by_test_id("yf-play").count():
            hana.locator(".action-button", has_text="Pass").click()
    # Second notice: a card that cannot be played says why.
    disabled = hana.locator("[data-testid=hand] .card.is-disabled")
    if not disabled.count():  # every card is usable: a second card that breaks the selection does
        hana.locator("[data-testid=hand] .card:not(.is-selected)").last.click()
    else:
        disabled.first.click(force=True)
    expect(
        hana.get_by_test_id("table-notice").or_(hana.locator("[data-testid=yf-selection][data-legal='0']"))
    ).to_be_visible()
    facts = hana.evaluate(LAYOUT_JS)
    save_picture(hana, artifacts / "friends-yaya-laptop-two-notices.png")
    assert facts["pageHeight"] <= LAPTOP["height"], f"the page overflows: {facts}"
    play, hand = facts["play"], facts["hand"]
    assert facts["handArea"]["top"] <= play["top"] and play["bottom"] <= hand["top"] + 1, facts
    assert hand["top"] - play["bottom"] < 60, f"Play is far from the hand: {facts}"
    if facts["last"]:  # the side column shows the whole "Last play" box
        last, side = facts["last"], facts["side"]
        assert side["top"] <= last["top"] and last["bottom"] <= side["bottom"], facts


def bots_finish_a_match(page: Page, room_name: str, guest: Page | None = None) -> str:
    """`page`'s person creates a one-hand Holy Grail room named `room_name`; they (seat 0) and
    `guest` (seat 1) start a match and hand their seats to bots, which finish it; the code."""
    room = page.request.post(
        "/api/rooms", data={"game_id": "holy-grail", "seats": 3, "options": {"hands": 1}, "name": room_name}
    ).json()
    code = room["code"]
    people = [page] if guest is None else [page, guest]
    for n, person in enumerate(people):
        assert person.request.post(f"/api/rooms/{code}/seats/{n}", data={"as": "me"}).ok
    for n in range(len(people), 3):
        assert page.request.post(f"/api/rooms/{code}/seats/{n}", data={"as": "bot", "level": "basic"}).ok
    match_id = int(page.request.post(f"/api/rooms/{code}/start").json()["match"]["id"])
    for n in range(len(people)):  # the people's seats go to bots, who finish the match for them
        assert page.request.post(f"/api/rooms/{code}/seats/{n}", data={"as": "bot", "replace": True}).ok
    deadline = time.monotonic() + 90
    while page.request.get(f"/api/matches/{match_id}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish the match in time"
        time.sleep(0.3)
    return code


VISIBLE_TEXT_JS = "() => document.body.innerText"


@pytest.mark.parametrize("viewport", SIZES)
def test_a_finished_room_says_once_that_the_match_is_over_with_the_result_and_what_comes_next(
    new_person: NewPerson, artifacts: Path, viewport: dict[str, int]
) -> None:
    size = size_name(viewport)
    hana = new_person(viewport=viewport)
    alice = new_person(viewport=viewport)
    sign_up(hana, "Hana")
    sign_up(alice, "Alice")
    code = bots_finish_a_match(hana, "Friday cards", guest=alice)
    readers = ((hana, "host", "Start a rematch"), (alice, "guest", "Hana can start a rematch"))
    for page, who, next_line in readers:
        page.goto(f"/r/{code}")
        over = page.get_by_test_id("match-over")
        expect(over).to_be_visible()
        if page.locator(RESULT_DIALOG).count():
            page.locator(RESULT_DIALOG).get_by_role("button", name="Continue").click()
        expect(over.locator(".final-ranking li")).to_have_count(3)
        expect(over.get_by_test_id("replay-link")).to_be_visible()
        expect(over).to_contain_text(next_line)
        text = page.evaluate(VISIBLE_TEXT_JS)
        assert text.count("The match is over.") == 1, text
        assert "Waiting for the host to start." not in text, text
        save_picture(page, artifacts / f"friends-finished-room-{who}-{size}.png")
    check_accessibility(alice, "a finished room")

    # A second room of the same name: the history tells the two apart.
    other = bots_finish_a_match(hana, "Friday cards")
    hana.goto("/history")
    expect(hana.get_by_test_id("history-room")).to_have_count(2)
    labels = hana.get_by_test_id("history-room").all_inner_texts()
    assert len(labels) == 2 and labels[0] != labels[1], labels
    assert sorted(labels) == sorted(f"Friday cards (room {c[:5]}…)" for c in (code, other)), labels
    save_picture(hana, artifacts / f"friends-history-same-names-{size}.png", full_page=True)
