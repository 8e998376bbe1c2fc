"""A redraw changes only what differs (static/js/dom.js, `morph`): the table builds its whole
drawing for every state message, and the nodes that stay the same are kept, so the browser
styles, lays out and paints again only what moved. A kept node must then act exactly as the new
drawing's copy of it would: its handlers are the latest drawing's, its inline style is set
through the CSSOM (the page's Content-Security-Policy blocks a written style attribute), and an
element the caller keeps (the chat dock) is left as it is, a half-typed line included."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import NewPerson
from tests.browser.test_platform_browser import start_solo_table

pytestmark = pytest.mark.browser

LEGAL_CARDS = "[data-testid=hand] .card.is-legal"
MY_TURN = "[data-testid=turn].my-turn"

MORPH_JS = """async () => {
  const { h, morph } = await import("/static/js/dom.js");
  const blocked = [];
  document.addEventListener("securitypolicyviolation", (event) => blocked.push(event.violatedDirective));
  const root = h("div", { "data-testid": "morph-root" });
  const dock = h("aside", { class: "dock" }, h("input", { "aria-label": "line" }));
  document.body.append(root);
  const clicks = [];
  const draw = (n, extra) => morph(root, [
    h("p", { class: ["title", n > 1 && "again"] }, `Hand ${n}`),
    dock,
    h("button", { class: "act", onclick: () => clicks.push(n), style: { color: n > 1 ? "blue" : "red" } },
      "Play"),
    extra ? h("span", { class: "extra", title: "only at first" }, "x") : null,
  ], dock);
  draw(1, true);
  const [title, , button] = root.children;
  dock.querySelector("input").value = "half a line";
  draw(2, false);
  draw(3, false);
  button.click();
  await new Promise((resolve) => setTimeout(resolve, 50));
  return {
    titleKept: root.children[0] === title,
    titleText: title.textContent,
    titleClass: title.className,
    dockKept: root.children[1] === dock,
    typed: dock.querySelector("input").value,
    buttonKept: root.children[2] === button,
    colour: getComputedStyle(button).color,
    clicks,
    children: root.children.length,
    blocked,
  };
}"""


def test_morph_keeps_unchanged_nodes_with_the_latest_handlers_and_style(new_person: NewPerson) -> None:
    page = new_person()
    page.goto("/")
    expect(page.get_by_test_id("name-form")).to_be_visible()
    result = page.evaluate(MORPH_JS)
    assert result == {
        "titleKept": True,
        "titleText": "Hand 3",
        "titleClass": "title again",
        "dockKept": True,
        "typed": "half a line",
        "buttonKept": True,
        "colour": "rgb(0, 0, 255)",  # the latest drawing's style, set without a style attribute
        "clicks": [3],  # one handler, the latest drawing's
        "children": 3,  # the span the later drawings left out is gone
        "blocked": [],
    }


def test_bots_moves_redraw_the_felt_and_keep_the_hand_and_the_seats(new_person: NewPerson) -> None:
    """Between one of Ada's turns and the next, three bots play and the felt changes, but her
    hand's box, the cards she still holds and the seat boxes are the same elements."""
    page = new_person()
    start_solo_table(page, "Ada", seats=4, my_seats=[0], game="holy-grail")
    expect(page.locator(MY_TURN)).to_be_visible(timeout=30_000)
    page.evaluate(
        """() => {
          window.probe = {
            hand: document.querySelector("[data-testid=hand]"),
            cards: [...document.querySelectorAll("[data-testid=hand] .card")],
            seats: [...document.querySelectorAll(".felt .seat")],
          };
        }"""
    )
    held = page.locator("[data-testid=hand] .card").count()
    page.locator(LEGAL_CARDS).first.click(position={"x": 6, "y": 24})
    expect(page.locator("[data-testid=hand] .card")).to_have_count(held - 1)
    # The three bots' cards reach the felt (or the trick is finished) and it is Ada's turn again.
    expect(page.locator(MY_TURN)).to_be_visible(timeout=30_000)
    kept = page.evaluate(
        """() => {
          const now = [...document.querySelectorAll("[data-testid=hand] .card")];
          return {
            hand: window.probe.hand === document.querySelector("[data-testid=hand]"),
            cards: now.every((card, i) => card === window.probe.cards[i]),
            seats: [...document.querySelectorAll(".felt .seat")]
              .every((seat, i) => seat === window.probe.seats[i]),
          };
        }"""
    )
    assert kept == {"hand": True, "cards": True, "seats": True}
    # The kept cards still play: Ada's next card reaches the felt.
    page.locator(LEGAL_CARDS).first.click(position={"x": 6, "y": 24})
    expect(page.locator("[data-testid=hand] .card")).to_have_count(held - 2)
