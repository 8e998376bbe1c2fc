"""The client and /docs work under the Content-Security-Policy, which
allows no inline script and no inline style: the table positions cards through the CSSOM and
draws them with JS, Swagger UI comes from this server, and neither page trips the policy
(Chromium reports every refusal as a console error)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, NewPerson
from tests.browser.pictures import save_picture
from tests.browser.test_platform_browser import LEGAL_CARDS, start_solo_table

pytestmark = pytest.mark.browser


def _csp_errors(errors: list[str]) -> list[str]:
    return [error for error in errors if "Content Security Policy" in error or "Refused to" in error]


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_a_table_plays_under_the_content_security_policy(
    new_person: NewPerson, artifacts: Path, viewport: dict[str, int] | None
) -> None:
    page = new_person(viewport=viewport)
    response = page.goto("/")
    assert response is not None
    policy = response.headers["content-security-policy"]
    assert "script-src 'self';" in policy and "style-src 'self';" in policy and "unsafe" not in policy
    start_solo_table(page, "Carol", seats=3, my_seats=[0])
    for _ in range(3):
        card = page.locator(LEGAL_CARDS).first
        expect(card).to_be_visible(timeout=20_000)
        card.click()
    played = page.locator(".felt .trick-play").first
    expect(played).to_be_visible()
    # The table places each play through element.style; a policy refusal would leave it unset.
    assert played.evaluate("el => el.style.zIndex") != ""
    save_picture(page, artifacts / f"csp-table-{'phone' if viewport else 'desktop'}.png")
    assert not _csp_errors(page.console_errors), page.console_errors  # type: ignore[attr-defined]
    assert not page.console_errors, page.console_errors  # type: ignore[attr-defined]


def test_the_api_reference_renders_offline_under_the_policy(new_person: NewPerson, artifacts: Path) -> None:
    page = new_person()
    outside: list[str] = []
    page.on(
        "request", lambda request: outside.append(request.url) if "127.0.0.1" not in request.url else None
    )
    page.goto("/docs")
    expect(page.locator(".opblock").first).to_be_visible()
    expect(page.get_by_text("/api/rooms/{code}/start")).to_be_visible()
    # An operation opened shows its parameters and response models (more of Swagger UI's styling).
    page.locator(".opblock-summary").first.click()
    expect(page.locator(".opblock-body").first).to_be_visible()
    save_picture(page, artifacts / "csp-docs.png")
    assert not outside, outside
    assert not page.console_errors, page.console_errors  # type: ignore[attr-defined]
