"""The browser tests' screenshots, saved for people to look at, for less CPU than Playwright's.

Playwright's `page.screenshot` asks Chromium for a PNG compressed for size, and around every
picture it restyles each frame of the page twice (to hide the text caret, then to show it
again). The suite saves about four hundred pictures, which nothing compares: they are there to
be opened and judged. Chromium's own `optimizeForSpeed` PNG gives the very same pixels (compared
decoded, on a table page at both sizes, whole page, window and a cut box) in a file about 70%
larger, for 35-60% less CPU (docs/BENCHMARKS.md, "Screenshots for less CPU"), so the
pictures are taken through the DevTools protocol with it. The caret is left as a person would
see it.

A picture changes nothing in the page. Playwright's left an empty `style` attribute on the chat
input, so the layout tests' play loop, which discards a failed check when the table's markup
changed meanwhile (the bots moved on), discarded every failed first look at a decision: the
Fairy 500 bidding screen's faults were found only once the pictures were taken this way.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import TypedDict

from playwright.sync_api import CDPSession, Page


class Box(TypedDict):
    """A rectangle of the page, in CSS pixels from the top left of the document."""

    x: float
    y: float
    width: float
    height: float


PAGE_SIZE = """async () => {
    await document.fonts.ready;
    const body = document.body, root = document.documentElement;
    return {
        width: Math.max(body.scrollWidth, root.scrollWidth, body.offsetWidth, root.offsetWidth,
                        body.clientWidth, root.clientWidth),
        height: Math.max(body.scrollHeight, root.scrollHeight, body.offsetHeight, root.offsetHeight,
                         body.clientHeight, root.clientHeight),
        viewportWidth: window.innerWidth,
        viewportHeight: window.innerHeight,
        touch: navigator.maxTouchPoints > 0,
    };
}"""
"""What a whole-page picture needs: the document's size as Playwright measures it (once the
page's fonts have loaded, as Playwright waits for them too), and whether the page has touch."""


def _session(page: Page) -> CDPSession:
    """One DevTools session per page, opened at its first picture."""
    session: CDPSession | None = getattr(page, "_pictures_session", None)
    if session is None:
        session = page.context.new_cdp_session(page)
        page._pictures_session = session  # type: ignore[attr-defined]
    return session


def _trim(box: Box, width: float, height: float) -> Box:
    """The part of `box` inside the document (Playwright refuses an empty one, and so do we)."""
    left, top = max(0.0, min(box["x"], width)), max(0.0, min(box["y"], height))
    right = max(0.0, min(box["x"] + box["width"], width))
    bottom = max(0.0, min(box["y"] + box["height"], height))
    assert right > left and bottom > top, f"the picture's box {box} is outside the page"
    return {"x": left, "y": top, "width": right - left, "height": bottom - top}


def save_picture(page: Page, path: Path | str, *, full_page: bool = False, clip: Box | None = None) -> None:
    """Save a PNG of what the page shows, like `page.screenshot(path=…, full_page=…, clip=…)`:
    the viewport, or with `full_page` the whole document (`clip` cuts a box of it)."""
    params: dict[str, object] = {"format": "png", "optimizeForSpeed": True}
    if full_page:
        size = page.evaluate(PAGE_SIZE)
        box: Box = {"x": 0, "y": 0, "width": size["width"], "height": size["height"]}
        if clip is not None:
            box = _trim(clip, size["width"], size["height"])
        beyond = size["width"] > size["viewportWidth"] or size["height"] > size["viewportHeight"]
        if beyond and size["touch"]:
            # Chromium turns a touch screen's emulation off for a picture beyond the viewport,
            # and Playwright turns it on again in its own session: leave such (rare) pictures
            # to Playwright, so the page's next taps stay touches.
            page.screenshot(path=str(path), full_page=True, clip=clip)
            return
        params |= {"clip": {**box, "scale": 1}, "captureBeyondViewport": beyond}
    else:
        page.evaluate("() => document.fonts.ready.then(() => true)")
    data = _session(page).send("Page.captureScreenshot", params)["data"]
    Path(path).write_bytes(base64.b64decode(data))
