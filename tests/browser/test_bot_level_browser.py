"""The host chooses each bot's level on the room page, in Japanese and English: a new bot is
strong, the host switches one to basic (also during the match), and a guest sees the levels as
tags without being able to change them."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PHONE, NewPerson
from tests.browser.pictures import save_picture
from tests.browser.test_platform_browser import create_room, sign_up

pytestmark = pytest.mark.browser


def room_levels(page: Page, invite: str) -> list[str | None]:
    """The levels the server holds, read with the page's own session cookie."""
    code = invite.rstrip("/").split("/r/")[1]
    cookie = "; ".join(f"{c['name']}={c['value']}" for c in page.context.cookies())
    request = urllib.request.Request(f"{invite.split('/r/')[0]}/api/rooms/{code}", headers={"Cookie": cookie})
    with urllib.request.urlopen(request, timeout=10) as response:
        return [seat["level"] for seat in json.load(response)["seats"]]


def server_levels_become(
    page: Page, invite: str, wanted: list[str | None], within: float = 10.0
) -> list[str | None]:
    """The server's levels once they equal `wanted` (the picker saves in the background, so the
    request may still be on its way when the picker shows the new value), or the last read."""
    deadline = time.monotonic() + within
    levels = room_levels(page, invite)
    while levels != wanted and time.monotonic() < deadline:
        time.sleep(0.1)
        levels = room_levels(page, invite)
    return levels


@pytest.mark.server_env(CARDTABLE_BOT_LEVEL="strong")  # the product's default, which the picker shows
def test_host_picks_each_bots_level_in_both_languages_and_a_guest_sees_it(
    new_person: NewPerson, artifacts: Path
) -> None:
    hana = new_person(locale="ja-JP")
    ken = new_person(viewport=PHONE, locale="en-GB")
    sign_up(hana, "Hana")
    invite = create_room(hana, "holy-grail", seats=3, hands=1)
    hana.get_by_test_id("take-0").click()
    hana.get_by_test_id("bot-1").click()
    hana.get_by_test_id("bot-2").click()

    picker = hana.get_by_test_id("level-1")
    expect(picker).to_have_value("strong")  # strong unless the host says otherwise
    expect(picker.locator("option")).to_have_text(["強い", "ふつう"])
    hana.get_by_test_id("level-2").select_option("basic")
    expect(hana.get_by_test_id("level-2")).to_have_value("basic")
    assert server_levels_become(hana, invite, [None, "strong", "basic"]) == [None, "strong", "basic"]
    save_picture(hana, artifacts / "bot-level-room-ja.png", full_page=True)

    # A guest on a phone sees each bot's level, in English, and cannot change it.
    sign_up(ken, "Ken", path=invite)
    expect(ken.get_by_test_id("level-tag-1")).to_have_text("Strong")
    expect(ken.get_by_test_id("level-tag-2")).to_have_text("Basic")
    expect(ken.get_by_test_id("level-1")).to_have_count(0)
    save_picture(ken, artifacts / "bot-level-room-guest-phone.png", full_page=True)

    # In English the host's choices read "Strong" / "Basic"; a change during the match counts.
    hana.get_by_test_id("lang-switch").click()
    expect(hana.get_by_test_id("level-1").locator("option")).to_have_text(["Strong", "Basic"])
    hana.get_by_test_id("start").click()
    expect(hana.locator("details.lobby-details")).not_to_have_attribute("open", "")  # the table takes over
    hana.locator("details.lobby-details > summary").click()
    hana.get_by_test_id("level-1").select_option("basic")
    expect(ken.get_by_test_id("level-tag-1")).to_have_text("Basic")
    assert server_levels_become(hana, invite, [None, "basic", "basic"]) == [None, "basic", "basic"]
    save_picture(hana, artifacts / "bot-level-room-en.png", full_page=True)
    assert not hana.console_errors, hana.console_errors
    assert not ken.console_errors, ken.console_errors
