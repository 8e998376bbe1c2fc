"""The replay page: a finished match stepped through with the keyboard, at 1280×800 and 390×844.

Bots play a two-hand Holy Grail match in a person's room; the person opens the replay from the
history page, sees every hand face up after the deal, and steps with the arrow keys: each step
says the action in words (English, then Japanese) and the hands change as the log says."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from app.live.replays import expand_steps
from tests.browser.conftest import NewPerson
from tests.browser.layout import check_screen

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
REQUIRED = (
    "[data-testid=replay-hand] .card",
    "[data-testid=replay-action]",
    "[data-testid=replay-step]",
    "[data-testid=replay-controls] button",
)

# Counts the window's live resize listeners (a listener removed through its AbortSignal leaves).
COUNT_RESIZE_LISTENERS = """
window.resizeListeners = 0;
const addListener = window.addEventListener.bind(window);
window.addEventListener = (type, listener, options) => {
  if (type === "resize") {
    window.resizeListeners += 1;
    options?.signal?.addEventListener("abort", () => (window.resizeListeners -= 1));
  }
  return addListener(type, listener, options);
};
"""


def bots_play_a_match(page: Page, name: str, game: str = "holy-grail", seats: int = 4, hands: int = 2) -> int:
    """Sign `name` up through the API, sit them in seat 0 of a two-hand match and hand that seat
    to a bot once it starts (so it is theirs in their history), and let basic bots play it."""
    page.goto("/")
    assert page.request.post("/api/people", data={"name": name}).ok
    room = page.request.post(
        "/api/rooms", data={"game_id": game, "seats": seats, "options": {"hands": hands}}
    ).json()
    code = room["code"]
    assert page.request.post(f"/api/rooms/{code}/seats/0", data={"as": "me"}).ok
    for n in range(1, seats):
        assert page.request.post(f"/api/rooms/{code}/seats/{n}", data={"as": "bot", "level": "basic"}).ok
    match_id = int(page.request.post(f"/api/rooms/{code}/start").json()["match"]["id"])
    taken = page.request.post(
        f"/api/rooms/{code}/seats/0", data={"as": "bot", "level": "basic", "replace": True}
    )
    assert taken.ok, taken.text()
    deadline = time.monotonic() + 90
    while page.request.get(f"/api/matches/{match_id}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish the match in time"
        time.sleep(0.3)
    return match_id


def shown(page: Page) -> dict[str, Any]:
    """The step counter, the described action and each seat's hand, read in one page step."""
    return page.evaluate(
        """() => ({
          step: document.querySelector("[data-testid=replay-step]").textContent,
          action: document.querySelector("[data-testid=replay-action]").textContent,
          hands: [...document.querySelectorAll(".replay-seat-hand")].map((row) =>
            [...row.querySelectorAll(".card")].map((card) => card.dataset.card)),
          labels: Object.fromEntries([...document.querySelectorAll("[data-testid=replay-hand] .card")]
            .map((card) => [card.dataset.card, card.title])),
          piles: [...document.querySelectorAll(".replay-pile")].map((row) => row.dataset.pile),
        })"""
    )


def step_number(text: str) -> int:
    return int(text.split("/")[0].split()[-1])


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_a_replay_is_stepped_with_the_keyboard_and_says_each_action(
    new_person: NewPerson, artifacts: Path, viewport: dict[str, int]
) -> None:
    page = new_person(viewport=viewport)
    page.add_init_script(COUNT_RESIZE_LISTENERS)
    match_id = bots_play_a_match(page, "Rin")
    export = page.request.get(f"/api/matches/{match_id}/log").json()
    log = export["log"]
    # Seats a bot played last are named by their number, as on the match page.
    names = [f"Bot {s['n'] + 1}" if s["kind"] == "bot" else s["name"] for s in export["seats"]]
    size = f"{viewport['width']}x{viewport['height']}"

    page.goto("/history")
    page.locator(f"tr[data-match='{match_id}'] [data-testid=history-replay]").click()
    expect(page).to_have_url(f"/matches/{match_id}/replay")

    # The replay opens on the first deal: every hand face up, and the stock still to be dealt.
    first_deal = next(i for i, (seat, action) in enumerate(log) if seat == -1 and action["type"] == "shuffle")
    expect(page.get_by_test_id("replay-step")).to_contain_text(f"{first_deal + 1} / {len(log)}")
    expect(page.get_by_test_id("replay-action")).to_have_text("Cards are dealt.")
    now = shown(page)
    assert len(now["hands"]) == 4 and all(now["hands"]), "every seat's cards are face up"
    assert "stock" in now["piles"]
    expect(page.get_by_test_id("replay-hint")).to_be_visible() if viewport is LAPTOP else None
    check_screen(page, artifacts, f"replay-deal-{size}", scope="[data-testid=replay]", required=REQUIRED)

    # → steps through the plays one by one: the player's card leaves their hand, and the line
    # names the player and the card.
    for _ in range(6):
        before = shown(page)
        page.keyboard.press("ArrowRight")
        expect(page.get_by_test_id("replay-step")).to_contain_text(f"{step_number(before['step']) + 1} / ")
        after = shown(page)
        seat, action = log[step_number(after["step"]) - 1]
        card = action["cards"][0]
        assert card in before["hands"][seat] and card not in after["hands"][seat]
        assert len(after["hands"][seat]) == len(before["hands"][seat]) - 1
        assert after["action"] == f"{names[seat]} plays {before['labels'][card]}."
    # ← goes back and the card returns to its hand.
    page.keyboard.press("ArrowLeft")
    back = shown(page)
    seat, action = log[step_number(back["step"])]
    assert action["cards"][0] in back["hands"][seat]

    # ↓ jumps to the end of the trick in progress (the fourth card of the trick), ↑ back.
    page.keyboard.press("ArrowDown")
    trick_end = shown(page)
    assert step_number(trick_end["step"]) == first_deal + 1 + 8, "two tricks of four cards after the deal"
    assert page.locator(".felt .done-trick-card, .felt .trick-card").count() == 4
    check_screen(page, artifacts, f"replay-trick-{size}", scope="[data-testid=replay]", required=REQUIRED)
    page.keyboard.press("Shift+ArrowLeft")
    assert step_number(shown(page)["step"]) == first_deal + 1 + 4

    # The second hand, from the jump list; then Japanese.
    page.get_by_test_id("replay-jump").select_option("2")
    expect(page.get_by_test_id("replay-action")).to_have_text("Cards are dealt.")
    page.keyboard.press("ArrowRight")
    page.get_by_test_id("lang-switch").click()
    expect(page.get_by_test_id("replay-action")).to_contain_text("を出しました")
    japanese = shown(page)
    seat, action = log[step_number(japanese["step"]) - 1]
    assert japanese["action"].startswith(f"{names[seat].replace('Bot', 'ボット')}が")
    check_screen(page, artifacts, f"replay-ja-{size}", scope="[data-testid=replay]", required=REQUIRED)
    # The language switch drew the page anew: only the new table still listens to the window.
    assert page.evaluate("window.resizeListeners") == 1
    # Play at the fastest speed moves on by itself until paused.
    page.locator(".replay-speed").select_option("0.25")
    started = step_number(shown(page)["step"])
    page.get_by_test_id("replay-play").click()
    step_js = "(n) => parseInt(document.querySelector('[data-testid=replay-step]').textContent) > n"
    page.wait_for_function(step_js, arg=started + 2)
    page.get_by_test_id("replay-play").click()
    paused = shown(page)["step"]
    assert step_number(paused) > started + 2
    page.wait_for_timeout(800)
    assert shown(page)["step"] == paused, "paused"
    # End: the last action, the match over.
    page.keyboard.press("End")
    expect(page.get_by_test_id("replay-step")).to_contain_text(f"{len(log)} / {len(log)}")
    assert not page.console_errors  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("game", "seats"),
    [
        ("french-tarot", 5),
        ("fairy-500", 4),
        # Seed 76: six two-card plays mid-hand, two of them near one corner (they overlapped once).
        pytest.param("yaya-fugou", 7, marks=pytest.mark.deal_seed(76)),
        ("familia", 6),
        ("holy-grail", 10),
    ],
)
def test_every_game_replays_on_one_screen_with_its_hidden_piles(
    new_person: NewPerson, artifacts: Path, game: str, seats: int
) -> None:
    page = new_person(viewport=LAPTOP)
    match_id = bots_play_a_match(page, "Sora", game, seats, hands=1)
    export = page.request.get(f"/api/matches/{match_id}/log").json()
    log = export["log"]
    names = [f"Bot {s['n'] + 1}" if s["kind"] == "bot" else s["name"] for s in export["seats"]]
    replay = page.request.get(f"/api/matches/{match_id}/replay").json()
    views = [step["view"] for step in expand_steps(replay["steps"], replay["hands"])]
    first_deal = next(i for i, (seat, action) in enumerate(log) if seat == -1 and action["type"] == "shuffle")
    for viewport in (LAPTOP, PHONE):
        page.set_viewport_size(viewport)
        size = f"{viewport['width']}x{viewport['height']}"
        page.goto(f"/matches/{match_id}/replay")
        expect(page.get_by_test_id("replay-action")).to_have_text("Cards are dealt.")
        dealt = shown(page)
        assert len(dealt["hands"]) == seats and all(dealt["hands"])
        assert dealt["piles"] == list(views[first_deal]["unseen"]), "the cards no seat holds are shown too"
        check_screen(
            page, artifacts, f"replay-{game}-deal-{size}", scope="[data-testid=replay]", required=REQUIRED
        )
        # Every following action is said in words (no generic "name: type" line), naming its seat.
        for version in range(first_deal + 2, min(first_deal + 12, len(log)) + 1):
            page.keyboard.press("ArrowRight")
            expect(page.get_by_test_id("replay-step")).to_contain_text(f"{version} / ")
            seat, action = log[version - 1]
            said = shown(page)["action"]
            who = names[seat] if seat >= 0 else "Cards"
            assert said.startswith(who) and not said.startswith(f"{who}: "), (action, said)
            if action["type"] == "bid" and game == "french-tarot":
                contract = {"prise": "Prise", "garde": "Garde", "garde_sans": "Garde sans"}.get(
                    action["contract"]
                )
                assert said == f"{names[seat]} bids {contract or 'Garde contre'}.", said

        # Mid-match, from the address (#step=N keeps the position across a reload).
        # (French Tarot: a step where the called partner is still secret, when the deal had one.)
        def secret(view: dict[str, Any]) -> list[int]:
            """Seats that alone know they are the partner: the observer marks them."""
            private = view["seat_private"]
            return [n for n, own in enumerate(private) if own.get("partner") == n != view.get("partner")]

        near_middle = sorted(range(len(log)), key=lambda i: (not secret(views[i]), abs(i - len(log) // 2)))
        middle = next(i + 1 for i in near_middle if all(views[i]["all_hands"]) and views[i]["trick"])
        page.goto(f"/matches/{match_id}/replay#step={middle}")
        page.reload()
        expect(page.get_by_test_id("replay-step")).to_contain_text(f"{middle} / {len(log)}")
        expect(page.get_by_test_id("replay-secret-partner")).to_have_count(len(secret(views[middle - 1])))
        check_screen(
            page, artifacts, f"replay-{game}-mid-{size}", scope="[data-testid=replay]", required=REQUIRED
        )
    assert not page.console_errors  # type: ignore[attr-defined]


def test_the_replays_buttons_keep_focus_and_its_slider_can_be_dragged_while_it_steps(
    new_person: NewPerson,
) -> None:
    """Each step draws the replay again, its controls included: the button a person pressed keeps
    the keyboard's focus (Enter again steps again), and a slider being dragged stays the one under
    the pointer, so the drag goes on to where it is let go."""
    page = new_person(viewport=LAPTOP)
    match_id = bots_play_a_match(page, "Rin")
    total = len(page.request.get(f"/api/matches/{match_id}/log").json()["log"])
    page.goto(f"/matches/{match_id}/replay")
    expect(page.get_by_test_id("replay-action")).to_have_text("Cards are dealt.")
    start = step_number(shown(page)["step"])

    page.get_by_test_id("replay-next").focus()
    for n in (1, 2, 3):
        page.keyboard.press("Enter")
        expect(page.get_by_test_id("replay-step")).to_contain_text(f"{start + n} / ")
        assert page.evaluate("document.activeElement.dataset.testid") == "replay-next"

    slider = page.get_by_test_id("replay-slider")
    box = slider.bounding_box()
    assert box is not None
    middle = box["y"] + box["height"] / 2
    # Press on the thumb (at step start + 3 of `total`), then drag in small moves to near the end.
    at = box["x"] + box["width"] * (start + 2) / (total - 1)
    page.mouse.move(at, middle)
    page.mouse.down()
    for fraction in (0.3, 0.5, 0.7, 0.9):
        page.mouse.move(box["x"] + box["width"] * fraction, middle, steps=4)
    page.mouse.up()
    reached = step_number(shown(page)["step"])
    assert reached > total * 0.8, f"the drag stopped at step {reached} of {total}"
    assert not page.console_errors  # type: ignore[attr-defined]
