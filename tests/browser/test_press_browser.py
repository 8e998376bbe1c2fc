"""A press is never swallowed by a redraw: the lobby and the table are drawn anew for each message
from the server, and a redraw between the press and the release would replace the element under
the pointer, so the browser would make no click. Here the room changes (the host renames it
through the API, so only the page's socket tells it) while a mouse button is held on a seat's
button or on a card; the page keeps the element until the release, and the click lands. Nor is
typing lost: a field that had focus has it again in the new drawing, caret and all, and an input
method's composition (Japanese kana being converted) is not cut short by one.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import NewPerson, screenshot_section
from tests.browser.test_platform_browser import create_room, sign_up

pytestmark = pytest.mark.browser

LEGAL = "[data-testid=hand] .card.is-legal"
MY_TURN = "[data-testid=turn].my-turn"


def record_frames(page: Page) -> list[dict[str, Any]]:
    """Every message the page's sockets receive from now on, decoded (the list grows)."""
    frames: list[dict[str, Any]] = []

    def on_socket(socket: Any) -> None:
        def received(payload: str | bytes) -> None:
            with_text = payload if isinstance(payload, str) else payload.decode()
            frames.append(json.loads(with_text))

        socket.on("framereceived", received)

    page.on("websocket", on_socket)
    return frames


def wait_for_frame(
    page: Page, frames: list[dict[str, Any]], wanted: Callable[[dict[str, Any]], bool]
) -> None:
    """Wait until the page's socket has received a message `wanted` accepts, and a moment more
    for the page to handle it."""
    deadline = time.monotonic() + 10
    while not any(wanted(frame) for frame in frames):
        assert time.monotonic() < deadline, "the page's socket did not receive the change"
        page.wait_for_timeout(50)
    page.wait_for_timeout(300)


def press_and_hold(page: Page, selector: str) -> None:
    """The mouse button down in the middle of the element `selector` finds, not released; the
    element the press reaches is marked, so the test can tell whether it is still on the page."""
    centre = page.evaluate(
        """(selector) => {
            const el = document.querySelector(selector);
            el.scrollIntoView({ block: "center" });
            addEventListener("pointerdown", (event) => {
                window.pressedElement = event.target.closest("button, [data-card]");
            }, { capture: true, once: true });
            const r = el.getBoundingClientRect();
            return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
        }""",
        selector,
    )
    page.mouse.move(centre["x"], centre["y"])
    page.mouse.down()
    assert page.evaluate("(s) => !!window.pressedElement && window.pressedElement.matches(s)", selector)


def renamed(name: str) -> Callable[[dict[str, Any]], bool]:
    return lambda frame: frame.get("type") == "room" and frame["room"].get("name") == name


def bot_in_seat(n: int) -> Callable[[dict[str, Any]], bool]:
    return lambda frame: frame.get("type") == "room" and frame["room"]["seats"][n].get("kind") == "bot"


def host_in_a_new_lobby(new_person: NewPerson) -> tuple[Page, list[dict[str, Any]], str]:
    """Hana signs up and creates a three-seat Holy Grail room; once its socket has sent the lobby:
    her page, the messages it receives, and the room's code."""
    hana = new_person()
    frames = record_frames(hana)
    sign_up(hana, "Hana")
    invite = create_room(hana, "holy-grail", seats=3)
    wait_for_frame(hana, frames, lambda frame: frame.get("type") == "room")  # the lobby as connected
    return hana, frames, invite.rsplit("/", 1)[1]


def test_a_seat_button_pressed_while_the_room_changes_takes_the_seat_on_release(
    new_person: NewPerson,
) -> None:
    hana, frames, code = host_in_a_new_lobby(new_person)
    press_and_hold(hana, "[data-testid=take-0]")

    assert hana.request.patch(f"/api/rooms/{code}", data={"name": "Friday cards"}).ok
    wait_for_frame(hana, frames, renamed("Friday cards"))
    # The lobby waits for the release: the button under the pointer is still the one pressed.
    assert hana.evaluate("window.pressedElement.isConnected"), "the lobby was drawn during the press"
    expect(hana.get_by_test_id("room-name")).not_to_contain_text("Friday cards")

    hana.mouse.up()
    expect(hana.locator(".seat-row[data-seat='0'] .seat-who")).to_contain_text("Hana")
    expect(hana.get_by_test_id("room-name")).to_contain_text("Friday cards")  # drawn once released


def test_a_card_pressed_while_the_table_redraws_is_played_on_release(new_person: NewPerson) -> None:
    hana = new_person()
    frames = record_frames(hana)
    hana.goto("/")
    assert hana.request.post("/api/people", data={"name": "Hana"}).ok
    code = hana.request.post("/api/rooms", data={"game_id": "holy-grail", "seats": 4}).json()["code"]
    assert hana.request.post(f"/api/rooms/{code}/seats/0", data={"as": "me"}).ok
    for n in (1, 2, 3):
        assert hana.request.post(f"/api/rooms/{code}/seats/{n}", data={"as": "bot", "level": "basic"}).ok
    assert hana.request.post(f"/api/rooms/{code}/start").ok
    hana.goto(f"/r/{code}")
    expect(hana.locator(MY_TURN)).to_be_visible()
    played = hana.locator(LEGAL).first.get_attribute("data-card")
    press_and_hold(hana, f"{LEGAL}[data-card='{played}']")

    assert hana.request.patch(f"/api/rooms/{code}", data={"name": "Late table"}).ok
    wait_for_frame(hana, frames, renamed("Late table"))
    assert hana.evaluate("window.pressedElement.isConnected"), "the table was drawn during the press"

    hana.mouse.up()
    # Played: gone from the hand (the bots may have finished the trick and begun the next by now).
    expect(hana.locator(f"[data-testid=hand] .card[data-card='{played}']")).to_have_count(0)


def test_typing_a_room_name_goes_on_in_the_field_when_the_lobby_is_drawn_again(
    new_person: NewPerson, artifacts: Path
) -> None:
    """The host is typing the room's new name when a bot takes a seat (through the API, so only
    the page's socket tells it): the lobby is drawn anew, the name field keeps focus and caret,
    and the rest of the name and the Enter key land in it."""
    hana, frames, code = host_in_a_new_lobby(new_person)
    hana.get_by_test_id("rename-room").click()
    field = hana.get_by_test_id("room-name-input")
    expect(field).to_be_focused()
    hana.keyboard.type("Fri")
    hana.evaluate("document.querySelector('[data-testid=room-name-input]').dataset.before = 'yes'")

    assert hana.request.post(f"/api/rooms/{code}/seats/1", data={"as": "bot"}).ok
    wait_for_frame(hana, frames, bot_in_seat(1))
    expect(hana.locator(".seat-row[data-seat='1'] .seat-who")).to_contain_text("Bot")
    # A new field (the lobby was drawn again), focused, the caret after what was typed.
    assert hana.evaluate("document.querySelector('[data-testid=room-name-input]').dataset.before") is None
    expect(field).to_be_focused()
    assert hana.evaluate("document.activeElement.selectionStart") == 3
    screenshot_section(hana, "rename-form", artifacts / "press-rename-after-redraw.png")

    hana.keyboard.type("day cards")
    hana.keyboard.press("Enter")
    expect(hana.get_by_test_id("room-name")).to_contain_text("Friday cards")
    expect(hana.get_by_test_id("rename-form")).to_have_count(0)


def test_a_japanese_input_composition_in_the_room_name_is_not_broken_by_a_lobby_redraw(
    new_person: NewPerson,
) -> None:
    """The host is turning kana into kanji in the room-name field (an input method's composition,
    driven through the DevTools protocol as an IME would) when a bot takes a seat: the lobby
    waits until the composition ends, so the field is not replaced under it. Replaced, the new
    field took the kana as typed text and the converted word was then added after it
    ("にほん日本")."""
    hana, frames, code = host_in_a_new_lobby(new_person)
    hana.get_by_test_id("rename-room").click()
    field = hana.get_by_test_id("room-name-input")
    expect(field).to_be_focused()
    ime = hana.context.new_cdp_session(hana)
    ime.send("Input.imeSetComposition", {"text": "にほん", "selectionStart": 3, "selectionEnd": 3})
    hana.evaluate("document.querySelector('[data-testid=room-name-input]').dataset.before = 'yes'")

    assert hana.request.post(f"/api/rooms/{code}/seats/1", data={"as": "bot"}).ok
    wait_for_frame(hana, frames, bot_in_seat(1))
    # Held back: the same field, still composing, and the seat not drawn yet.
    assert hana.evaluate("document.querySelector('[data-testid=room-name-input]').dataset.before") == "yes"
    expect(hana.locator(".seat-row[data-seat='1']")).to_have_class(re.compile(r"\bempty\b"))

    ime.send("Input.insertText", {"text": "日本"})  # the conversion chosen: the composition ends
    expect(hana.locator(".seat-row[data-seat='1'] .seat-who")).to_contain_text("Bot")
    expect(field).to_have_value("日本")
    expect(field).to_be_focused()
    hana.keyboard.press("Enter")
    expect(hana.get_by_test_id("room-name")).to_contain_text("日本")
