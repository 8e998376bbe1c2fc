"""Taking back a card at the table: the "Take back" button appears after a person's play while
nobody has acted since, puts the card back in the hand, and the play log says who took back
what; Ctrl+Z does the same. The room's lobby shows the setting.

Ada holds seats 0 and 1 of a Holy Grail table (a bot in seat 2), so after seat 0 plays the
next decision is hers again and the take-back stays possible as long as she likes."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PHONE, NewPerson, screenshot_section
from tests.browser.pictures import save_picture
from tests.browser.test_platform_browser import (
    HAND_CARDS,
    LEGAL_CARDS,
    create_room,
    sign_up,
    start_solo_table,
)

pytestmark = pytest.mark.browser

MY_TURN = "[data-testid=turn].my-turn"


def play_until_take_back_offered(page: Page) -> tuple[str, int]:
    """Play the first legal card of whichever seat is shown until the "Take back" button is
    offered; returns the shown seat and how many cards its hand held before that play."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        card = page.locator(LEGAL_CARDS).first
        expect(card).to_be_visible(timeout=20_000)
        hand = page.get_by_test_id("hand")
        seat = hand.get_attribute("data-seat") or ""
        before = page.locator(HAND_CARDS).count()
        try:
            card.click(timeout=2000)
        except Exception:  # redrawn under the click: look again
            continue
        try:
            expect(page.get_by_test_id("take-back")).to_be_visible(timeout=1500)
        except AssertionError:
            continue  # a play that ended a trick with a deal
        # When the bot is next it answers (20 ms here, longer on a busy machine) and takes the
        # button away: use a play after which Ada's other seat is to act, so that it stays.
        try:
            expect(page.locator(MY_TURN)).to_be_visible(timeout=1500)
        except AssertionError:
            continue
        if page.get_by_test_id("take-back").count():
            return seat, before
    raise AssertionError("no play could be taken back within a minute")


def test_take_back_a_card_with_the_button_and_with_ctrl_z(new_person: NewPerson, artifacts: Path) -> None:
    ada = new_person(viewport={"width": 1280, "height": 800})
    start_solo_table(ada, "Ada", seats=3, my_seats=[0, 1])

    seat, before = play_until_take_back_offered(ada)
    save_picture(ada, artifacts / "take-back-laptop.png")
    ada.get_by_test_id("take-back").click()
    expect(ada.get_by_test_id("take-back")).to_have_count(0)
    expect(ada.locator(f"[data-testid=hand][data-seat='{seat}'] .card")).to_have_count(before)
    ada.get_by_test_id("open-log").click()
    expect(ada.get_by_test_id("play-log")).to_contain_text("Ada")
    expect(ada.get_by_test_id("play-log")).to_contain_text("took back")
    save_picture(ada, artifacts / "take-back-log-laptop.png")
    ada.get_by_test_id("play-log").get_by_role("button").last.click()

    # On a phone, with the keyboard: Ctrl+Z takes back too.
    ada.set_viewport_size(PHONE)
    seat, before = play_until_take_back_offered(ada)
    save_picture(ada, artifacts / "take-back-phone.png")
    box = ada.get_by_test_id("take-back").bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], "the button fits the phone"
    ada.keyboard.press("Control+z")
    expect(ada.get_by_test_id("take-back")).to_have_count(0)
    expect(ada.locator(f"[data-testid=hand][data-seat='{seat}'] .card")).to_have_count(before)

    # Japanese: the button and the log line.
    ada.get_by_test_id("lang-switch").click()
    play_until_take_back_offered(ada)
    expect(ada.get_by_test_id("take-back")).to_contain_text("待った")
    ada.get_by_test_id("take-back").click()
    ada.get_by_test_id("open-log").click()
    expect(ada.get_by_test_id("play-log")).to_contain_text("待った")
    save_picture(ada, artifacts / "take-back-log-phone-ja.png")


def test_the_take_back_setting_in_the_create_form_and_the_lobby(
    new_person: NewPerson, artifacts: Path
) -> None:
    ada = new_person(viewport=PHONE)
    sign_up(ada, "Ada")
    form = ada.get_by_test_id("create-room")
    expect(form.get_by_test_id("take-backs")).to_have_value("until_next")
    form.get_by_test_id("take-backs").select_option("off")
    create_room(ada, "holy-grail", seats=3)
    code = ada.url.rstrip("/").rsplit("/", 1)[1]
    room_setting = "async (code) => (await (await fetch(`/api/rooms/${code}`)).json()).take_backs"
    assert ada.evaluate(room_setting, code) == "off"
    lobby = ada.get_by_test_id("room-timing")
    expect(lobby.get_by_test_id("take-backs")).to_have_value("off")
    lobby.get_by_test_id("take-backs").select_option("until_next")
    expect(ada.get_by_test_id("timing-status")).to_be_visible()
    deadline = time.monotonic() + 10
    while ada.evaluate(room_setting, code) != "until_next":
        assert time.monotonic() < deadline, "the lobby's change was not saved"
        ada.wait_for_timeout(100)
    expect(lobby.get_by_test_id("take-backs")).to_have_value("until_next")
    screenshot_section(ada, "room-timing", artifacts / "take-back-lobby-phone.png")


def test_the_replay_and_the_match_page_show_a_take_back(new_person: NewPerson, artifacts: Path) -> None:
    ada = new_person(viewport={"width": 1280, "height": 800})
    start_solo_table(ada, "Ada", seats=3, my_seats=[0, 1])
    play_until_take_back_offered(ada)
    ada.get_by_test_id("take-back").click()
    expect(ada.get_by_test_id("take-back")).to_have_count(0)
    code = ada.url.rstrip("/").rsplit("/", 1)[1]
    room = "async (code) => (await (await fetch(`/api/rooms/${code}`)).json()).match"
    deadline = time.monotonic() + 150
    while ada.evaluate(room, code)["status"] != "finished":
        assert time.monotonic() < deadline, "the match did not end"
        card = ada.locator(LEGAL_CARDS).first
        try:
            card.click(timeout=1000)
        except Exception:  # not our turn, or redrawn under the click
            continue
    match_id = ada.evaluate(room, code)["id"]
    steps = ada.evaluate(
        "async (id) => (await (await fetch(`/api/matches/${id}/replay`)).json())"
        ".steps.map((s) => s.action.type)",
        match_id,
    )
    step = steps.index("take_back") + 1
    ada.goto(f"/matches/{match_id}/replay#step={step}")
    expect(ada.get_by_test_id("replay-action")).to_contain_text("Ada took back")
    save_picture(ada, artifacts / "take-back-replay-laptop.png")
    ada.goto(f"/matches/{match_id}")
    expect(ada.get_by_test_id("take-back-counts")).to_contain_text("Ada 1")
