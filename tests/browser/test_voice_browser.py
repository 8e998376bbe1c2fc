"""Voice at the table, in real browsers: Chromium's fake microphone (a beep, or a silent file),
WebRTC between pages on loopback, the app's server relaying only the signalling.

Three people who join voice each receive the other two's audio (the page's own
`RTCPeerConnection.getStats()`: inbound audio packets growing, a non-zero audio level); muting
one stops their audio at the others; leaving voice, leaving the room and signing out each take a
person out of every other's mesh; the speaking ring lights on the seat of the one whose
microphone plays; two server processes sharing one database connect people whose sockets are on
different processes; with Debian's coturn and relay-only ICE, audio flows through TURN on
credentials the server issued, and coturn refuses expired ones."""

from __future__ import annotations

import json
import os
import shutil
import socket
import struct
import subprocess
import time
import wave
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from app.live.voice import turn_credentials
from tests.browser.accessibility import check_accessibility
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, REDUCED_MOTION, SHARED_CHROMIUM, ServerProcess
from tests.browser.layout import check_screen
from tests.browser.pictures import save_picture
from tests.browser.test_platform_browser import create_room, sign_up

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
MEDIA_ARGS = [
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--allow-loopback-in-peer-connection",
    "--autoplay-policy=no-user-gesture-required",
]
TURN_SECRET = "voice-test-shared-secret"
TURN_REALM = "cardtable.test"

PEERS_JS = """async () => {
  const { activeVoice } = await import("/static/js/voice.js");
  const out = {};
  if (!activeVoice) return out;
  for (const [id, entry] of activeVoice.peers) {
    const stats = await entry.pc.getStats();
    const row = { state: entry.pc.connectionState, packets: 0, level: 0, energy: 0 };
    const byId = new Map();
    stats.forEach((s) => byId.set(s.id, s));
    stats.forEach((s) => {
      if (s.type === "inbound-rtp" && s.kind === "audio") {
        row.packets = s.packetsReceived || 0;
        row.level = s.audioLevel || 0;
        row.energy = s.totalAudioEnergy || 0;
        row.codec = s.codecId && byId.get(s.codecId) ? byId.get(s.codecId).mimeType : null;
      }
      if (s.type === "transport" && s.selectedCandidatePairId) {
        const pair = byId.get(s.selectedCandidatePairId);
        if (pair) {
          row.local = (byId.get(pair.localCandidateId) || {}).candidateType || null;
          row.remote = (byId.get(pair.remoteCandidateId) || {}).candidateType || null;
        }
      }
    });
    out[id] = row;
  }
  return out;
}"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def silent_wav(path: Path, seconds: float = 2.0, rate: int = 48_000) -> Path:
    """A wav of silence, for a fake microphone that says nothing."""
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"\0\0" * int(seconds * rate))
    return path


class MediaBrowsers:
    """Chromium launched with the fake microphone (the shared test browser has no media flags):
    one browser whose microphone beeps and, on demand, one whose microphone is silent."""

    def __init__(self, silence: Path) -> None:
        SHARED_CHROMIUM.stop()  # one Playwright per thread
        self.playwright = sync_playwright().start()
        self.silence = silence
        self.browsers: dict[str, Browser] = {}

    def get(self, microphone: str) -> Browser:
        if microphone not in self.browsers:
            args = CHROMIUM_ARGS + MEDIA_ARGS
            if microphone == "silent":
                args = [*args, f"--use-file-for-fake-audio-capture={self.silence}"]
            self.browsers[microphone] = self.playwright.chromium.launch(
                executable_path=CHROMIUM, args=args, headless=True
            )
        return self.browsers[microphone]

    def close(self) -> None:
        try:
            for browser in self.browsers.values():
                browser.close()
        finally:
            self.playwright.stop()


Person = Callable[..., Page]


@pytest.fixture
def media(tmp_path: Path) -> Iterator[MediaBrowsers]:
    browsers = MediaBrowsers(silent_wav(tmp_path / "silence.wav"))
    try:
        yield browsers
    finally:
        browsers.close()


@pytest.fixture
def person(server: str, media: MediaBrowsers) -> Iterator[Person]:
    """A person in their own browser context, the microphone allowed: `person(viewport=…,
    microphone="beep" | "silent", base_url=…)`."""
    contexts = []

    def make(
        viewport: dict[str, int] | None = None, microphone: str = "beep", base_url: str | None = None
    ) -> Page:
        context = media.get(microphone).new_context(
            base_url=base_url or server,
            viewport=viewport or LAPTOP,
            locale="en-GB",
            reduced_motion=REDUCED_MOTION,
        )
        context.grant_permissions(["microphone"])
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.page_errors = errors  # type: ignore[attr-defined]
        return page

    yield make
    for context in contexts:
        context.close()


def seated_table(pages: list[Page], names: list[str]) -> None:
    """The first page creates a Holy Grail room, everyone takes a seat (bots fill a table of
    three), the match starts."""
    sign_up(pages[0], names[0])
    invite = create_room(pages[0], "holy-grail", seats=max(3, len(pages)), hands=1)
    for page, name in zip(pages[1:], names[1:], strict=True):
        sign_up(page, name, path=invite)
    for n, page in enumerate(pages):
        page.get_by_test_id(f"take-{n}").click()
        expect(pages[0].locator(f".seat-row[data-seat='{n}'] .seat-who")).to_contain_text(names[n])
    if len(pages) < 3:
        pages[0].get_by_test_id("fill-bots").click()
        expect(pages[0].locator(".seat-row.empty")).to_have_count(0)
    pages[0].get_by_test_id("start").click()
    for page in pages:
        expect(page.get_by_test_id("felt")).to_be_visible()


def me(page: Page) -> int:
    return int(page.evaluate("async () => (await (await fetch('/api/me')).json()).id"))


def join_voice(page: Page) -> None:
    page.get_by_test_id("voice-join").first.click()
    expect(page.get_by_test_id("voice-mute").first).to_be_visible()


def peers(page: Page) -> dict[int, dict[str, Any]]:
    return {int(k): v for k, v in page.evaluate(PEERS_JS).items()}


def wait_for(check: Callable[[], Any], what: str, timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.25)
    raise AssertionError(f"{what}: not within {timeout} s (last: {last!r})")


def hears(page: Page, others: list[int], seconds: float = 3.0) -> dict[int, dict[str, float]]:
    """Over `seconds`, per other person: packets received, the loudest audio level seen and the
    audio energy received (zero for someone silent)."""
    first = peers(page)
    loudest = {pid: 0.0 for pid in others}
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        now = peers(page)
        for pid in others:
            loudest[pid] = max(loudest[pid], (now.get(pid) or {}).get("level", 0))
        time.sleep(0.1)
    last = peers(page)
    return {
        pid: {
            "packets": (last.get(pid) or {}).get("packets", 0) - (first.get(pid) or {}).get("packets", 0),
            "level": loudest[pid],
            "energy": (last.get(pid) or {}).get("energy", 0) - (first.get(pid) or {}).get("energy", 0),
        }
        for pid in others
    }


def wait_until_hearing(page: Page, others: list[int]) -> None:
    def check() -> bool:
        heard = hears(page, others, 1.5)
        return all(h["packets"] > 0 and h["level"] > 0 for h in heard.values()) and heard

    wait_for(check, "every other person's audio arriving")


def test_three_people_in_voice_hear_each_other_and_muting_one_silences_them(
    person: Person, artifacts: Path
) -> None:
    ada, ben, cy = person(viewport=LAPTOP), person(viewport=LAPTOP), person(viewport=PHONE)
    seated_table([ada, ben, cy], ["Ada", "Ben", "Cy"])
    ids = {name: me(page) for name, page in (("Ada", ada), ("Ben", ben), ("Cy", cy))}
    assert peers(ada) == {}  # voice is off until a person joins
    for page in (ada, ben, cy):
        join_voice(page)
    pages = {"Ada": ada, "Ben": ben, "Cy": cy}
    for name, page in pages.items():
        others = [pid for other, pid in ids.items() if other != name]
        wait_until_hearing(page, others)
        heard = hears(page, others)
        assert all(h["packets"] > 10 and h["level"] > 0 for h in heard.values()), (name, heard)
        assert {row["codec"] for row in peers(page).values()} == {"audio/opus"}
    # Everyone's seat shows the microphone, on every screen; the lobby lists who is in voice.
    for page in pages.values():
        expect(page.locator(".seat.in-voice")).to_have_count(3)
    expect(ada.get_by_test_id("voice-who")).to_contain_text("Ben")

    # Ada mutes with the M key: her audio stops at Ben's and Cy's, Ben's does not.
    ada.evaluate("document.activeElement && document.activeElement.blur()")
    ada.keyboard.press("m")
    expect(ada.get_by_test_id("voice-mute").first).to_have_attribute("aria-pressed", "true")
    expect(ben.locator(f".seat[data-person='{ids['Ada']}'].voice-muted")).to_have_count(1)
    # The last unmuted packets drain: the receivers' level meter falls to zero (under load it
    # read one step above zero for more than a second after the mute).
    wait_for(
        lambda: all((peers(page).get(ids["Ada"]) or {}).get("level", 1) == 0 for page in (ben, cy)),
        "Ada's audio level falling to zero at Ben's and Cy's",
    )
    for page, other in ((ben, ids["Cy"]), (cy, ids["Ben"])):
        heard = hears(page, [ids["Ada"], other])
        assert heard[ids["Ada"]]["packets"] > 0, heard  # still connected, sending silence
        assert heard[ids["Ada"]]["level"] == 0 and heard[ids["Ada"]]["energy"] < 1e-6, heard
        assert heard[other]["level"] > 0, heard
    ada.get_by_test_id("voice-mute").first.click()
    wait_until_hearing(ben, [ids["Ada"]])

    # A volume per person, kept for the next visit.
    ben.get_by_test_id("voice-volumes").first.click()
    slider = ben.locator(f"[data-testid=voice-volume][data-person='{ids['Ada']}']")
    slider.fill("0.3")
    assert ben.evaluate(
        f"async () => (await import('/static/js/voice.js')).activeVoice.peers.get({ids['Ada']}).audio.volume"
    ) == pytest.approx(0.3)
    save_picture(ben, artifacts / "voice-volumes-laptop.png")
    check_accessibility(ben, "the table in voice, volumes open")
    check_accessibility(cy, "the phone's table in voice")
    ben.keyboard.press("Escape")
    expect(ben.get_by_test_id("voice-panel")).to_have_count(0)

    # In voice, the table still fits one screen at both sizes, every control within reach.
    check_screen(ada, artifacts, "voice-table-laptop")
    check_screen(cy, artifacts, "voice-table-phone")
    hand = cy.get_by_test_id("hand").bounding_box()
    tools = cy.locator(".table-tools .voice-tools").bounding_box()
    assert hand is not None and tools is not None
    assert tools["y"] + tools["height"] <= hand["y"] and tools["y"] + tools["height"] <= PHONE["height"]
    # On the phone, leaving is in the volumes panel (the status line keeps its room).
    cy.get_by_test_id("voice-volumes").first.click()
    cy.get_by_test_id("voice-panel-leave").click()
    expect(cy.get_by_test_id("voice-join").first).to_be_visible()
    wait_for(lambda: set(peers(ada)) == {ids["Ben"]}, "Cy out of Ada's mesh")
    for page in pages.values():
        assert page.page_errors == []  # type: ignore[attr-defined]


def test_leaving_voice_leaving_the_room_and_signing_out_take_a_person_out_of_every_mesh(
    person: Person, artifacts: Path
) -> None:
    ada, ben, cy = person(), person(), person()
    seated_table([ada, ben, cy], ["Ada", "Ben", "Cy"])
    ids = {name: me(page) for name, page in (("Ada", ada), ("Ben", ben), ("Cy", cy))}
    for page in (ada, ben, cy):
        join_voice(page)

    def meshed(page: Page, expected: set[int]) -> None:
        wait_for(
            lambda: (
                set(peers(page)) == expected
                and all(row["state"] == "connected" for row in peers(page).values())
            ),
            f"the mesh being {expected}",
        )

    meshed(ada, {ids["Ben"], ids["Cy"]})
    meshed(cy, {ids["Ada"], ids["Ben"]})

    cy.get_by_test_id("voice-leave").first.click()
    meshed(ada, {ids["Ben"]})
    meshed(ben, {ids["Ada"]})
    assert peers(cy) == {}
    expect(ada.locator(f".seat[data-person='{ids['Cy']}'].in-voice")).to_have_count(0)

    join_voice(cy)
    meshed(ada, {ids["Ben"], ids["Cy"]})
    cy.goto("/")  # leaves the room's page
    meshed(ada, {ids["Ben"]})
    meshed(ben, {ids["Ada"]})

    # Ben signs out in another tab: his table's socket closes, and he leaves voice with it.
    profile = ben.context.new_page()
    profile.goto("/#profile")
    profile.get_by_role("button", name="Sign out").click()
    wait_for(lambda: set(peers(ada)) == set(), "Ben out of Ada's mesh after he signed out")
    expect(ada.locator(".seat.in-voice")).to_have_count(1)  # Ada alone
    expect(ada.get_by_test_id("voice-who")).to_have_text("In voice: Ada (you)")
    ada.locator("details.lobby-details > summary").click()
    expect(ada.locator(".member-list [data-testid=voice-mark]")).to_have_count(1)
    save_picture(ada, artifacts / "voice-lobby-laptop.png", full_page=True)


def test_the_speaking_ring_lights_on_the_seat_of_the_one_whose_microphone_plays(
    person: Person, artifacts: Path
) -> None:
    ada = person(microphone="beep")
    ben = person(microphone="silent")
    cy = person(microphone="silent", viewport=PHONE)
    seated_table([ada, ben, cy], ["Ada", "Ben", "Cy"])
    ids = {name: me(page) for name, page in (("Ada", ada), ("Ben", ben), ("Cy", cy))}
    for page in (ada, ben, cy):
        join_voice(page)
    for page in (ben, cy):
        expect(page.locator(f".seat[data-person='{ids['Ada']}'].speaking")).to_have_count(1, timeout=30_000)
    expect(ada.locator(f".seat[data-person='{ids['Ada']}'].speaking")).to_have_count(1)  # her own level
    save_picture(ben, artifacts / "voice-speaking-laptop.png")
    save_picture(cy, artifacts / "voice-speaking-phone.png")
    # The silent ones never ring, anywhere, over a few seconds of Ada's beeps.
    for _ in range(20):
        for page in (ada, ben, cy):
            assert (
                page.locator(
                    f".seat[data-person='{ids['Ben']}'].speaking, .seat[data-person='{ids['Cy']}'].speaking"
                ).count()
                == 0
            )
        time.sleep(0.15)


@pytest.mark.server_env(CARDTABLE_PUBSUB="postgres")
def test_two_people_whose_sockets_are_on_two_server_processes_hear_each_other(
    person: Person, server_process: ServerProcess, database_url: str, artifacts: Path
) -> None:
    second = ServerProcess(database_url, artifacts / "server-logs", CARDTABLE_PUBSUB="postgres")
    second.start()
    try:
        ada = person()
        ben = person(base_url=second.base_url)
        seated_table([ada, ben], ["Ada", "Ben"])
        ids = {"Ada": me(ada), "Ben": me(ben)}
        join_voice(ada)
        join_voice(ben)
        wait_until_hearing(ada, [ids["Ben"]])
        wait_until_hearing(ben, [ids["Ada"]])
    finally:
        second.stop()


def stun_answers(port: int) -> bool:
    """Whether a STUN binding request to 127.0.0.1:`port` (UDP) is answered."""
    request = struct.pack("!HHI12s", 0x0001, 0, 0x2112A442, os.urandom(12))
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.settimeout(0.5)
        try:
            probe.sendto(request, ("127.0.0.1", port))
            answer = probe.recv(2048)
        except OSError:
            return False
    return answer[:2] == b"\x01\x01" and answer[8:20] == request[8:20]


class Coturn:
    """Debian's coturn on loopback with a shared secret (the TURN REST convention), no daemon."""

    def __init__(self, log_dir: Path) -> None:
        binary = shutil.which("turnserver") or "/usr/bin/turnserver"
        if not os.path.exists(binary):
            pytest.fail("coturn is not installed: scripts/setup.sh --browser installs it")
        self.port = _free_port()
        self.log_path = log_dir / f"coturn-{self.port}.log"
        low = 20_000 + (self.port % 20) * 1000
        self.log = self.log_path.open("w")
        self.process = subprocess.Popen(
            [
                *(["stdbuf", "-oL"] if shutil.which("stdbuf") else []),  # its log line by line
                binary,
                "-n",
                "--no-tls",
                "--no-dtls",
                "--no-cli",
                "--listening-ip=127.0.0.1",
                "--relay-ip=127.0.0.1",
                f"--listening-port={self.port}",
                f"--min-port={low}",
                f"--max-port={low + 999}",
                "--use-auth-secret",
                f"--static-auth-secret={TURN_SECRET}",
                f"--realm={TURN_REALM}",
                "--allow-loopback-peers",
                f"--pidfile={log_dir / 'coturn.pid'}",
                f"--userdb={log_dir / 'coturn.sqlite'}",
                "--fingerprint",
                "--log-file",
                "stdout",
                "--simple-log",
                "--verbose",
                "--no-stun-backward-compatibility",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_for(
                lambda: self.process.poll() is not None or stun_answers(self.port), "coturn answering STUN"
            )
            assert self.process.poll() is None, self.log_path.read_text()
        except BaseException:
            self.stop()
            raise

    @property
    def url(self) -> str:
        return f"turn:127.0.0.1:{self.port}?transport=udp"

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


@pytest.fixture
def coturn(artifacts: Path) -> Iterator[Coturn]:
    logs = artifacts / "server-logs"
    logs.mkdir(exist_ok=True)
    turn = Coturn(logs)
    try:
        yield turn
    finally:
        turn.stop()


RELAY_GATHER_JS = """async ({ server }) => {
  const pc = new RTCPeerConnection({ iceServers: [server], iceTransportPolicy: "relay" });
  const found = { relay: 0, errors: [] };
  pc.addEventListener("icecandidate", (e) => {
    if (e.candidate && e.candidate.type === "relay") found.relay += 1;
  });
  pc.addEventListener("icecandidateerror", (e) => found.errors.push(e.errorCode));
  pc.addTransceiver("audio");
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise((done) => {
    if (pc.iceGatheringState === "complete") done();
    pc.addEventListener("icegatheringstatechange", () => pc.iceGatheringState === "complete" && done());
    setTimeout(done, 10000);
  });
  pc.close();
  return found;
}"""


def test_audio_flows_through_turn_on_credentials_the_server_issued_and_expired_ones_are_refused(
    database_url: str, artifacts: Path, coturn: Coturn, media: MediaBrowsers
) -> None:
    server = ServerProcess(
        database_url,
        artifacts / "server-logs",
        CARDTABLE_TURN_URLS=json.dumps([coturn.url]),
        CARDTABLE_TURN_SECRET=TURN_SECRET,
        CARDTABLE_ICE_TRANSPORT_POLICY="relay",
    )
    server.start()
    contexts = []
    try:

        def make() -> Page:
            context = media.get("beep").new_context(
                base_url=server.base_url, viewport=LAPTOP, reduced_motion=REDUCED_MOTION
            )
            context.grant_permissions(["microphone"])
            contexts.append(context)
            return context.new_page()

        ada, ben = make(), make()
        seated_table([ada, ben], ["Ada", "Ben"])
        ids = {"Ada": me(ada), "Ben": me(ben)}
        join_voice(ada)
        join_voice(ben)
        wait_until_hearing(ada, [ids["Ben"]])
        wait_until_hearing(ben, [ids["Ada"]])
        # Both ends of each connection are TURN relays: the audio went through coturn.
        for page, other in ((ada, ids["Ben"]), (ben, ids["Ada"])):
            row = wait_for(
                lambda p=page, o=other: peers(p).get(o, {}).get("local") and peers(p)[o], "a chosen pair"
            )
            assert row["local"] == "relay" and row["remote"] == "relay", row
        issued = ada.evaluate("async () => (await import('/static/js/voice.js')).activeVoice.iceServers")
        assert issued == [
            {"urls": [coturn.url], "username": issued[0]["username"], "credential": issued[0]["credential"]}
        ]
        expiry, person_id = issued[0]["username"].split(":")
        assert int(person_id) == ids["Ada"] and int(expiry) > time.time()
        allocated = f"user <{issued[0]['username']}>: incoming packet ALLOCATE processed, success"
        assert allocated in coturn.log_path.read_text()  # coturn relays on the server's credentials
        assert TURN_SECRET not in json.dumps(issued)

        # The same person's credentials an hour past their expiry: coturn answers 401, no relay.
        username, credential = turn_credentials(TURN_SECRET, ids["Ada"], ttl=-3600)
        expired = ada.evaluate(
            RELAY_GATHER_JS,
            {"server": {"urls": [coturn.url], "username": username, "credential": credential}},
        )
        assert expired["relay"] == 0 and 401 in expired["errors"], expired
        assert (
            f"user <{username}>: incoming packet message processed, error 401" in coturn.log_path.read_text()
        )
        fresh = ada.evaluate(RELAY_GATHER_JS, {"server": issued[0]})
        assert fresh["relay"] > 0, fresh
    finally:
        for context in contexts:
            context.close()
        server.stop()
