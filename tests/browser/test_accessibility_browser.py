"""axe-core finds no violation, of any impact, on any page a person meets: the landing page
signed out and in (create a room, profile), the room lobby, a table mid-hand, the hand-result
dialog, history, the match page (score chart and review), a person's record, the replay page
and a rules page, in English and Japanese, at 1280×800 and 390×844; none scrolls sideways and,
on the phone, every control is big enough to tap. The table mid-hand in every game and phase,
at both sizes, is audited by the layout test (tests/browser/test_layout_browser.py) at each
decision it measures."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.accessibility import violations
from tests.browser.conftest import PHONE, NewPerson
from tests.browser.layout import screen_problems
from tests.browser.pictures import save_picture
from tests.browser.test_platform_browser import create_room, sign_up

pytestmark = pytest.mark.browser

LEGAL_CARDS = "[data-testid=hand] .card.is-legal"
RESULT = "[data-testid=hand-result]"
MY_TURN = "[data-testid=turn].my-turn"


class Audit:
    """Collects every page's violations so that one run reports all of them at once."""

    def __init__(self, artifacts: Path, tag: str) -> None:
        self.artifacts = artifacts
        self.tag = tag
        self.found: list[str] = []

    def __call__(self, page: Page, what: str) -> None:
        save_picture(page, self.artifacts / f"a11y-{self.tag}-{what}.png")
        self.found += [f"[{what}] {line}" for line in violations(page)]
        # The page's width, and on a phone its tap targets (the table's own screens are judged
        # in full by the layout test).
        self.found += [f"[{what}] {line}" for line in screen_problems(page, "main", (), vertical=False)]

    def assert_clean(self) -> None:
        assert not self.found, f"{len(self.found)} accessibility violations:\n" + "\n".join(self.found)


def _play_until_result(page: Page, timeout_s: float = 150) -> None:
    deadline = time.monotonic() + timeout_s
    while not page.locator(RESULT).count():
        assert time.monotonic() < deadline, "no hand result in time"
        if page.locator(MY_TURN).count() and not page.locator(".table-pending").count():
            with contextlib.suppress(Exception):  # the table redrew under the click: look again
                page.locator(LEGAL_CARDS).first.click(timeout=2000, position={"x": 6, "y": 24})
        else:
            page.wait_for_timeout(30)


@pytest.mark.parametrize("size", ["laptop", "phone"])
@pytest.mark.parametrize("locale", ["en-GB", "ja-JP"])
def test_every_page_has_no_accessibility_violation(
    new_person: NewPerson,
    artifacts: Path,
    locale: str,
    size: str,
) -> None:
    audit = Audit(artifacts, f"{locale}-{size}")
    page = new_person(viewport=PHONE if size == "phone" else {"width": 1280, "height": 800}, locale=locale)
    page.goto("/")
    expect(page.get_by_test_id("name-form")).to_be_visible()
    audit(page, "landing")
    sign_up(page, "Ada")
    expect(page.get_by_test_id("create-room")).to_be_visible()
    audit(page, "create-room-and-profile")

    create_room(page, "holy-grail", seats=4, hands=1)
    expect(page.get_by_test_id("take-0")).to_be_visible()
    audit(page, "room-lobby")
    page.get_by_test_id("take-0").click()
    page.get_by_test_id("fill-bots").click()
    expect(page.locator(".seat-row.empty")).to_have_count(0)
    page.get_by_test_id("start").click()
    expect(page.locator("[data-testid=hand] .card").first).to_be_visible()
    expect(page.locator(MY_TURN)).to_be_visible(timeout=30_000)  # the bots may lead first
    audit(page, "table")

    _play_until_result(page)
    expect(page.locator(RESULT)).to_be_visible()
    audit(page, "result")
    page.locator(RESULT).locator("button.primary").first.click()

    page.goto("/history")
    expect(page.get_by_test_id("history")).to_be_visible()
    audit(page, "history")
    page.get_by_test_id("history").locator('a[href^="/matches/"]').first.click()
    expect(page.get_by_test_id("match-hands")).to_be_visible()
    # The match page with its score chart and, once the server has analysed Ada's seat, her review.
    expect(page.get_by_test_id("match-chart-plot")).to_have_attribute("data-drawn", "true")
    expect(page.get_by_test_id("review-person")).to_be_visible(timeout=120_000)
    audit(page, "match")
    match_path = page.url.split("://", 1)[1].split("/", 1)[1]
    page.get_by_test_id("ranking").locator("a.person-link").first.click()
    expect(page.get_by_test_id("record-chart-plot")).to_have_attribute("data-drawn", "true")
    audit(page, "record")
    page.goto(f"/{match_path}/replay")
    expect(page.locator(".felt")).to_be_visible()
    audit(page, "replay")
    page.goto("/rules/fairy-500")
    expect(page.locator("article.rules")).to_be_visible()
    audit(page, "rules")
    audit.assert_clean()
