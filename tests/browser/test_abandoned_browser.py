"""An abandoned match in the browser (issue 22): the host hands her seat to a bot and leaves the
table to the bots, so when the match ends no person sits at it. Her history marks the match
abandoned, its page says why and that no leaderboard counts it, and the overall leaderboard has
no entry from it. Checked at 1280×800 (English) and 390×844 (Japanese)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, NewPerson
from tests.browser.layout import check_screen
from tests.browser.test_platform_browser import create_room, sign_up
from tests.browser.test_rematch_browser import LAPTOP, leave_the_match_to_bots, wait_finished

pytestmark = pytest.mark.browser


def test_a_match_the_bots_finished_alone_is_marked_abandoned_in_history_and_on_its_page(
    new_person: NewPerson, artifacts: Path
) -> None:
    hana = new_person(viewport=LAPTOP)
    sign_up(hana, "Hana")
    code = create_room(hana, "holy-grail", seats=3, hands=1).rstrip("/").split("/r/")[1]
    hana.get_by_test_id("take-0").click()
    expect(hana.get_by_test_id("leave-0")).to_be_visible()
    hana.get_by_test_id("fill-bots").click()
    leave_the_match_to_bots(hana, code)
    match = wait_finished(hana, code, 1)["match"]

    hana.goto("/history")
    row = hana.get_by_test_id("history").locator(f"tr[data-match='{match['id']}']")
    expect(row.locator("td[data-label='Status']")).to_have_text("abandoned")
    # Her only match is abandoned: the overall leaderboard has nothing to count.
    expect(hana.get_by_test_id("leaderboard")).to_have_count(0)
    expect(hana.get_by_text("No finished matches yet.")).to_be_visible()
    check_screen(
        hana,
        artifacts,
        "abandoned-history-1280",
        scope="main",
        required=("[data-testid=history]",),
        vertical=False,
    )
    row.get_by_test_id("history-match-number").click()
    expect(hana.get_by_test_id("match-title")).to_be_visible()
    expect(hana.locator("main > p.muted").first).to_contain_text("abandoned")
    notice = hana.get_by_test_id("match-abandoned")
    expect(notice).to_have_text(
        "Abandoned: bots finished this match after every person had left."
        " It is not counted in the leaderboards."
    )
    check_screen(
        hana,
        artifacts,
        "abandoned-match-1280",
        scope="main",
        required=("[data-testid=match-abandoned]",),
        vertical=False,
    )

    hana.set_viewport_size(PHONE)
    hana.get_by_test_id("lang-switch").click()
    expect(notice).to_have_text(
        "中断：全員が席を離れた後、ボットがこの対戦を最後まで進めました。ランキングには数えません。"
    )
    check_screen(
        hana,
        artifacts,
        "abandoned-match-390",
        scope="main",
        required=("[data-testid=match-abandoned]",),
        vertical=False,
    )
    hana.goto("/history")
    expect(row.locator("td").nth(3)).to_have_text("中断")
    assert not hana.console_errors, hana.console_errors
