"""Face-up hands in a replay are legible: in each hand the next card never covers a card's rank
(a two-digit trump reads "11", not "1 1 1"), and a long hand's rows hold about as many cards each
(no row of two cards alone) on a laptop and on a phone."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, NewPerson
from tests.browser.layout import check_screen
from tests.browser.test_replay_browser import REQUIRED, bots_play_a_match

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1280, "height": 800}

HANDS_JS = """() => [...document.querySelectorAll("[data-testid=replay-hand]")].map((hand) => {
  const cards = [...hand.querySelectorAll(".card")].map((card) => {
    const box = card.getBoundingClientRect();
    const rank = card.querySelector(".card-rank").getBoundingClientRect();
    return { card: card.dataset.card, left: box.left, top: Math.round(box.top), rankRight: rank.right };
  });
  const rows = new Map();
  for (const card of cards) rows.set(card.top, [...(rows.get(card.top) || []), card]);
  return [...rows.values()];
})"""


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_replay_hands_show_every_cards_rank_and_rows_of_even_length(
    new_person: NewPerson, artifacts: Path, viewport: dict[str, int]
) -> None:
    page = new_person(viewport=viewport)
    match_id = bots_play_a_match(page, "Sora", "french-tarot", 3, hands=1)
    page.goto(f"/matches/{match_id}/replay")
    expect(page.get_by_test_id("replay-action")).to_have_text("Cards are dealt.")
    size = "phone" if viewport is PHONE else "laptop"
    check_screen(page, artifacts, f"replay-hands-{size}", scope="[data-testid=replay]", required=REQUIRED)
    hands = page.evaluate(HANDS_JS)
    assert len(hands) == 3
    for rows in hands:
        for row in rows:
            for card, covering in zip(row, row[1:], strict=False):
                covered = f"{covering['card']} covers the rank of {card['card']}"
                assert covering["left"] >= card["rankRight"], covered
        lengths = [len(row) for row in rows]
        assert max(lengths) - min(lengths) <= 1, f"uneven rows: {lengths}"
