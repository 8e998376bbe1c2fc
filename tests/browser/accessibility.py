"""axe-core's audit of a page, shared by every browser test that judges accessibility.

`check_accessibility(page, what)` runs every rule axe enables by default (WCAG 2.0-2.2 A and AA
and axe's best practices, and the check that a control's name contains its visible text) on the
page as it is now and fails on any violation of any impact, listing each rule with the elements
it found. axe-core's own script comes with the
`axe-playwright-python` package (the project's `test` extra), so nothing is fetched at run time;
Playwright evaluates it through the DevTools protocol, which the page's Content-Security-Policy
does not govern. It is injected once per document (the package's own `Axe.run` injects its half a
megabyte again at every audit) and only the violations come back, not axe's whole report.
"""

from __future__ import annotations

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

AXE_SCRIPT = Axe().axe_script

# Every rule axe runs by default, plus one it still calls experimental: a control's spoken name
# must contain its visible text (a card reading "4" must not be named only "Major 4").
OPTIONS = {"resultTypes": ["violations"], "rules": {"label-content-name-mismatch": {"enabled": True}}}


def violations(page: Page) -> list[str]:
    """One line per element axe finds at fault: rule, impact, the element and what to fix."""
    if page.evaluate("typeof axe === 'undefined'"):
        page.evaluate(AXE_SCRIPT)
    found = page.evaluate(
        "(options) => axe.run(document, options).then((results) => results.violations)", OPTIONS
    )
    lines = []
    for rule in found:
        for node in rule["nodes"]:
            target = " ".join(str(part) for part in node["target"])
            summary = " ".join(node.get("failureSummary", "").split())
            lines.append(f"{rule['id']} ({rule['impact']}): {target} -- {summary[:300]}")
    return lines


def check_accessibility(page: Page, what: str) -> None:
    """Fail with every axe violation found on the page as it is now."""
    found = violations(page)
    assert not found, f"{what}: {len(found)} accessibility violations\n" + "\n".join(found)
