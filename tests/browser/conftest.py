"""Fixtures for browser tests: the real server on a free port, headless Chromium, and one
browser context per person (so each has their own session cookie, like separate devices).

Nothing is installed here: the test script installs Debian's Chromium (with its headless shell),
the CJK fonts and the Python dependencies before pytest runs. Screenshots go to test-artifacts/
(gitignored)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Playwright, expect, sync_playwright

from tests.browser.pictures import save_picture
from tests.browser.server_fork import ServerForks
from tests.servers import AppServer

PROJECT_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = PROJECT_ROOT / "test-artifacts"
CHROMIUM = (
    os.environ.get("CARDTABLE_TEST_CHROMIUM")
    or shutil.which("chromium-headless-shell")
    or "/usr/bin/chromium"
)
"""Debian's Chromium as its headless shell (package chromium-headless-shell: the same Blink,
without the windowed browser's layers; what Playwright itself runs for headless tests): 19
browser tests, run in turn with each, took 20% less time and 22% less CPU with it
(docs/BENCHMARKS.md, "The test suite"). CARDTABLE_TEST_CHROMIUM=/usr/bin/chromium runs the tests
in the full browser, which the set-up installs too."""
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
SERVER_START_TIMEOUT_S = 60
DEAL_SEED = 7
"""Every test's server deals from this seed (CARDTABLE_DEAL_SEED), so a layout check sees the same
cards on every run; `@pytest.mark.deal_seed(n)` gives a test another one (a deal that once broke
a layout), and CARDTABLE_DEAL_SEED in the environment overrides both (to try other deals)."""
BOT_LEVEL = "basic"
"""The bots' level in every test's server (CARDTABLE_BOT_LEVEL). A basic bot's move follows from
the deal seed and the match (app/live/chance.py), so with seeded deals every run plays the same
cards, not only deals them: a layout check sees the same felt each time. A strong bot searches
for a wall-clock budget, so its moves change with the machine's load (the suite's bots and
reviews took about 60 of its browser pass's 630 CPU-seconds with strong bots, 28 with basic
ones). Strong bots are the server's business and the api tests' (tests/api/test_bot_levels.py,
test_bot_pool.py); a browser test that needs the product's default asks for it with
`@pytest.mark.server_env(CARDTABLE_BOT_LEVEL="strong")`."""


EXPECT_TIMEOUT_MS = 10_000
"""How long an `expect(...)` waits by default: Playwright's 5 s is short for a bot's move or a
redraw on the shared 2-core machine while the other pass runs beside this one; a passing check
still returns the moment its condition holds."""
expect.set_options(timeout=EXPECT_TIMEOUT_MS)

REDUCED_MOTION = "reduce"
"""Every page a test opens asks for reduced motion (`prefers-reduced-motion`), as a person may:
the table then draws each state as it is, without flying cards over it (static/js/motion.js),
and the pages of the browser pass cost the renderer less (the flights, the gathering tricks and
the dealt hands are frames of their own). What the tests check of a drawing is the same (the
layout checks finish every animation before they look). A test of the motion itself opts in
with `@pytest.mark.with_motion`; a context can still pass `reduced_motion=` itself."""


def screenshot_section(page: Page, test_id: str, path: Path) -> None:
    """Save a picture of one part of the page (`data-testid`), scrolled into view.

    Pages such as the room's lobby draw their sections again on every table event, so a
    Playwright element screenshot, which waits for its element to be stable, can find it
    replaced; one script in the page finds and measures whichever copy is attached, and the
    page's picture is cut to that box."""
    box = page.evaluate(
        """(id) => {
            const section = document.querySelector(`[data-testid="${id}"]`);
            section.scrollIntoView({ block: "center" });
            const r = section.getBoundingClientRect();
            const [x, y] = [r.left + window.scrollX, r.top + window.scrollY];
            return { x, y, width: r.width, height: r.height };
        }""",
        test_id,
    )
    save_picture(page, path, full_page=True, clip=box)


SERVER_FORKS = ServerForks()
"""This test process's parent of servers (tests/browser/server_fork.py)."""


class ServerProcess(AppServer):
    """The server (what `python -m app` runs, forked from a parent that has imported it: see
    tests/browser/server_fork.py) on a port of its own with the browser tests' settings; it can
    be stopped and started again (the same database and port), which is how a test simulates a
    server restart. `env` holds its environment, which a fixture may change before `start`."""

    def __init__(self, database_url: str, log_dir: Path, deal_seed: int = DEAL_SEED, **env: str) -> None:
        settings = {
            "CARDTABLE_BOT_DELAY": "0.02",
            "CARDTABLE_BOT_BUDGET": "0.01",
            "CARDTABLE_BOT_WORKERS": "1",
            "CARDTABLE_BOT_LEVEL": BOT_LEVEL,
            # Seeded deals: a layout check sees the same cards on every run.
            "CARDTABLE_DEAL_SEED": os.environ.get("CARDTABLE_DEAL_SEED", str(deal_seed)),
            # The test database is a clone of a migrated, seeded template: skip Alembic at start.
            "CARDTABLE_MIGRATE_ON_START": "false",
            **env,
        }
        super().__init__(
            database_url,
            workdir=log_dir,
            env=settings,
            name="server",
            spawn=SERVER_FORKS.start,
            start_timeout=SERVER_START_TIMEOUT_S,
            stop_timeout=10,
        )


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def server_process(
    database_url: str, artifacts: Path, request: pytest.FixtureRequest
) -> Iterator[ServerProcess]:
    """The real app on a free port against this test's fresh database (stop/start to restart)."""
    logs = artifacts / "server-logs"
    logs.mkdir(exist_ok=True)
    seed = request.node.get_closest_marker("deal_seed")
    env = request.node.get_closest_marker("server_env")
    process = ServerProcess(database_url, logs, *(seed.args if seed else ()), **(env.kwargs if env else {}))
    process.start()
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture
def server(server_process: ServerProcess) -> str:
    """The base URL of the real app (see `server_process`)."""
    return server_process.base_url


class SharedChromium:
    """One headless Chromium per test process, launched by the first browser test and reused by
    the next ones (a launch, with Playwright's driver, costs about a second of CPU, and the suite
    is CPU-bound); every test still gets fresh contexts, so no cookie or page carries over.

    Playwright's sync API keeps an asyncio loop marked as running in this thread while it lives,
    and asyncio code (the async API tests, when one pytest run mixes folders) cannot run beside
    it: `stop()` is called before any test outside tests/browser (tests/conftest.py) and when
    the session ends."""

    def __init__(self) -> None:
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None

    def get(self) -> Browser:
        if self._browser is not None and not self._browser.is_connected():
            self.stop()  # it crashed or was killed: start a new one rather than fail every test after
        if self._browser is None:
            self._playwright = sync_playwright().start()
            self._browser = self._playwright.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
            )
        return self._browser

    def stop(self) -> None:
        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = None
        try:
            if browser is not None and browser.is_connected():
                browser.close()
        finally:
            if playwright is not None:
                playwright.stop()


SHARED_CHROMIUM = SharedChromium()


def pytest_sessionfinish() -> None:
    SHARED_CHROMIUM.stop()
    SERVER_FORKS.stop()


@pytest.fixture
def browser(server: str) -> Browser:
    """Debian's Chromium, headless (Playwright cannot download its own browser here), shared by
    the browser tests of this process (`SharedChromium`). Asked for after the server, so the
    session's database template (made with asyncio) exists before Playwright's loop starts."""
    return SHARED_CHROMIUM.get()


NewPerson = Callable[..., Page]


@pytest.fixture
def new_person(browser: Browser, server: str, request: pytest.FixtureRequest) -> Iterator[NewPerson]:
    """Factory: a fresh browser context (its own cookies, like another device) and its page.

    `new_person(viewport=PHONE, locale="ja-JP")`, other context options as keywords
    (`has_touch=True`: a touch screen); pages resolve paths against the server, so
    `page.goto("/")` works. Browser console errors are collected on `page.console_errors`.
    Motion is reduced unless the test is marked `with_motion` (`REDUCED_MOTION`).
    """
    contexts = []
    motion = "no-preference" if request.node.get_closest_marker("with_motion") else REDUCED_MOTION

    def make(viewport: dict[str, int] | None = None, locale: str = "en-GB", **options: Any) -> Page:
        options.setdefault("reduced_motion", motion)
        context = browser.new_context(base_url=server, viewport=viewport or DESKTOP, locale=locale, **options)
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []

        def on_console(message: ConsoleMessage) -> None:
            # A 401 from GET /api/me is how the client learns nobody is signed in yet.
            if message.type == "error" and "status of 401" not in message.text:
                errors.append(message.text)

        page.on("console", on_console)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.console_errors = errors  # type: ignore[attr-defined]
        return page

    yield make
    for context in contexts:
        context.close()
