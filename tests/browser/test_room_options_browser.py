"""Room options drawn with the game plugins' help, in headless Chromium through the real server:
the create-room form shows a plugin's own option labels and its match-length hint (fairy-500 in
Japanese and English), and Familia's host picks a team and a role for every seat, sees the
seating rules checked as it picks (and the server's refusal when it saves a bad table), saves a
good one, and finds those roles and teams on the table once the match starts."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, Route, WebSocketRoute, expect

from tests.browser.conftest import PHONE, NewPerson
from tests.browser.layout import BOX_JS
from tests.browser.pictures import save_picture
from tests.browser.test_platform_browser import create_room, sign_up

pytestmark = pytest.mark.browser


def option_field(page: Page, name: str) -> Locator:
    """The labelled field (label, input and help line) of one generic option input."""
    return page.locator(f"label.field:has([data-option={name}])")


def pick(page: Page, kind: str, seat: int, value: str) -> None:
    page.get_by_test_id(f"familia-{kind}-{seat}").select_option(value)


def test_fairy_500_create_form_shows_the_plugin_labels_and_the_500_point_hint_in_both_languages(
    new_person: NewPerson, artifacts: Path
) -> None:
    hana = new_person(locale="ja-JP")
    sign_up(hana, "Hana")
    form = hana.get_by_test_id("create-room")
    form.get_by_test_id("game-select").select_option("fairy-500")
    # the labels come from static/games/fairy-500.js, not the schema's English titles
    expect(option_field(hana, "partnership")).to_contain_text("ペア戦（4人：向かいの席がパートナー）")
    expect(option_field(hana, "classical")).to_contain_text("クラシカルルール")
    expect(form.locator("select[data-option=classical_all_pass] option[value=redeal]")).to_have_text(
        "配り直し"
    )
    hands = option_field(hana, "hands")
    expect(hands).to_contain_text("試合のハンド数")
    # fairy-500 plays to ±500 by default, not one hand per player
    expect(hands.locator(".help")).to_have_text("空欄なら標準（誰かが +500 点か −500 点に達するまで）です。")
    # the input says only "default" (a longer text was cut off in the narrow box); the hint says which
    expect(hands.locator("input")).to_have_attribute("placeholder", "標準")
    save_picture(hana, artifacts / "room-options-create-fairy-ja.png", full_page=True)

    # another game keeps the generic hint
    form.get_by_test_id("game-select").select_option("holy-grail")
    expect(option_field(hana, "hands").locator(".help")).to_have_text(
        "空欄なら標準（人数と同じハンド数）です。"
    )
    # a fixed default in the schema is named (yaya-fugou plays 5 hands)
    form.get_by_test_id("game-select").select_option("yaya-fugou")
    expect(option_field(hana, "hands").locator(".help")).to_have_text("空欄なら標準（5ハンド）です。")

    hana.get_by_test_id("lang-switch").click()
    form = hana.get_by_test_id("create-room")
    form.get_by_test_id("game-select").select_option("fairy-500")
    expect(option_field(hana, "partnership")).to_contain_text(
        "Partnership (4 players: opposite seats are partners)"
    )
    expect(option_field(hana, "hands").locator(".help")).to_have_text(
        "Leave empty for the default: play until someone reaches +500 or −500."
    )
    assert not hana.console_errors, hana.console_errors


def test_familia_host_picks_team_and_role_per_seat_with_seating_rules_checked_and_sees_them_on_the_table(
    new_person: NewPerson, artifacts: Path
) -> None:
    kana = new_person(locale="ja-JP")
    sign_up(kana, "Kana")
    form = kana.get_by_test_id("create-room")
    form.get_by_test_id("game-select").select_option("familia")
    form.get_by_test_id("seats-select").select_option("4")
    # the create form already has the pickers, showing the standard table for 4 seats
    expect(form.get_by_test_id("familia-seating").locator("tbody tr")).to_have_count(4)
    expect(form.get_by_test_id("familia-role-2")).to_have_value("F")
    expect(form.locator("input[data-option=teams]")).to_have_count(0)
    form.locator("input[data-option=hands]").fill("1")
    save_picture(kana, artifacts / "room-options-create-familia-ja.png", full_page=True)
    form.locator("button[type=submit]").click()
    kana.wait_for_url(re.compile(r"/r/[^/]+$"))
    code = kana.url.rsplit("/", 1)[1]

    # blank teams and roles travel as null (the standard), never as an empty string
    room = kana.request.get(f"/api/rooms/{code}").json()
    overrides = room["option_overrides"]
    assert overrides.get("teams") is None and overrides.get("roles") is None, overrides
    assert room["option_overrides"]["hands"] == 1, room

    kana.get_by_test_id("take-0").click()
    expect(kana.locator(".seat-row[data-seat='0'] .seat-who")).to_contain_text("Kana")
    seating = kana.get_by_test_id("familia-seating")
    # the occupant's name stands next to the seat's pickers; the standard: pairs, men first
    expect(seating.locator("tr[data-seat='0']")).to_contain_text("Kana")
    expect(kana.get_by_test_id("familia-teams-state")).to_have_text("標準")
    assert [kana.get_by_test_id(f"familia-team-{n}").input_value() for n in range(4)] == ["0", "1", "0", "1"]
    assert [kana.get_by_test_id(f"familia-role-{n}").input_value() for n in range(4)] == ["M", "M", "F", "F"]
    check = kana.get_by_test_id("familia-seating-check")
    expect(check).to_have_text("席順のルールを満たしています。")

    # men and women alternating round the table breaks the two-blocks rule, seen at once
    pick(kana, "role", 1, "F")
    expect(check).to_have_attribute("data-problem", "")
    pick(kana, "role", 2, "M")
    expect(check).to_have_attribute("data-problem", "blocks")
    expect(check).to_contain_text("2つのまとまり")
    expect(kana.get_by_test_id("familia-roles-state")).to_have_text("指定")
    save_picture(kana, artifacts / "room-options-familia-blocks-ja.png", full_page=True)
    # saving it anyway: the server refuses and its reason is shown by the options
    kana.get_by_test_id("save-options").click()
    status = kana.get_by_test_id("options-status")
    expect(status).to_contain_text("座席のルール：男性役と女性役は卓を2つのまとまりに分けて座ります")
    expect(status).to_have_class(re.compile(r"\berror\b"))

    # women in seats 1-2 and men in 3-4: fine with the standard teams
    pick(kana, "role", 0, "F")
    pick(kana, "role", 3, "M")
    expect(check).to_have_attribute("data-problem", "")
    # moving seat 2 into team A puts a woman and a man of team A side by side (seats 2 and 3)
    pick(kana, "team", 1, "0")
    expect(check).to_have_attribute("data-problem", "neighbours")
    expect(check).to_have_text("席 2 と 席 3 はチームAの男性役と女性役で、隣り合っています。")
    save_picture(kana, artifacts / "room-options-familia-neighbours-ja.png", full_page=True)
    # the women as team A against the men as team B meets both rules
    pick(kana, "team", 2, "1")
    pick(kana, "team", 3, "1")
    expect(check).to_have_text("席順のルールを満たしています。")
    kana.get_by_test_id("save-options").click()
    expect(status).to_have_text("オプションを保存しました。")
    room = kana.request.get(f"/api/rooms/{code}").json()
    assert room["options"]["teams"] == [0, 0, 1, 1], room["options"]
    assert room["options"]["roles"] == ["F", "F", "M", "M"], room["options"]

    # a reload draws the saved arrangement, marked as chosen
    kana.reload()
    expect(kana.get_by_test_id("familia-teams-state")).to_have_text("指定")
    assert [kana.get_by_test_id(f"familia-team-{n}").input_value() for n in range(4)] == ["0", "0", "1", "1"]
    assert [kana.get_by_test_id(f"familia-role-{n}").input_value() for n in range(4)] == ["F", "F", "M", "M"]
    kana.set_viewport_size(PHONE)
    # The lobby redraws whenever the room changes (the socket's first message after the reload
    # may land now): wait for the picker, then measure whichever copy is current in one step.
    expect(kana.get_by_test_id("familia-role-3")).to_be_visible()
    picker = kana.evaluate(BOX_JS, "[data-testid=familia-role-3]")
    assert picker["right"] <= PHONE["width"], picker
    save_picture(kana, artifacts / "room-options-familia-saved-phone-ja.png", full_page=True)

    kana.get_by_test_id("fill-bots").click()
    expect(kana.locator(".seat-row.empty")).to_have_count(0)
    # the bots' names join the pickers as they sit down
    expect(kana.get_by_test_id("familia-seating").locator("tr[data-seat='3']")).to_contain_text("ボット 4")
    kana.get_by_test_id("start").click()
    # the table shows the chosen roles and teams: seat 1 a woman of team A, seat 3 a man of team B
    expect(kana.get_by_test_id("familia-badge-0")).to_contain_text("♀ 女性役", timeout=20_000)
    expect(kana.get_by_test_id("familia-badge-0")).to_contain_text("チームA")
    expect(kana.get_by_test_id("familia-badge-1")).to_contain_text("♀ 女性役")
    expect(kana.get_by_test_id("familia-badge-2")).to_contain_text("♂ 男性役")
    expect(kana.get_by_test_id("familia-badge-2")).to_contain_text("チームB")
    expect(kana.get_by_test_id("familia-badge-3")).to_contain_text("♂ 男性役")
    save_picture(kana, artifacts / "room-options-familia-table-phone-ja.png", full_page=True)
    # the one failed request is the refused save above
    refused = [error for error in kana.console_errors if "status of 422" in error]
    assert len(refused) == 1 and len(kana.console_errors) == 1, kana.console_errors


def test_familia_seat_count_change_returns_per_seat_teams_and_roles_to_the_standard(
    new_person: NewPerson, artifacts: Path
) -> None:
    lena = new_person()
    sign_up(lena, "Lena")
    options = {"teams": [0, 0, 1, 1], "roles": ["F", "F", "M", "M"]}
    answer = lena.request.post("/api/rooms", data={"game_id": "familia", "seats": 4, "options": options})
    assert answer.ok, answer.text()
    code = answer.json()["code"]
    lena.goto(f"/r/{code}")
    expect(lena.get_by_test_id("familia-teams-state")).to_have_text("chosen")
    expect(lena.get_by_test_id("familia-role-0")).to_have_value("F")

    # four seats' lists cannot fit six seats: the change goes through with the standard instead
    lena.get_by_test_id("seat-count").select_option("6")
    expect(lena.get_by_test_id("familia-seating").locator("tbody tr")).to_have_count(6)
    expect(lena.get_by_test_id("familia-teams-state")).to_have_text("standard")
    expect(lena.get_by_test_id("familia-roles-state")).to_have_text("standard")
    assert [lena.get_by_test_id(f"familia-role-{n}").input_value() for n in range(6)] == ["M"] * 3 + ["F"] * 3
    expect(lena.locator(".page-notice .error")).to_have_count(0)
    room = lena.request.get(f"/api/rooms/{code}").json()
    assert len(room["seats"]) == 6 and room["options"]["teams"] is None, room

    # the standard at five seats is individual play, all men; the check agrees with the server
    lena.get_by_test_id("seat-count").select_option("5")
    expect(lena.get_by_test_id("familia-seating").locator("tbody tr")).to_have_count(5)
    assert [lena.get_by_test_id(f"familia-team-{n}").input_value() for n in range(5)] == [
        "0",
        "1",
        "2",
        "3",
        "4",
    ]
    expect(lena.get_by_test_id("familia-seating-check")).to_have_text("The seating rules are met.")
    reset = lena.get_by_test_id("familia-seating-reset")
    expect(reset).to_be_disabled()
    pick(lena, "team", 1, "0")
    expect(lena.get_by_test_id("familia-teams-state")).to_have_text("chosen")
    save_picture(lena, artifacts / "room-options-familia-five-seats.png", full_page=True)
    # back to the standard: the pickers show it again and the options send null
    reset.click()
    expect(lena.get_by_test_id("familia-teams-state")).to_have_text("standard")
    expect(lena.get_by_test_id("familia-team-1")).to_have_value("1")
    expect(reset).to_be_disabled()
    lena.get_by_test_id("save-options").click()
    expect(lena.get_by_test_id("options-status")).to_have_text("Options saved.")
    assert lena.request.get(f"/api/rooms/{code}").json()["option_overrides"]["teams"] is None

    # with the seating rules switched off any arrangement goes, here and on the server
    check = lena.get_by_test_id("familia-seating-check")
    lena.locator("input[data-option=seating_rules]").uncheck()
    pick(lena, "role", 1, "F")
    pick(lena, "role", 3, "F")
    expect(check).to_have_text("Seating rules are switched off: any arrangement is accepted.")
    lena.get_by_test_id("save-options").click()
    expect(lena.get_by_test_id("options-status")).to_have_text("Options saved.")
    lena.reload()
    expect(check).to_have_attribute("data-problem", "")
    expect(check).to_contain_text("switched off")
    # switching them on again shows at once what they would refuse
    lena.locator("input[data-option=seating_rules]").check()
    expect(check).to_have_attribute("data-problem", "blocks")
    assert not lena.console_errors, lena.console_errors


def test_a_room_copy_read_before_the_hosts_change_does_not_undo_it_on_the_page(new_person: NewPerson) -> None:
    """The socket's copy of the room read when it connected reaches the page only after the
    host's change was saved (held back here by routing the socket): the page keeps the later
    copy, so the lobby goes on showing the saved setting and the next change is saved too."""
    held: dict[str, object] = {}

    def hold_the_first_room_copy(socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()
        held["socket"] = socket

        def from_server(message: str | bytes) -> None:
            if "copy" not in held and json.loads(message).get("type") == "room":
                held["copy"] = message
            else:
                socket.send(message)

        server.on_message(from_server)

    hana = new_person()
    hana.route_web_socket(re.compile(r"/ws/rooms/"), hold_the_first_room_copy)
    sign_up(hana, "Hana")
    invite = create_room(hana, "holy-grail", seats=3)
    code = invite.rsplit("/", 1)[1]
    timing = hana.get_by_test_id("room-timing")
    expect(timing.get_by_test_id("turn-timer")).to_have_value("")
    deadline = time.monotonic() + 10
    while "copy" not in held:  # the socket has connected and read the room
        assert time.monotonic() < deadline, "the socket sent no room on connect"
        hana.wait_for_timeout(50)
    timing.get_by_test_id("turn-timer").select_option("30")
    expect(hana.get_by_test_id("timing-status")).to_have_text("Saved.")
    stale = json.loads(held["copy"])  # type: ignore[arg-type]
    assert stale["room"]["turn_timer"] is None
    held["socket"].send(held["copy"])  # type: ignore[attr-defined]
    hana.wait_for_timeout(500)  # the page has handled it (a message is handled at once)
    expect(timing.get_by_test_id("turn-timer")).to_have_value("30")
    timing.get_by_test_id("turn-timer").select_option("15")
    setting = "async (code) => (await (await fetch(`/api/rooms/${code}`)).json()).turn_timer"
    deadline = time.monotonic() + 10
    while hana.evaluate(setting, code) != 15:
        assert time.monotonic() < deadline, "the next change was not saved"
        hana.wait_for_timeout(100)
    expect(timing.get_by_test_id("turn-timer")).to_have_value("15")


def test_the_lobby_closes_the_rename_form_even_when_the_answer_is_an_older_copy(
    new_person: NewPerson,
) -> None:
    """The answer to the host's rename may be read before the socket's copy that already shows
    the new name (both after the change): the page keeps the socket's later copy, and the
    lobby is drawn again all the same, closing the form. Here the answer is made the older one."""
    hana = new_person()
    sign_up(hana, "Hana")
    create_room(hana, "holy-grail", seats=3)

    def answer_as_an_older_copy(route: Route) -> None:
        if route.request.method != "PATCH":
            route.fallback()
            return
        response = route.fetch()
        room = response.json()
        hana.wait_for_timeout(300)  # the socket's copy of the change arrives first
        route.fulfill(response=response, json={**room, "read_at": room["read_at"] - 1})

    hana.route(re.compile(r"/api/rooms/[^/]+$"), answer_as_an_older_copy)
    hana.get_by_test_id("rename-room").click()
    hana.get_by_test_id("room-name-input").fill("Friday cards")
    hana.get_by_test_id("save-room-name").click()
    expect(hana.get_by_test_id("room-name")).to_contain_text("Friday cards")
    expect(hana.get_by_test_id("rename-form")).to_have_count(0)


def test_the_sockets_copy_of_the_pages_own_change_does_not_redraw_the_lobby(
    new_person: NewPerson,
) -> None:
    """After the host takes a seat, the answer redraws the lobby; the socket's copy of the same
    change, arriving next (held back here until the answer is drawn), says the same and leaves
    the lobby's buttons in place (a redraw between a press and its release would swallow the
    click on the next seat)."""
    held: dict[str, object] = {"copies": []}

    def hold_copies_with_a_seated_person(socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()
        held["socket"] = socket

        def from_server(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "room" and any(s["kind"] == "person" for s in data["room"]["seats"]):
                held["copies"].append(message)  # type: ignore[attr-defined]
            else:
                held["connected"] = True
                socket.send(message)

        server.on_message(from_server)

    hana = new_person()
    hana.route_web_socket(re.compile(r"/ws/rooms/"), hold_copies_with_a_seated_person)
    sign_up(hana, "Hana")
    create_room(hana, "holy-grail", seats=3)
    deadline = time.monotonic() + 10
    while "connected" not in held:
        assert time.monotonic() < deadline, "the socket sent no room on connect"
        hana.wait_for_timeout(50)
    hana.get_by_test_id("take-0").click()
    expect(hana.locator(".seat-row[data-seat='0'] .seat-who")).to_contain_text("Hana")  # the answer
    hana.get_by_test_id("take-1").evaluate("(button) => { window.markedButton = button; }")
    deadline = time.monotonic() + 10
    while not held["copies"]:
        assert time.monotonic() < deadline, "the socket did not send the change"
        hana.wait_for_timeout(50)
    for copy in held["copies"]:  # type: ignore[attr-defined]
        held["socket"].send(copy)  # type: ignore[attr-defined]
    hana.wait_for_timeout(300)  # the page has handled them
    assert hana.evaluate("window.markedButton.isConnected"), "the lobby was drawn again"
