"""One screen per decision: the shared bounding-box checks every layout test uses.

`check_screen(page, ...)` looks at the page as a person sees it without scrolling (it scrolls back
to the top first, since Playwright's clicks scroll, and finishes the table's card animations, so
it judges where the cards rest) and fails when:
- the page scrolls sideways;
- a required element (the hand and each of its cards, the turn line, every enabled button,
  select and input on the table) is not wholly inside the viewport (a folded information section,
  a <summary>, is not a decision's control and may sit in the panel's scroll area);
- two pieces of text, or a text and a card, or two cards overlap. Cards drawn as a fan on
  purpose (a hand too long for its rows, a multi-card play on the felt) may overlap each other,
  but each must keep a strip wide enough to read its corner;
- a text is cut with an ellipsis (a seat name shortened to "…");
- a table is wider than the screen without a scroll container of its own;
- on a phone (a viewport under 700 px wide), any box scrolls sideways (a result table too);
- on a phone, a control, link or summary is smaller than 44x44 CSS
  px to tap (WCAG 2.5.5's size; a card of a fanned hand counts the strip that shows, which must be
  24 px wide: WCAG 2.5.8's minimum, since a long hand cannot give each card 44 px on a phone).
Each check also saves a screenshot (test-artifacts/, not committed).
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page

from tests.browser.pictures import save_picture

# Cards that overlap on purpose still show this much of their left edge (rank and suit).
MIN_FAN_STRIP_PX = 14
# The smallest tap target on a phone, and the smallest strip of a fanned card to tap.
MIN_TAP_PX = 44
MIN_FAN_TAP_PX = 24
PHONE_WIDTH_BELOW = 700

MEASURE_JS = (Path(__file__).parent / "layout.js").read_text()

# The box of the element `selector` finds now, measured in one step of the page, so a redraw
# cannot replace the element between finding and measuring it (a locator's bounding_box can).
BOX_JS = """(selector) => {
  const r = document.querySelector(selector).getBoundingClientRect();
  return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width};
}"""

TABLE_REQUIRED = ("[data-testid=hand]", "[data-testid=hand] .card", "[data-testid=turn]")


def screen_problems(
    page: Page,
    scope: str = "[data-testid=table]",
    required: tuple[str, ...] = TABLE_REQUIRED,
    vertical: bool = True,
) -> list[str]:
    """Every break of the one-screen rules above under `scope` (or an open dialog), one line each."""
    phone = page.viewport_size is not None and page.viewport_size["width"] < PHONE_WIDTH_BELOW
    arguments = {
        "scope": scope,
        "required": list(required),
        "minStrip": MIN_FAN_STRIP_PX,
        "vertical": vertical,
        "minTap": MIN_TAP_PX if phone else 0,
        "minFanTap": MIN_FAN_TAP_PX,
    }
    return list(dict.fromkeys(page.evaluate(MEASURE_JS, arguments)))


def check_screen(
    page: Page,
    artifacts: Path,
    shot: str,
    scope: str = "[data-testid=table]",
    required: tuple[str, ...] = TABLE_REQUIRED,
    vertical: bool = True,
) -> None:
    """Assert the one-screen rules above for everything under `scope` (or an open dialog) and
    save `shot`.png; the message lists every problem found at once. `vertical=False` is for a
    page that may scroll down (a long history): then only the width is judged."""
    problems = screen_problems(page, scope, required, vertical)
    save_picture(page, artifacts / f"{shot}.png")
    assert not problems, f"{shot}:\n" + "\n".join(problems)
